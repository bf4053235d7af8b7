"""Template rules (Helm's lint/rules/template.go): render in lint mode, then check each YAML file."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from typing import Any

from runner.chart.logs import Warning, Warnings  # noqa: A004 - Helm's log line
from runner.errors import RunnerError
from runner.golang.strconv import quote
from runner.lint.chartload import load_v2
from runner.lint.deprecations import validate_no_deprecations
from runner.lint.hook_policies import lint_hook_output_policies
from runner.lint.k8syaml import DecodeError, K8sObject, decode_objects, list_item_annotations
from runner.lint.names import check_for_kind
from runner.lint.support import ERROR, WARNING, Linter

TEMPLATES_DIR = "templates/"
LINT_RELEASE = "test-release"
_ALLOWED_EXTENSIONS = (".yaml", ".yml", ".tpl", ".txt")


@dataclass(frozen=True)
class TemplateOptions:
    values: dict[str, Any]
    namespace: str = "default"
    kube_version: str | None = None  # --kube-version as given
    kube_major_minor: tuple[int, int] | None = None
    skip_schema: bool = False


def lint_templates(linter: Linter, opts: TemplateOptions, warnings: Warnings) -> None:
    path = os.path.join(linter.chart_dir, TEMPLATES_DIR.rstrip("/"))
    if not linter.run_rule(WARNING, TEMPLATES_DIR, None if os.path.exists(path) else "directory does not exist"):
        return
    if not linter.run_rule(ERROR, TEMPLATES_DIR, None if os.path.isdir(path) else "not a directory"):
        return
    chart, load_warnings, error = load_v2(linter.chart_dir)
    warnings.items.extend(load_warnings)
    if not linter.run_rule(ERROR, TEMPLATES_DIR, error) or chart is None:
        return
    rendered = _render(linter, chart, opts, warnings)
    if rendered is None:
        return
    for template in chart.templates:
        name = template.name
        linter.run_rule(ERROR, name, validate_allowed_extension(name))
        if not is_yaml_file(name):
            continue
        content = rendered.get(posixpath.join(chart.name(), name), "")
        if content.strip() and not _lint_content(linter, name, content, opts):
            return
        if content.strip():  # ours: helm.sh/hook-output-log-policy values
            lint_hook_output_policies(linter, name, content, template.data.decode("utf-8", "replace"))


def _render(linter: Linter, chart: Any, opts: TemplateOptions, warnings: Warnings) -> dict[str, str] | None:
    """ProcessDependencies, CoalesceValues, schema, render (lint mode); None when linting stops."""
    from runner import engine
    from runner.chart.dependencies import process_dependencies
    from runner.chart.schema import validate_values
    from runner.chart.values import coalesce_values
    from runner.engine_objects import default_capabilities

    try:
        process_dependencies(chart, opts.values, warnings)
        values = coalesce_values(chart, opts.values, warnings)
    except RunnerError:
        return None  # Helm returns quietly here
    try:
        values = coalesce_values(chart, values, warnings)  # ToRenderValues coalesces once more
        if not opts.skip_schema:
            validate_values(chart, values)
        caps = default_capabilities(opts.kube_version)
        release = engine.ReleaseOptions(LINT_RELEASE, opts.namespace, 0, False, False)
        top = engine.to_render_values(chart, values, release, caps)
        renderer = engine.Engine(lint_mode=True)
        try:
            result = renderer.render(chart, top)
        finally:  # what required/fail logged before an error is logged too
            warnings.items.extend(_engine_warnings(renderer.warnings))
    except RunnerError as err:
        linter.run_rule(ERROR, TEMPLATES_DIR, str(err))
        return None
    return result.texts()


def _engine_warnings(lines: list[str]) -> list[Warning]:
    """The engine's lint-mode notes as Helm 4 logs them."""
    out: list[Warning] = []
    for line in lines:
        if line.startswith("[INFO] Missing required value: "):
            text = line.removeprefix("[INFO] Missing required value: ")
            out.append(Warning("missing required value", "WARN", (("message", text),)))
        elif line.startswith("[INFO] Fail: "):
            out.append(Warning("funcMap fail", "INFO", (("message", line.removeprefix("[INFO] Fail: ")),)))
    return out


def _lint_content(linter: Linter, name: str, content: str, opts: TemplateOptions) -> bool:
    """The per-file checks; False when a document does not parse (Helm stops linting there)."""
    linter.run_rule(WARNING, name, validate_top_indent_level(content))
    try:
        for obj in decode_objects(content):
            if obj is None:
                continue
            linter.run_rule(WARNING, name, validate_metadata_name(obj))
            linter.run_rule(WARNING, name, validate_no_deprecations(obj, opts.kube_major_minor))
            linter.run_rule(ERROR, name, validate_match_selector(obj, content))
            linter.run_rule(ERROR, name, validate_list_annotations(obj, content))
    except DecodeError as exc:
        linter.run_rule(ERROR, name, f"unable to parse YAML: {exc}")
        return False
    return True


def validate_allowed_extension(name: str) -> str | None:
    ext = _go_ext(name)
    if ext in _ALLOWED_EXTENSIONS:
        return None
    return f"file extension '{ext}' not valid. Valid extensions are .yaml, .yml, .tpl, or .txt"


def _go_ext(name: str) -> str:
    """filepath.Ext: from the last dot of the last element."""
    base = name.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return base[dot:] if dot >= 0 else ""


def is_yaml_file(name: str) -> bool:
    return _go_ext(name).lower() in (".yaml", ".yml")


def validate_top_indent_level(content: str) -> str | None:
    for line in content.split("\n"):
        if not line.strip():
            continue
        if line.startswith((" ", "\t")):
            return (f"document starts with an illegal indent: {quote(line)}, "
                    "which may cause parsing problems")
        return None
    return None


def validate_metadata_name(obj: K8sObject) -> str | None:
    problems = check_for_kind(obj.kind)(obj.name)
    if not problems:
        return None
    quoted = quote(obj.name)
    errors = [f"metadata.name: Invalid value: {quoted}: {p}" for p in problems]
    detail = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return f"object name does not conform to Kubernetes naming requirements: {quoted}: {detail}"


def validate_match_selector(obj: K8sObject, manifest: str) -> str | None:
    if obj.kind in ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet") and (
            "matchLabels" not in manifest and "matchExpressions" not in manifest):
        return (f"a {obj.kind} must contain matchLabels or matchExpressions, "
                f"and {quote(obj.name)} does not")
    return None


def validate_list_annotations(obj: K8sObject, manifest: str) -> str | None:
    if obj.kind != "List":
        return None
    try:
        annotations = list_item_annotations(manifest)
    except ValueError as exc:
        return f"unable to parse YAML: {getattr(exc, 'unmarshal_message', exc)}"
    if any("helm.sh/resource-policy" in a for a in annotations):
        return "annotation 'helm.sh/resource-policy' within List objects are ignored"
    return None
