"""The release lock against a small in-memory Lease endpoint (optimistic concurrency as the API server)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import pytest

from runner.kube.client import Response
from runner.kube.lease import LockHeldError, ReleaseLock, micro_time


class FakeLeases:
    def __init__(self) -> None:
        self.lease: dict | None = None
        self.version = 0

    def request(self, method, path, *, body=None, query=None, content_type="", accept=""):
        if method == "GET":
            return Response(200, copy.deepcopy(self.lease)) if self.lease else Response(404, {})
        if method == "POST":
            if self.lease:
                return Response(409, {"reason": "AlreadyExists"})
            return self._store(body)
        if method == "PUT":
            if body["metadata"].get("resourceVersion") != self.lease["metadata"]["resourceVersion"]:
                return Response(409, {"reason": "Conflict"})
            return self._store(body)
        if method == "DELETE":
            self.lease = None
            return Response(200, {})
        raise AssertionError(method)

    def _store(self, body):
        self.version += 1
        self.lease = copy.deepcopy(body)
        self.lease["metadata"]["resourceVersion"] = str(self.version)
        return Response(201, copy.deepcopy(self.lease))

    def hold(self, holder: str, renewed: datetime, duration: int = 60) -> None:
        self._store({"metadata": {"name": "x"}, "spec": {
            "holderIdentity": holder, "leaseDurationSeconds": duration,
            "acquireTime": micro_time(renewed), "renewTime": micro_time(renewed)}})


def test_a_free_release_is_locked_and_released():
    leases = FakeLeases()
    with ReleaseLock(leases, "ns", "app", identity="me").acquire() as lock:
        assert leases.lease["spec"]["holderIdentity"] == "me"
        assert lock.taken_over is None
    assert leases.lease is None


def test_a_live_holder_blocks_with_helms_message():
    leases = FakeLeases()
    leases.hold("other", datetime.now(UTC))
    with pytest.raises(LockHeldError, match="another operation .* is in progress .held by other"):
        ReleaseLock(leases, "ns", "app", identity="me").acquire()


def test_an_expired_holder_is_taken_over_and_remembered():
    leases = FakeLeases()
    stale = datetime.now(UTC) - timedelta(minutes=5)
    leases.hold("dead", stale)
    lock = ReleaseLock(leases, "ns", "app", identity="me").acquire()
    try:
        assert lock.taken_over is not None and lock.taken_over.identity == "dead"
        assert leases.lease["spec"]["holderIdentity"] == "me"
    finally:
        lock.release_lock()


def test_renewal_moves_the_deadline_and_only_for_the_holder():
    leases = FakeLeases()
    lock = ReleaseLock(leases, "ns", "app", identity="me", duration=600).acquire()
    try:
        before = leases.lease["spec"]["renewTime"]
        leases.lease["spec"]["renewTime"] = micro_time(datetime.now(UTC) - timedelta(seconds=30))
        lock.renew()
        assert leases.lease["spec"]["renewTime"] >= before
        leases.lease["spec"]["holderIdentity"] = "thief"
        stolen = leases.lease["spec"]["renewTime"]
        lock.renew()  # lost: nothing renewed
        assert leases.lease["spec"]["renewTime"] == stolen
    finally:
        lock._stop.set()
