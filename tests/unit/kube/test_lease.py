"""The release lock against a small in-memory Lease endpoint (optimistic concurrency as the API server)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import pytest

from runner.kube.client import KubeError, Response
from runner.kube.lease import LeaseForbiddenError, LockHeldError, ReleaseLock, micro_time


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


class Refusing(FakeLeases):
    """An API server that answers `method` with a fixed error Status."""

    def __init__(self, method: str, status: int, body: dict) -> None:
        super().__init__()
        self.refused, self.status, self.body = method, status, body
        self.calls: list[str] = []

    def request(self, method, path, **kw):
        self.calls.append(method)
        if method == self.refused:
            return Response(self.status, self.body)
        return super().request(method, path, **kw)


FORBIDDEN = ('leases.coordination.k8s.io "sh.helm.release.v1.app.lock" is forbidden: User "ci" cannot {verb} '
             'resource "leases" in API group "coordination.k8s.io" in the namespace "ns"')


@pytest.mark.parametrize(("method", "verb"), [("GET", "get"), ("POST", "create")])
def test_forbidden_leases_say_in_one_line_what_to_grant(method, verb):
    server = Refusing(method, 403, {"reason": "Forbidden", "message": FORBIDDEN.format(verb=verb)})
    with pytest.raises(LeaseForbiddenError) as raised:
        ReleaseLock(server, "ns", "app", identity="me").acquire()
    assert str(raised.value) == (
        f'User "ci" cannot {verb} leases.coordination.k8s.io in namespace "ns": '
        "grant get/create/update/delete on leases (see docs/releases.md)")


def test_a_missing_namespace_needs_no_lock_and_leaves_the_error_to_the_operation():
    server = Refusing("POST", 404, {"reason": "NotFound", "message": 'namespaces "ns" not found',
                                    "details": {"name": "ns", "kind": "namespaces"}})
    with ReleaseLock(server, "ns", "app", identity="me").acquire() as lock:
        assert lock.namespace_missing
    assert server.calls == ["GET", "POST"]  # nothing renewed, nothing deleted


def test_other_lease_failures_keep_the_servers_message():
    server = Refusing("POST", 500, {"message": "etcdserver: request timed out"})
    with pytest.raises(KubeError, match="^release lock: etcdserver: request timed out$"):
        ReleaseLock(server, "ns", "app", identity="me").acquire()
