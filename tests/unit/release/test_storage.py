"""History and pruning follow Helm's pkg/storage rules."""

from __future__ import annotations

import pytest

from runner.release.record import DEPLOYED, FAILED, SUPERSEDED, Info, Release
from runner.release.storage import MemoryDriver, ReleaseExistsError, ReleaseNotFoundError, Storage


def _release(version: int, status: str, name: str = "web") -> Release:
    return Release(name=name, namespace="ns", version=version, info=Info(status=status))


def _store(statuses: list[str]) -> Storage:
    storage = Storage(MemoryDriver())
    for version, status in enumerate(statuses, start=1):
        storage.create(_release(version, status), history_max=0)
    return storage


def test_history_is_newest_first_and_depth_limited() -> None:
    storage = _store([SUPERSEDED, SUPERSEDED, DEPLOYED])
    assert [r.version for r in storage.history("web")] == [3, 2, 1]
    assert [r.version for r in storage.history("web", depth=2)] == [3, 2]


def test_last_and_deployed() -> None:
    storage = _store([SUPERSEDED, DEPLOYED, FAILED])
    assert storage.last("web").version == 3
    assert storage.deployed("web").version == 2
    with pytest.raises(ReleaseNotFoundError):
        storage.last("other")


def test_create_prunes_to_history_max_minus_one_before_writing() -> None:
    storage = _store([SUPERSEDED, SUPERSEDED, SUPERSEDED, DEPLOYED])
    storage.create(_release(5, "pending-upgrade"), history_max=3)
    assert [head.version for head in storage.heads("web")] == [5, 4, 3]


def test_pruning_never_removes_the_last_deployed_record() -> None:
    storage = _store([DEPLOYED, FAILED, FAILED, FAILED])
    storage.create(_release(5, FAILED), history_max=2)
    assert [head.version for head in storage.heads("web")] == [5, 1]


def test_history_max_zero_keeps_everything() -> None:
    storage = _store([SUPERSEDED] * 12)
    storage.create(_release(13, DEPLOYED), history_max=0)
    assert len(storage.heads("web")) == 13


def test_create_refuses_an_existing_revision() -> None:
    storage = _store([DEPLOYED])
    with pytest.raises(ReleaseExistsError, match="sh.helm.release.v1.web.v1"):
        storage.create(_release(1, DEPLOYED), history_max=0)


def test_releases_are_kept_apart_by_name() -> None:
    storage = _store([DEPLOYED])
    storage.create(_release(1, DEPLOYED, name="api"), history_max=0)
    assert [head.name for head in storage.heads("api")] == ["api"]
