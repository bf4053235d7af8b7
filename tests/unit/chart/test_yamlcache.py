"""The parsed-YAML cache returns what the YAML reader returns, and survives bad entries."""

from __future__ import annotations

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
        entry.write_bytes(b"not a pickle")
    assert yamlcache.load(DOC, ints=False) == goyaml.load(DOC)


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
