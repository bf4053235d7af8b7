"""The parsed-YAML cache returns what the YAML reader returns, and survives bad entries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from runner.chart import yamlcache
from runner.encoding import goyaml

DOC = b"a: 1\nb: [x, y]\nc: {on: yes}\nd: 2024-01-01\n"


def test_cached_tree_equals_a_fresh_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("DEPLOY_RUNNER_NO_CACHE", raising=False)
    first = yamlcache.load(DOC, ints=False)
    entries = list((tmp_path / "deploy-runner" / "chart-yaml").glob("*/*"))
    assert len(entries) == 1
    second = yamlcache.load(DOC, ints=False)
    assert first == second == goyaml.load(DOC)
    assert type(second["d"]) is type(goyaml.load(DOC)["d"])
    assert yamlcache.load(DOC, ints=True) == goyaml.load(DOC, ints=True)


def test_corrupt_entries_are_reparsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("DEPLOY_RUNNER_NO_CACHE", raising=False)
    yamlcache.load(DOC, ints=False)
    for entry in (tmp_path / "deploy-runner" / "chart-yaml").glob("*/*"):
        entry.write_bytes(b"not a tree")
    assert yamlcache.load(DOC, ints=False) == goyaml.load(DOC)


def test_truncated_entries_are_reparsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("DEPLOY_RUNNER_NO_CACHE", raising=False)
    yamlcache.load(DOC, ints=False)
    (entry,) = (tmp_path / "deploy-runner" / "chart-yaml").glob("*/*")
    entry.write_bytes(entry.read_bytes()[:-3])
    assert yamlcache.load(DOC, ints=False) == goyaml.load(DOC)


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


def test_parse_errors_are_raised_and_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for _ in range(2):
        with pytest.raises(goyaml.GoYAMLError):
            yamlcache.load(b"a: [", ints=False)
    assert not list(tmp_path.glob("deploy-runner/chart-yaml/*/*"))


def test_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("DEPLOY_RUNNER_NO_CACHE", "1")
    assert yamlcache.load(DOC, ints=False) == goyaml.load(DOC)
    assert not (tmp_path / "deploy-runner").exists()
