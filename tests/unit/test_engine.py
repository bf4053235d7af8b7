"""runner.engine: Helm's pkg/engine pieces that do not need the executor.

Rendering itself is compared with Helm 4.1.4 in tests/conformance; the error
texts below are the shapes Helm 4.1.4 prints (seen in its output for nested
include failures, required, fail, tpl, and missing templates).
"""

from __future__ import annotations

from typing import Any

import pytest

from runner.engine import sort_templates
from runner.engine_errors import cleanup_parse_error, reformat_exec_error
from runner.engine_objects import Files, default_capabilities, parse_kube_version
from runner.errors import RunnerError

NIL = "nil pointer evaluating interface {}.b"


def _exec(loc: str, name: str, ctx: str, reason: str) -> str:
    return f'template: {loc}: executing "{name}" at <{ctx}>: {reason}'


def test_required_message_uses_outermost_location() -> None:
    inner = _exec("c/t/a.yaml:1:30", "y", 'required "deep" .Values.a', "error calling required: HELM_ERR_STARTdeepHELM_ERR_END")
    outer = _exec("c/t/a.yaml:1:106", "c/t/a.yaml", 'include "x" .', f"error calling include: {inner}")
    assert reformat_exec_error("c/t/a.yaml", outer) == "execution error at (c/t/a.yaml:1:106): deep"


def test_nested_include_error_is_a_trace() -> None:
    inner = _exec("c/t/a.yaml:1:26", "x", ".Values.a.b", NIL)
    outer = _exec("c/t/a.yaml:1:48", "c/t/a.yaml", 'include "x" .', f"error calling include: {inner}")
    assert reformat_exec_error("c/t/a.yaml", outer) == (
        'c/t/a.yaml:1:48\n  executing "c/t/a.yaml" at <include "x" .>:\n    error calling include:\n'
        f'c/t/a.yaml:1:26\n  executing "x" at <.Values.a.b>:\n    {NIL}'
    )


def test_missing_include_target_keeps_go_text() -> None:
    missing = 'template: no template "nope" associated with template "gotpl"'
    outer = _exec("c/t/a.yaml:1:6", "c/t/a.yaml", 'include "nope" .', f"error calling include: {missing}")
    assert reformat_exec_error("c/t/a.yaml", outer).endswith("error calling include:\n" + missing)


def test_function_errors_stay_raw() -> None:
    raw = _exec("c/t/a.yaml:1:6", "c/t/a.yaml", "index .Values.a 1", "error calling index: index of untyped nil")
    assert reformat_exec_error("c/t/a.yaml", raw) == raw


def test_parse_error_keeps_location_and_reason() -> None:
    assert cleanup_parse_error("c/t/a.yaml", "template: c/t/a.yaml:1: unclosed action") == (
        "parse error at (c/t/a.yaml:1): unclosed action"
    )


def test_templates_sort_deepest_first_then_reverse_lexical() -> None:
    names = ["c/templates/a.yaml", "c/charts/s/templates/x.yaml", "c/templates/b.yaml"]
    assert sort_templates(names) == ["c/charts/s/templates/x.yaml", "c/templates/b.yaml", "c/templates/a.yaml"]


def test_files_go_semantics() -> None:
    files = Files({"files/a.txt": b"hello\nworld\n", "files/sub/b.txt": b"x", "c.yaml": b""})
    assert files.Get("nope") == "" and files.GetBytes("nope") == b""
    assert list(files.Lines("files/a.txt")) == ["hello", "world"]
    assert list(files.Lines("nope")) == []
    assert sorted(files.Glob("files/*")) == ["files/a.txt"]
    assert sorted(files.Glob("files/**")) == ["files/a.txt", "files/sub/b.txt"]
    assert sorted(files.Glob("{c,d}.yaml")) == ["c.yaml"]


def test_capabilities_defaults_and_flags() -> None:
    caps = default_capabilities()
    assert caps.KubeVersion.Version == "v1.35.0" and caps.KubeVersion.Minor == "35"
    assert caps.APIVersions.Has("apps/v1") and len(caps.APIVersions) == 57
    extra = default_capabilities("1.29", ["monitoring.coreos.com/v1"])
    assert extra.KubeVersion.Version == "v1.29" and extra.APIVersions.Has("monitoring.coreos.com/v1")
    with pytest.raises(RunnerError, match="invalid kube version 'abc'"):
        parse_kube_version("abc")
    rc = parse_kube_version("v1.29.3-rc.1+abc")
    assert (rc.Version, rc.String(), rc.__go_str__()) == (
        "v1.29.3-rc.1+abc", "v1.29.3", "{v1.29.3-rc.1+abc v1.29.3 1 29}")


# ---------------------------------------------------------------- against Helm 4.1.4
# Small charts for the engine's own objects and errors; Helm renders each in
# the test run and its stdout, stderr and exit code are the expectation.

ENGINE_CASES: dict[str, str] = {
    "objects": """rel: {{ .Release.Name }} {{ .Release.Namespace }} {{ .Release.IsInstall }} {{ .Release.IsUpgrade }} {{ .Release.Revision }} {{ .Release.Service }}
tmpl: {{ .Template.Name }} {{ .Template.BasePath }}
chart: {{ .Chart.Name }} {{ .Chart.IsRoot }} {{ .Chart.Version }} {{ typeOf .Chart.Dependencies }}
kube: "{{ .Capabilities.KubeVersion }} {{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.KubeVersion.Major }} {{ .Capabilities.KubeVersion.GitVersion }}"
apis: {{ .Capabilities.APIVersions.Has "apps/v1" }} {{ .Capabilities.APIVersions.Has "nope/v1" }} {{ len .Capabilities.APIVersions }}
helm: "{{ .Capabilities.HelmVersion.Version }} {{ print .Capabilities.HelmVersion }}"
types: "{{ typeOf .Files }} {{ typeOf .Capabilities }} {{ typeOf .Capabilities.APIVersions }} {{ typeOf .Subcharts }}"
subchart: "{{ .Subcharts.sub.Chart.Name }} {{ .Subcharts.sub.Values.x }} {{ .Subcharts.sub.Chart.IsRoot }}"
caps: {{ .Capabilities | toYaml | sha256sum }}
""",
    "files": """get: {{ .Files.Get "files/a.txt" | quote }} {{ .Files.Get "nope" | quote }}
bytes: {{ .Files.GetBytes "files/a.txt" | toJson }}
lines: {{ .Files.Lines "files/a.txt" | toJson }} {{ .Files.Lines "nope" | toJson }}
glob: {{ keys (.Files.Glob "files/*") | sortAlpha | toJson }} {{ keys (.Files.Glob "**.yaml") | sortAlpha | toJson }}
config: {{ (.Files.Glob "files/*").AsConfig | quote }} {{ (.Files.Glob "none/*").AsConfig | quote }} {{ (.Files.Glob "none/*").AsSecrets | quote }}
secrets: {{ (.Files.Glob "files/*").AsSecrets | quote }}
all: {{ .Files | toJson }}
""",
    "engine-funcs": """{{- define "c.name" }}{{ .Chart.Name }}-n{{ end -}}
inc: {{ include "c.name" . }}
tpl: {{ tpl "{{ .Release.Name }}-{{ .Values.x }}" . }}
tpldef: {{ tpl "{{ define \\"zz\\" }}ZZ{{ end }}{{ include \\"zz\\" . }}" . }}
tplplain: {{ tpl "plain" . }}
novalue: {{ .Values.missing }}|{{ tpl "{{ .Values.missing }}" . }}
req: {{ required "needed" "ok" }}
lookup: {{ lookup "v1" "Pod" "ns" "p" | toJson }}
host: {{ getHostByName "localhost" | quote }}
""",
    "err-nested-include": """{{ define "z" }}{{ .Values.a.b }}{{ end }}{{ define "y" }}{{ include "z" . }}{{ end }}x: {{ include "y" . }}""",
    "err-required": """{{ define "y" }}{{ required "deep value" .Values.nope }}{{ end }}x: {{ include "y" . }}""",
    "err-fail": """x: {{ fail "boom" }}""",
    "err-missing-include": """x: {{ include "nope" . }}""",
    "err-tpl": """x: {{ tpl "{{ .Values.a.b }}" . }}""",
    "err-tpl-parse": """x: {{ tpl "{{ .Values.a.b " . }}""",
    "err-parse": """x: {{ .Values.a""",
    "err-function": """x: {{ index .Values.nope 1 }}""",
    "err-recursion": """{{ define "r" }}{{ include "r" . }}{{ end }}x: {{ include "r" . }}""",
    "err-yaml": """a: [\n""",
}


def _write_case_chart(root: Any, template: str) -> Any:
    chart = root / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "files").mkdir()
    (chart / "charts" / "sub" / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("x: 1\nsub:\n  x: two\n")
    (chart / "files" / "a.txt").write_text("hello\nworld\n")
    (chart / "files" / "b.yaml").write_text("k: v\n")
    (chart / "charts" / "sub" / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.2.0\n")
    (chart / "templates" / "NOTES.txt").write_text("notes {{ .Release.Name }}\n")
    (chart / "templates" / "t.yaml").write_text(template)
    return chart


@pytest.mark.conformance
@pytest.mark.parametrize("case", sorted(ENGINE_CASES))
def test_engine_case_renders_as_helm(case: str, tmp_path: Any) -> None:
    import subprocess

    from testbed.helm import helm_binary
    from tests.conformance.harness import Run

    chart = _write_case_chart(tmp_path, ENGINE_CASES[case])
    args = ["template", "rel", str(chart), "--namespace", "ns"]
    proc = subprocess.run([str(helm_binary()), *args], capture_output=True, text=True, check=False)
    expected = Run(proc.stdout, proc.stderr, proc.returncode)
    assert _ours(args).shown() == expected.shown()


def _ours(args: list[str]) -> Any:
    import contextlib
    import io

    from runner.cli import main
    from tests.conformance.harness import Run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return Run(out.getvalue(), err.getvalue(), code)
