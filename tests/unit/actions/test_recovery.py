"""Which pending records count as stranded (recover_stranded), with the memory store."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from runner.actions.release_config import ActionConfig, PendingError, recover_stranded
from runner.kube.lease import PreviousHolder
from runner.release.record import DEPLOYED, PENDING_UPGRADE, Info, Release
from runner.release.storage import MemoryDriver, Storage


def _setup(age: timedelta, status: str = PENDING_UPGRADE) -> tuple[ActionConfig, Release]:
    cfg = ActionConfig(None, "ns", Storage(MemoryDriver()))
    started = (datetime.now(UTC) - age).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    record = Release(name="app", namespace="ns", version=2,
                     info=Info(status=status, description="Preparing upgrade", last_deployed=started))
    cfg.storage.create(record, 0)
    return cfg, record


class _Lock:
    def __init__(self, previous: PreviousHolder | None) -> None:
        self.taken_over = previous


def test_a_young_pending_record_without_a_lock_is_in_progress():
    cfg, record = _setup(timedelta(seconds=10))
    with pytest.raises(PendingError, match="another operation .install/upgrade/rollback. is in progress"):
        recover_stranded(cfg, record, _Lock(None), timeout=300)


def test_a_pending_record_older_than_the_timeout_is_marked_failed():
    cfg, record = _setup(timedelta(minutes=10))
    assert recover_stranded(cfg, record, _Lock(None), timeout=300) is True
    stored = cfg.storage.get("app", 2)
    assert stored.info.status == "failed" and "no lock and no progress" in stored.info.description


def test_an_expired_lock_marks_even_a_young_record_failed_with_the_holder():
    cfg, record = _setup(timedelta(seconds=5))
    lock = _Lock(PreviousHolder("runner@host/1", "2026-01-01T00:00:00.000000Z"))
    assert recover_stranded(cfg, record, lock, timeout=300) is True
    assert "runner@host/1" in cfg.storage.get("app", 2).info.description


def test_records_that_are_not_pending_are_left_alone():
    cfg, record = _setup(timedelta(minutes=10), status=DEPLOYED)
    assert recover_stranded(cfg, record, _Lock(None), timeout=300) is False
    assert cfg.storage.get("app", 2).info.status == DEPLOYED


def test_a_lock_the_server_cannot_be_told_about_expires_on_its_own_and_the_outcome_stands(journal):
    """The API server gone when the lock is given back: the operation's result is kept (a
    warning says the lock expires on its own), not replaced by the Lease's DELETE error."""
    from runner.errors import RunnerError

    class Unreachable:
        taken_over = None

        def release_lock(self) -> None:
            raise RunnerError('Delete "https://k/apis/.../leases/x": EOF')

    class Cluster:
        def lock(self, namespace: str, release: str, wait_seconds: float,
                 on_wait: Callable[[str], None] | None = None) -> Unreachable:
            return Unreachable()

    cfg = ActionConfig(Cluster(), "ns", Storage(MemoryDriver()))  # type: ignore[arg-type]
    with cfg.locked("app", journal) as lock:
        assert lock is not None
        outcome = "deployed"
    assert outcome == "deployed"
    assert [m.text for m in journal.messages] == [
        'the release lock was not released (Delete "https://k/apis/.../leases/x": EOF); another '
        "operation can take it over once it expires"]
