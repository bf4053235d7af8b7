"""runner.engine: Helm's pkg/engine pieces that do not need the executor.

Rendering itself is compared with Helm 4.1.4 in tests/conformance; the error
texts below are the shapes Helm 4.1.4 prints (seen in its output for nested
include failures, required, fail, tpl, and missing templates).
"""

from __future__ import annotations

import pytest

from runner.engine import cleanup_parse_error, reformat_exec_error, sort_templates
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
    assert Files().AsConfig() == "" and Files().AsSecrets() == ""


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
