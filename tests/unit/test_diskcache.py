"""runner.diskcache: the store both cross-run caches use."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from runner import diskcache


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("DEPLOY_RUNNER_NO_CACHE", raising=False)
    return tmp_path


def test_digest_is_blake2b_256_of_the_parts_in_order() -> None:
    assert diskcache.digest(b"ab", b"c") == hashlib.blake2b(b"abc", digest_size=32).hexdigest()


def test_the_cache_directory_follows_the_environment(cache_home: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert diskcache.kind_dir("k") == str(cache_home / "deploy-runner" / "k")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(cache_home / "home"))
    assert diskcache.kind_dir("k") == str(cache_home / "home" / ".cache" / "deploy-runner" / "k")


def test_an_entry_reads_back_and_leaves_no_temporary_file(cache_home: Path) -> None:
    key = diskcache.digest(b"x")
    assert diskcache.read("k", key) is None
    diskcache.write("k", key, b"payload")
    assert diskcache.read("k", key) == b"payload"
    assert [p.name for p in (cache_home / "deploy-runner" / "k").iterdir()] == [key]


def test_an_unwritable_cache_is_ignored(cache_home: Path) -> None:
    (cache_home / "deploy-runner").write_text("not a directory")
    diskcache.write("k", "abcd", b"payload")
    assert diskcache.read("k", "abcd") is None


def test_prune_deletes_the_least_recently_read_down_to_the_budget(cache_home: Path) -> None:
    keys = [diskcache.digest(bytes([i])) for i in range(10)]
    for age, key in enumerate(keys):
        diskcache.write("k", key, b"x" * 100)
        path = cache_home / "deploy-runner" / "k" / key
        os.utime(path, (1_000_000 + age, 1_000_000 + age))  # keys[0] read longest ago
    assert diskcache.prune("k", max_bytes=2000) == 0
    deleted = diskcache.prune("k", max_bytes=800)
    assert deleted == 4  # 1000 bytes down to at most 600
    assert [diskcache.read("k", k) is not None for k in keys] == [False] * 4 + [True] * 6


def test_prune_deletes_the_shard_directories_of_the_former_layout(cache_home: Path) -> None:
    key = diskcache.digest(b"x")
    diskcache.write("k", key, b"payload")
    shard = cache_home / "deploy-runner" / "k" / "ab"
    shard.mkdir()
    (shard / ("ab" + key[2:])).write_bytes(b"old entry")
    diskcache.prune("k")
    assert not shard.exists()
    assert diskcache.read("k", key) == b"payload"


def test_disabled_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_RUNNER_NO_CACHE", "1")
    assert not diskcache.enabled()
