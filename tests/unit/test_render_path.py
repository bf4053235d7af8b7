"""The render path of docs/speed.md: which modules a `template` run loads, and the rules they keep.

The boundary is declared here and written down in docs/speed.md (a test keeps the two equal).
A template run that exercises every function family must load no module of ours outside it,
and every module inside it keeps the speed rules that can be checked by reading it: no
`typing`, `dataclasses` or NamedTuple at run time, no module-level `inspect`. Code outside
the boundary is plain Python and may use them.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from runner.funcs.index import FUNCTIONS_BY_MODULE

REPO = Path(__file__).resolve().parents[2]
SPEED_DOC = REPO / "docs" / "speed.md"

# Every module of these packages is on the render path, except those of OUTSIDE.
RENDER_PATH_PACKAGES = ("runner.template", "runner.funcs", "runner.encoding", "runner.chart",
                        "runner.golang")
# Single modules a template run loads: the engine and its helpers, and the front end of the
# `template` command (the CLI's dispatch and the template command's own modules).
RENDER_PATH_MODULES = (
    "runner", "runner.engine", "runner.engine_objects", "runner.engine_errors", "runner.manifest",
    "runner.heads_cache", "runner.deepstack", "runner.errors", "runner.records", "runner.lazy_pattern", "runner.diskcache", "runner.gcpause",
    "runner.cli", "runner.cli.cobra", "runner.cli.errors", "runner.cli.flags", "runner.cli.pflag",
    "runner.cli.template", "runner.actions", "runner.actions.template",
    "runner.kube", "runner.kube.kubeconfig_files",
)
# Inside those packages, but loaded only by other commands or by a run that pays far more
# elsewhere (a download, a post-renderer process).
OUTSIDE = ("runner.chart.sources", "runner.chart.package", "runner.chart.gostructs",
           "runner.encoding.kyaml", "runner.encoding.uitable")

RUN_TIME_BANNED = {"typing", "typing_extensions", "dataclasses"}  # anywhere outside TYPE_CHECKING
MODULE_LEVEL_BANNED = {"inspect"}  # a function may import it for a rare case


def on_render_path(module: str) -> bool:
    if any(module == out or module.startswith(out + ".") for out in OUTSIDE):
        return False
    return module in RENDER_PATH_MODULES or any(
        module == pkg or module.startswith(pkg + ".") for pkg in RENDER_PATH_PACKAGES)


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def render_path_files() -> list[Path]:
    files = [p for p in sorted((REPO / "runner").rglob("*.py")) if on_render_path(_module_name(p))]
    assert len(files) > 80, "the render path lost its modules: is the boundary still right?"
    return files


def _is_type_checking_block(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imported_roots(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module.split(".")[0]]
    return []


def speed_rule_breaks(tree: ast.Module) -> list[str]:
    """Where a module breaks the readable speed rules, as `line N: what`."""
    found: list[str] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.stmt) and _is_type_checking_block(node):
            return  # never runs
        for root in _imported_roots(node) if isinstance(node, ast.stmt) else []:
            if root in RUN_TIME_BANNED or (root in MODULE_LEVEL_BANNED and not in_function):
                found.append(f"line {node.lineno}: imports {root}")
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                if ast.unparse(base).endswith("NamedTuple"):
                    found.append(f"line {node.lineno}: NamedTuple {node.name}")
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("namedtuple"):
            found.append(f"line {node.lineno}: namedtuple()")
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    return found


@pytest.mark.parametrize("path", render_path_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_render_path_module_keeps_the_speed_rules(path: Path) -> None:
    assert speed_rule_breaks(ast.parse(path.read_text(), str(path))) == []


# docs/speed.md's `TYPE_CHECKING = False` stands in for typing.TYPE_CHECKING only where typing's
# import cost counts; no module off the path carries it.
IDIOM_OFF_THE_PATH: set[str] = set()


def test_modules_off_the_render_path_are_plain_python() -> None:
    carrying = {path.relative_to(REPO).as_posix() for path in (REPO / "runner").rglob("*.py")
                if not on_render_path(_module_name(path)) and "TYPE_CHECKING = False" in path.read_text()}
    assert carrying == IDIOM_OFF_THE_PATH, "off the render path: `from typing import ...` at the top"


def test_the_rule_check_finds_what_it_looks_for() -> None:
    text = ("from dataclasses import dataclass\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n"
            "    from typing import Any\nimport inspect\nclass P(typing.NamedTuple): pass\n"
            "def f():\n    import inspect\n    from typing import cast\n")
    assert speed_rule_breaks(ast.parse(text)) == [
        "line 1: imports dataclasses", "line 5: imports inspect", "line 6: NamedTuple P",
        "line 9: imports typing"]


def test_docs_speed_md_names_the_same_boundary() -> None:
    text = SPEED_DOC.read_text()
    section = text.split("## Where the rules apply: the render path", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(runner(?:\.\w+)*)`", section))
    assert named == {*RENDER_PATH_PACKAGES, *RENDER_PATH_MODULES, *OUTSIDE}


# A chart that calls a function of every family, with what most charts also use: values files,
# --set, a schema, a subchart with an alias, Files and Capabilities methods, tpl, include,
# required, lookup (empty without a cluster) and a time method.
_TEMPLATE = """\
{{- define "c.name" }}{{ .Chart.Name }}{{ end -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "c.name" . }}
data:
  certs: {{ genPrivateKey "ecdsa" | len | toString | quote }}
  conversion: {{ int "3" | quote }}
  crypto: {{ sha256sum "x" | quote }}
  date: {{ now | date "2006" | len | quote }}
  time-method: {{ now.Year | toString | len | quote }}
  defaults: {{ default "a" .Values.missing | quote }}
  dicts: {{ dict "a" 1 | keys | len | quote }}
  helm: {{ toYaml .Values.obj | fromYaml | toJson | fromJson | toToml | len | quote }}
  lists: {{ list 1 2 | len | quote }}
  network: {{ getHostByName "localhost" | quote }}
  numeric: {{ add 1 2 | quote }}
  paths: {{ base "a/b" | quote }}
  reflect: {{ kindOf 1 | quote }}
  regex: {{ regexMatch "^a" "abc" | quote }}
  semver: {{ semverCompare ">=1.0.0" "1.2.3" | quote }}
  strings: {{ upper "a" | quote }}
  urls: {{ urlParse "http://u@h/p" | toJson | len | quote }}
  tpl: {{ tpl "{{ .Values.obj.a }}" . | quote }}
  required: {{ required "set obj" .Values.obj.a | quote }}
  lookup: {{ lookup "v1" "ConfigMap" "ns" "n" | len | quote }}
  files: {{ .Files.Glob "files/*" | len | quote }}
  file: {{ .Files.Get "files/a.txt" | quote }}
  has: {{ .Capabilities.APIVersions.Has "v1" | quote }}
  kube: {{ .Capabilities.KubeVersion.GitVersion | quote }}
  set: {{ .Values.fromSet | quote }}
---
{{ (.Files.Glob "files/*").AsConfig }}
"""


def _feature_chart(root: Path) -> Path:
    chart = root / "c"
    for directory in ("templates", "files", "crds", "charts/sub/templates"):
        (chart / directory).mkdir(parents=True)
    (chart / "Chart.yaml").write_text(
        "apiVersion: v2\nname: c\nversion: 0.1.0\nkubeVersion: '>=1.20.0-0'\n"
        "dependencies:\n- name: sub\n  version: 0.1.0\n  alias: other\n")
    (chart / "values.yaml").write_text("obj: {a: 1, b: [x, y]}\nother: {greeting: hi}\n")
    (chart / "values.schema.json").write_text(
        '{"type": "object", "properties": {"obj": {"type": "object"}}, "required": ["obj"]}')
    (chart / ".helmignore").write_text("*.bak\n")
    (chart / "files" / "a.txt").write_text("a")
    (chart / "crds" / "crd.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: crd}\n")
    (chart / "templates" / "cm.yaml").write_text(_TEMPLATE)
    (chart / "templates" / "NOTES.txt").write_text("{{ .Release.Name }}\n")
    (chart / "charts" / "sub" / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
    (chart / "charts" / "sub" / "templates" / "cm.yaml").write_text(
        "kind: ConfigMap\nmetadata: {name: sub}\ndata: {greeting: {{ .Values.greeting | quote }}}\n")
    (root / "extra.yaml").write_text("obj: {c: 3}\n")
    return chart


def test_a_template_run_loads_only_the_render_path(tmp_path: Path) -> None:
    chart = _feature_chart(tmp_path)
    argv = ["template", "rel", str(chart), "-f", str(tmp_path / "extra.yaml"), "--set", "fromSet=1",
            "--include-crds", "--kube-version", "1.30.0", "--api-versions", "x/v1"]
    code = ("import json, sys; from runner import cli;"
            f"code = cli.main({argv!r});"
            "print(json.dumps([code, sorted(m for m in sys.modules if m.startswith('runner'))]),"
            " file=sys.stderr)")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("DEPLOY_RUNNER_NO_CACHE", None)
    for run in ("cold cache", "warm cache"):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=REPO, env=env, timeout=120, check=False)
        exit_code, loaded = json.loads(proc.stderr.strip().splitlines()[-1])
        assert exit_code == 0, proc.stderr
        assert "greeting: \"hi\"" in proc.stdout and "tpl: \"1\"" in proc.stdout
        # The engine answers getHostByName with Helm's stub ("" without DNS lookups enabled).
        families = {f"runner.funcs.{family}" for family in FUNCTIONS_BY_MODULE} - {"runner.funcs.network"}
        assert families <= set(loaded), f"{run}: the chart no longer calls every family"
        assert [m for m in loaded if not on_render_path(m)] == [], (
            f"{run}: a template run loads these modules: put them on the render path in "
            "docs/speed.md and this test (and keep its rules), or keep them out of the run")
