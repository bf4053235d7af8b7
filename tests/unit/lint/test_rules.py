"""Rule behaviour of runner.lint, offline: which checks pass, fail, and in what order.

Helm's exact texts are pinned by tests/conformance/test_lint.py against the
real binary; these tests pin the decisions (pass/fail, severity, order, stop).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.chart.logs import Warnings
from runner.chart.model import Metadata
from runner.lint import TemplateOptions, run_all
from runner.lint.chartfile import validate_strict_semver, validate_version
from runner.lint.deprecations import validate_no_deprecations
from runner.lint.govalidate import is_email, is_request_url, is_url
from runner.lint.k8syaml import DecodeError, K8sObject, decode_objects, split_documents
from runner.lint.names import check_for_kind
from runner.lint.support import ERROR, INFO, WARNING, Linter
from runner.lint.templates import validate_allowed_extension, validate_top_indent_level


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def _lint(root: Path, **opts: object) -> Linter:
    return run_all(str(root), TemplateOptions(values={}, **opts), Warnings())  # type: ignore[arg-type]


def test_linter_records_failures_and_highest_severity() -> None:
    linter = Linter("/c")
    assert linter.run_rule(ERROR, "a", None)
    assert not linter.run_rule(WARNING, "b", "w")
    assert not linter.run_rule(INFO, "c", "i")
    assert linter.highest_severity == WARNING
    assert [str(m).split("]")[0] for m in linter.messages] == ["[WARNING", "[INFO"]


@pytest.mark.parametrize(("version", "loose", "strict"), [
    ("1.2.3", True, True), ("v1.2.3", True, False), ("1.2", True, False),
    ("1.2.3-rc.1+b.5", True, True), ("01.2.3", True, False), ("one.two", False, False),
])
def test_chart_versions_loose_and_strict(version: str, loose: bool, strict: bool) -> None:
    md = Metadata(version=version)
    assert (validate_version(md) is None) is loose
    assert (validate_strict_semver(md) is None) is strict


def test_lowest_prerelease_version_fails_the_range_check() -> None:
    assert validate_version(Metadata(version="0.0.0-0")) is not None
    assert validate_version(Metadata(version="0.0.0")) is None


@pytest.mark.parametrize(("text", "ok"), [
    ("a@example.com", True), ("a.b+c@example.co.uk", True), ("x@y", False), ("nope", False),
])
def test_is_email(text: str, ok: bool) -> None:
    assert is_email(text) is ok


@pytest.mark.parametrize(("text", "ok"), [
    ("https://example.com/x", True), ("example.com/x", True), ("foo/bar", False),
    ("ht tp://x", False), ("localhost", False), ("localhost:8080", True), ("", False),
])
def test_is_url(text: str, ok: bool) -> None:
    assert is_url(text) is ok


@pytest.mark.parametrize(("text", "ok"), [
    ("https://example.com/i.png", True), ("data:image/png;base64,x", True),
    ("/icon.png", False), ("foo", False), ("not a url", False), ("https://a b/", False),
])
def test_is_request_url(text: str, ok: bool) -> None:
    assert is_request_url(text) is ok


def test_name_rules_follow_the_kind() -> None:
    assert check_for_kind("Service")("1abc")
    assert not check_for_kind("ConfigMap")("1abc")
    assert check_for_kind("Namespace")("a.b")
    assert not check_for_kind("ConfigMap")("a.b")
    assert not check_for_kind("CertificateSigningRequest")("ANY_thing")
    assert check_for_kind("ClusterRole")("a/b")
    assert not check_for_kind("ClusterRole")("Upper:case")
    assert len(check_for_kind("ConfigMap")("A" * 260)) == 2


def test_deprecations_depend_on_the_target_version() -> None:
    pdb = K8sObject("policy/v1beta1", "PodDisruptionBudget", "p")
    assert validate_no_deprecations(pdb, None)
    assert validate_no_deprecations(pdb, (1, 20)) is None
    assert validate_no_deprecations(K8sObject("apps/v1", "Deployment", "d"), None) is None
    assert validate_no_deprecations(K8sObject("example.com/v1", "Thing", "t"), None) is None
    assert validate_no_deprecations(K8sObject("v1", "Endpoints", "e"), None)


def test_documents_split_on_separator_lines_only() -> None:
    text = "a: 1\n---\nb: 2\n--- # c\nc: 3\n----\nd: 4\n---\n"
    assert len(split_documents(text)) == 3


def test_yaml_scalars_become_strings_and_empty_documents_none() -> None:
    objs = list(decode_objects("kind: 12\nmetadata:\n  name: true\n---\n# only a comment\n"))
    assert objs[0] == K8sObject("", "12", "true", "")
    assert objs[1] is None


def test_json_stream_falls_back_to_yaml_once() -> None:
    assert len(list(decode_objects('{"a": 1}\n---\n{"b": 2}\n'))) == 2
    with pytest.raises(DecodeError):
        list(decode_objects('{"a" 1}'))


def test_extension_and_indent_checks() -> None:
    assert validate_allowed_extension("templates/x.json")
    assert validate_allowed_extension("templates/_helpers.tpl") is None
    assert validate_top_indent_level("\n\n  a: 1\n")
    assert validate_top_indent_level("\na: 1\n  b: 2\n") is None


def test_rule_families_run_in_helms_order(tmp_path: Path) -> None:
    root = _write(tmp_path / "c", {
        "Chart.yaml": "apiVersion: v2\nname: c\nversion: v1\n",
        "templates/x.json": "{}\n",
        "crds/a.yaml": "kind: ConfigMap\n",
    })
    paths = [m.path for m in _lint(root).messages]
    assert paths[0] == "Chart.yaml"
    assert paths.index("values.yaml") < paths.index("templates/x.json") < paths.index("crds/a.yaml")


def test_a_bad_document_stops_template_linting(tmp_path: Path) -> None:
    root = _write(tmp_path / "c", {
        "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\nicon: https://x.io/i.png\n",
        "values.yaml": "",
        "templates/a.yaml": "a: [\n",
        "templates/b.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: UPPER\n",
    })
    messages = _lint(root).messages
    assert [(m.severity, m.path) for m in messages] == [(ERROR, "templates/a.yaml")]


def test_schema_is_checked_against_overrides(tmp_path: Path) -> None:
    root = _write(tmp_path / "c", {
        "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\nicon: https://x.io/i.png\n",
        "values.yaml": "r: 1\n",
        "values.schema.json": '{"properties": {"r": {"type": "integer"}}}',
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
    })
    assert not _lint(root).messages
    linter = run_all(str(root), TemplateOptions(values={"r": "x"}), Warnings())
    assert {m.path for m in linter.messages} == {"values.yaml", "templates/"}
    skipped = run_all(str(root), TemplateOptions(values={"r": "x"}, skip_schema=True), Warnings())
    assert not skipped.messages


def test_lint_mode_required_and_fail_only_log(tmp_path: Path) -> None:
    root = _write(tmp_path / "c", {
        "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\nicon: https://x.io/i.png\n",
        "values.yaml": "",
        "templates/cm.yaml": 'a: {{ required "need" .Values.x | quote }}\nb: {{ fail "no" | quote }}\n',
    })
    warnings = Warnings()
    linter = run_all(str(root), TemplateOptions(values={}), warnings)
    assert all(m.severity < ERROR for m in linter.messages)
    assert [w.level for w in warnings.items] == ["WARN", "INFO"]
