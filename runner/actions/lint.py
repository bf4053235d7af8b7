"""Helm 4.1.4's lint action (pkg/action/lint.go); runner.cli.lint prints it as `helm lint`.

Each path is linted with every rule family of runner.lint; a chart fails on
errors (--strict: on warnings too); --with-subcharts adds every chart under
PATH/charts.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import RunnerError

_ARCHIVE_SUFFIXES = (".tgz", ".tar.gz")


@dataclass
class LintOptions:
    paths: list[str] = field(default_factory=lambda: ["."])
    strict: bool = False
    with_subcharts: bool = False
    quiet: bool = False
    skip_schema_validation: bool = False
    kube_version: str = ""
    namespace: str = "default"
    values_files: list[str] = field(default_factory=list)
    sets: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class ChartResult:
    """LintResult for one path: its messages and the errors that fail it."""

    messages: list[Any] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def has_warnings_or_errors(self) -> bool:
        from runner.lint.support import INFO

        return any(m.severity > INFO for m in self.messages) or bool(self.errors)


def lint(opts: LintOptions, on_warning: Callable[[str], None]) -> list[tuple[str, ChartResult]]:
    """action.Lint.Run: each path (and with --with-subcharts each chart under PATH/charts)
    and its result, in order. Loading warnings go to `on_warning` as they come."""
    from runner.engine_objects import parse_kube_version

    kube = parse_kube_version(opts.kube_version) if opts.kube_version else None
    paths = list(opts.paths)
    if opts.with_subcharts:
        for path in opts.paths:
            paths.extend(subchart_paths(path))
    values = _user_values(opts)
    return [(path, lint_path(path, values, opts, kube, on_warning)) for path in paths]


def _user_values(opts: LintOptions) -> dict[str, Any]:
    from runner.chart.uservalues import merge_user_values

    return merge_user_values(opts.values_files, opts.sets)


def lint_path(path: str, values: dict[str, Any], opts: LintOptions, kube: Any,
              on_warning: Callable[[str], None]) -> ChartResult:
    """action.Lint.Run for one path (archives are expanded to a temporary directory)."""
    if path.endswith(_ARCHIVE_SUFFIXES):
        with tempfile.TemporaryDirectory(prefix="helm-lint") as tmp:
            try:
                chart_dir = expand_archive(path, tmp)
            except RunnerError as err:
                return ChartResult(errors=[str(err)])
            return _lint_dir(chart_dir, values, opts, kube, on_warning)
    return _lint_dir(path, values, opts, kube, on_warning)


def _lint_dir(chart_dir: str, values: dict[str, Any], opts: LintOptions, kube: Any,
              on_warning: Callable[[str], None]) -> ChartResult:
    from runner.chart.logs import Warnings
    from runner.chart.values import deep_copy
    from runner.lint import TemplateOptions, run_all
    from runner.lint.support import ERROR, WARNING

    chart_yaml = os.path.normpath(os.path.join(chart_dir, "Chart.yaml"))
    try:
        os.stat(chart_yaml)
    except OSError as exc:
        reason = "not a directory" if isinstance(exc, NotADirectoryError) else "no such file or directory"
        return ChartResult(errors=[f"unable to check Chart.yaml file in chart: stat {chart_yaml}: {reason}"])
    template_opts = TemplateOptions(
        values=deep_copy(values), namespace=opts.namespace,
        kube_version=opts.kube_version or None,
        kube_major_minor=(int(kube.Major), int(kube.Minor)) if kube is not None else None,
        skip_schema=opts.skip_schema_validation,
    )
    warnings = Warnings()
    linter = run_all(chart_dir, template_opts, warnings)
    for line in warnings.items:
        on_warning(str(line))
    lowest = WARNING if opts.strict else ERROR
    errors = [m.text for m in linter.messages if m.severity >= lowest]
    return ChartResult(messages=linter.messages, errors=errors)


def expand_archive(path: str, destination: str) -> str:
    """chartutil.ExpandFile into destination; the chart's directory inside it."""
    from runner.chart.archive import expand

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RunnerError(f"unable to open tarball: open {path}: {(exc.strerror or '').lower()}") from exc
    try:
        return str(expand(data, Path(destination)))
    except RunnerError as exc:
        raise RunnerError(f"unable to extract tarball: {exc}") from exc


def subchart_paths(path: str) -> list[str]:
    """filepath.Walk of PATH/charts: directories holding a Chart.yaml, and chart archives."""
    found: list[str] = []
    _walk(os.path.normpath(os.path.join(path, "charts")), found)
    return found


def _walk(current: str, found: list[str]) -> None:
    name = os.path.basename(current)
    if name == "Chart.yaml":
        found.append(os.path.dirname(current))
    elif current.endswith(_ARCHIVE_SUFFIXES):
        found.append(current)
    if os.path.isdir(current) and not os.path.islink(current):
        try:
            entries = sorted(os.listdir(current))
        except OSError:
            return
        for entry in entries:
            _walk(os.path.join(current, entry), found)
