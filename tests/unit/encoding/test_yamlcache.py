"""The parsed-YAML cache returns what the YAML reader returns, and survives bad entries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from runner.encoding import goyaml, yamlcache

DOC = b"a: 1\nb: [x, y]\nc: {on: yes}\nd: 2024-01-01\ne: 0x1F\nf: 18446744073709551615\n"


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("DEPLOY_RUNNER_NO_CACHE", raising=False)
    return tmp_path


def _entries(cache_home: Path) -> list[Path]:
    return list((cache_home / "deploy-runner" / "yaml").glob("*"))


def _refuse_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("parsed although cached")

    monkeypatch.setattr(goyaml, "decode", refuse)


@pytest.mark.parametrize("ints", [False, True])
def test_a_cached_tree_is_the_parsed_tree_exactly(cache_home: Path, ints: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = goyaml.decode(DOC, ints)
    assert yamlcache.load(DOC, ints) == parsed
    assert len(_entries(cache_home)) == 1
    _refuse_parsing(monkeypatch)
    cached = yamlcache.load(DOC, ints)
    assert cached == parsed
    assert [type(v) for v in cached.values()] == [type(v) for v in parsed.values()]


def test_bytes_and_text_of_one_document_share_an_entry(cache_home: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    yamlcache.load(DOC, ints=False)
    _refuse_parsing(monkeypatch)
    assert yamlcache.load(DOC.decode(), ints=False) == goyaml.load(DOC)
    assert len(_entries(cache_home)) == 1


def test_goyaml_load_writes_nothing_to_disk(cache_home: Path) -> None:
    # fromYaml's text, -f values and lint's documents may hold secrets.
    assert goyaml.load("password: hunter2\n") == {"password": "hunter2"}
    assert not list(cache_home.rglob("*"))


@pytest.mark.parametrize("damage", [lambda b: b"not a tree", lambda b: b[:-3], lambda b: b + b"x"])
def test_damaged_entries_are_parsed_again(cache_home: Path, damage: object) -> None:
    yamlcache.load(DOC, ints=False)
    (entry,) = _entries(cache_home)
    entry.write_bytes(damage(entry.read_bytes()))  # type: ignore[operator]
    assert yamlcache.load(DOC, ints=False) == goyaml.decode(DOC)


def test_parse_errors_are_raised_as_the_parser_raises_them_and_not_cached(cache_home: Path) -> None:
    with pytest.raises(goyaml.GoYAMLError) as uncached:
        goyaml.decode(b"a: [")
    for _ in range(2):
        with pytest.raises(goyaml.GoYAMLError) as cached:
            yamlcache.load(b"a: [", ints=False)
        assert cached.value.unmarshal_message == uncached.value.unmarshal_message
    assert not _entries(cache_home)


def test_cache_can_be_turned_off(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_RUNNER_NO_CACHE", "1")
    assert yamlcache.load(DOC, ints=False) == goyaml.decode(DOC)
    assert not (cache_home / "deploy-runner").exists()


def test_a_changed_pyyaml_changes_the_fingerprint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "yaml"
    package.mkdir()
    (package / "__init__.py").write_text("__version__ = '6.0.1'\n")
    monkeypatch.setattr(yamlcache, "_pyyaml_directory", lambda: str(package))
    yamlcache.reader_fingerprint.cache_clear()
    before = yamlcache.reader_fingerprint()
    (package / "__init__.py").write_text("__version__ = '6.0.20'\n")
    yamlcache.reader_fingerprint.cache_clear()
    try:
        assert yamlcache.reader_fingerprint() != before
    finally:
        yamlcache.reader_fingerprint.cache_clear()


def test_pyyaml_is_located_as_import_would_find_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    monkeypatch.delitem(sys.modules, "yaml")  # found on sys.path, not from the module
    assert yamlcache._pyyaml_directory() == str(Path(yaml.__file__).parent)
