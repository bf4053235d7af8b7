"""runner.manifest: Helm's SplitManifests / SortManifests behaviour."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from runner.encoding import goyaml
from runner.manifest import (
    ManifestError,
    SortedManifests,
    hooks_for_event,
    sort_manifests,
    split_manifests,
    split_with_lines,
)


def test_split_drops_empty_documents_and_trims() -> None:
    text = "---\n\na: 1\n---   \n\nb: 2\n\n"
    assert split_manifests(text) == {"manifest-0": "a: 1", "manifest-1": "b: 2"}


def test_separator_swallows_following_blank_so_back_to_back_separators_stay() -> None:
    # Go's regexp: the first `\n---\s*` eats the newline the second one would need.
    assert split_manifests("a: 1\n---\n---\nb: 2") == {"manifest-0": "a: 1", "manifest-1": "---\nb: 2"}


def test_split_only_on_separator_at_line_start() -> None:
    assert list(split_manifests("a: x---y\nb: 2").values()) == ["a: x---y\nb: 2"]


def test_split_keeps_first_line_of_each_document() -> None:
    chunks = split_with_lines("\n# c\nkind: A\n---\n\nkind: B\n")
    assert [(c.content, c.line) for c in chunks] == [("# c\nkind: A", 2), ("kind: B", 6)]


# Helm's separator (pkg/release/v1/util/manifest.go), Go's ASCII `\s` spelled out.
_HELM_SEP = re.compile(r"(?:^|[\t\n\f\r ]*\n)---[\t\n\f\r ]*")
_GO_SPACE = "\t\n\v\f\r \x85\xa0"


def test_split_finds_the_documents_helms_regexp_finds() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(["-", "---", "\n", " ", "\t", "\r", "\f", "\v", "\x85", "a"])
                       for _ in range(rng.randint(0, 30)))
        helm = [d.strip(_GO_SPACE) for d in _HELM_SEP.split(text.strip(_GO_SPACE)) if d]
        chunks = split_with_lines(text)
        assert [c.content for c in chunks] == helm, repr(text)
        for chunk in chunks:
            assert text[chunk.offset:].startswith(chunk.content), repr(text)
            assert chunk.line == text.count("\n", 0, chunk.offset) + 1, repr(text)


def _doc(kind: str, name: str, annotations: str = "") -> str:
    meta = f"metadata:\n  name: {name}\n" + (f"  annotations:\n{annotations}" if annotations else "")
    return f"apiVersion: v1\nkind: {kind}\n{meta}"


def test_sort_by_install_order_then_file_order() -> None:
    files = {
        "c/templates/b.yaml": _doc("Deployment", "d") + "---\n" + _doc("Service", "s"),
        "c/templates/a.yaml": _doc("ConfigMap", "cm") + "---\n" + _doc("Zeta", "z") + "---\n" + _doc("Alpha", "a"),
        "c/templates/_helpers.tpl": _doc("Namespace", "hidden"),
        "c/templates/empty.yaml": "  \n",
    }
    result = sort_manifests(files)
    assert [(m.head.kind, m.name) for m in result.manifests] == [
        ("ConfigMap", "c/templates/a.yaml"),
        ("Service", "c/templates/b.yaml"),
        ("Deployment", "c/templates/b.yaml"),
        ("Alpha", "c/templates/a.yaml"),
        ("Zeta", "c/templates/a.yaml"),
    ]


def test_hooks_are_separated_and_unknown_hooks_skipped() -> None:
    files = {
        "c/templates/h.yaml": _doc("Job", "j2", '    helm.sh/hook: pre-install,post-install\n'
                                   '    helm.sh/hook-weight: "-5"\n')
        + "---\n" + _doc("Pod", "p", "    helm.sh/hook: test\n")
        + "---\n" + _doc("Job", "j1", "    helm.sh/hook: pre-install\n    helm.sh/hook-weight: x\n")
        + "---\n" + _doc("Job", "u", "    helm.sh/hook: nonsense\n")
        + "---\n" + _doc("ConfigMap", "plain", "    other: x\n"),
    }
    result = sort_manifests(files)
    assert [m.head.name for m in result.manifests] == ["plain"]
    assert [(h.kind, h.name) for h in result.hooks] == [("Pod", "p"), ("Job", "j2"), ("Job", "j1")]
    assert [(h.name, h.weight) for h in hooks_for_event(result.hooks, "pre-install")] == [("j2", -5), ("j1", 0)]
    assert result.hooks[1].events == ["pre-install", "post-install"]
    assert result.hooks[1].line == 1 and result.hooks[0].line > 1


def test_invalid_yaml_names_the_template() -> None:
    with pytest.raises(ManifestError, match=r"^YAML parse error on c/templates/bad.yaml: "):
        sort_manifests({"c/templates/bad.yaml": "a: [\n"})


@pytest.fixture()
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the cache's secret key
    monkeypatch.delenv("DEPLOY_RUNNER_NO_CACHE", raising=False)
    return tmp_path


def _heads(result: SortedManifests) -> list[tuple[str, str, str]]:
    return [(m.name, m.head.kind, m.head.name) for m in result.manifests]


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("parsed although remembered")

    monkeypatch.setattr(goyaml, "load_fields_and_node", refuse)


FILES = {
    "c/templates/a.yaml": _doc("ConfigMap", "cm") + "---\n" + _doc("Service", "s"),
    "c/templates/b.yaml": _doc("Job", "j", "    helm.sh/hook: pre-install\n"),
}


def test_heads_of_a_repeated_render_are_remembered(cache_home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    first = sort_manifests(FILES)
    _no_parsing(monkeypatch)
    again = sort_manifests(FILES)
    assert _heads(again) == _heads(first) == [("c/templates/a.yaml", "ConfigMap", "cm"),
                                              ("c/templates/a.yaml", "Service", "s")]
    assert [(h.kind, h.name, h.events) for h in again.hooks] == [("Job", "j", ["pre-install"])]


def test_only_new_and_changed_documents_are_parsed(cache_home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    sort_manifests(FILES)
    parsed: list[str] = []
    load_fields = goyaml.load_fields_and_node

    def counting(text: str, *args: object, **kwargs: object) -> object:
        parsed.append(text)
        return load_fields(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(goyaml, "load_fields_and_node", counting)
    changed = {"c/templates/a.yaml": _doc("ConfigMap", "cm") + "---\n" + _doc("Service", "t"),
               "c/templates/c.yaml": _doc("Secret", "x")}
    assert _heads(sort_manifests(changed)) == [("c/templates/c.yaml", "Secret", "x"),
                                               ("c/templates/a.yaml", "ConfigMap", "cm"),
                                               ("c/templates/a.yaml", "Service", "t")]
    assert parsed == [_doc("Service", "t").strip(), _doc("Secret", "x").strip()]


def test_a_yaml_error_reads_the_same_after_the_document_was_remembered(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = {**FILES, "c/templates/b.yaml": "kind: Job\nmetadata: [\n"}
    monkeypatch.setenv("DEPLOY_RUNNER_NO_CACHE", "1")
    with pytest.raises(ManifestError) as uncached:
        sort_manifests(broken)
    monkeypatch.delenv("DEPLOY_RUNNER_NO_CACHE")
    sort_manifests(FILES)
    for _ in range(2):  # a failed run stores nothing
        with pytest.raises(ManifestError) as cached:
            sort_manifests(broken)
        assert str(cached.value) == str(uncached.value)
        assert str(cached.value).startswith("YAML parse error on c/templates/b.yaml: error converting YAML")


def test_a_head_type_error_reads_the_same_from_remembered_fields(cache_home: Path) -> None:
    files = {"c/templates/a.yaml": "kind: A\nmetadata:\n  name: [x]\n"}
    message = "json: cannot unmarshal array into Go struct field .metadata.name of type string"
    for _ in range(2):
        with pytest.raises(ManifestError, match=re.escape(message)):
            sort_manifests(files)


def test_a_damaged_entry_is_ignored(cache_home: Path) -> None:
    expected = _heads(sort_manifests(FILES))
    entries = list((cache_home / "deploy-runner" / "manifest-spans").glob("*"))
    assert len(entries) == 1
    entries[0].write_bytes(entries[0].read_bytes()[:-5])
    assert _heads(sort_manifests(FILES)) == expected
    entries[0].write_bytes(b"garbage")
    assert _heads(sort_manifests(FILES)) == expected
