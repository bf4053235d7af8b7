"""The release lock against a small in-memory Lease endpoint (optimistic concurrency as the API server)."""

from __future__ import annotations

import copy
import json
import queue
import threading
import time
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


# -- waiting for the lock: woken by a watch of the Lease ------------------------------------


class _WatchResponse:
    """A watch response that hands out the events pushed to `events` until None or the
    watch's timeoutSeconds."""

    def __init__(self, events: queue.Queue, timeout: float, status: int = 200) -> None:
        self.status, self.events, self.timeout = status, events, timeout
        self.data = b'{"message": "forbidden"}'
        self.shut = False

    def shutdown(self) -> None:
        self.shut = True  # as a shut-down socket: the read ends

    def stream(self, decode_content: bool = True):
        end = time.monotonic() + self.timeout
        while (left := end - time.monotonic()) > 0 and not self.shut:
            try:
                event = self.events.get(timeout=min(left, 0.05))
            except queue.Empty:
                continue
            if event is None:
                return
            yield (json.dumps(event) + "\n").encode()

    def settimeout(self, seconds: float | None) -> None:
        pass

    def close(self) -> None:
        pass


class WatchedLeases(FakeLeases):
    """FakeLeases that also serves watches: what the test pushes to `events` is sent."""

    def __init__(self, watch_status: int = 200) -> None:
        super().__init__()
        self.events: queue.Queue = queue.Queue()
        self.watch_status = watch_status
        self.watches: list[dict[str, str]] = []
        self.gets = 0

    def request(self, method, path, **kw):
        self.gets += method == "GET"
        return super().request(method, path, **kw)

    def stream(self, path, query, read_timeout, deadline=float("inf")):
        self.watches.append(dict(query))
        return _WatchResponse(self.events, float(dict(query)["timeoutSeconds"]), self.watch_status)

    def change(self, event_type: str, holder: str | None = None) -> None:
        """Delete the Lease or give it to `holder`, and send the event a watch would."""
        if holder is None:
            gone, self.lease = self.lease, None
            self.events.put({"type": event_type, "object": gone})
        else:
            self.hold(holder, datetime.now(UTC), duration=600)
            self.events.put({"type": event_type, "object": self.lease})


def _acquire_in_background(leases, wait_seconds: float):
    told: list[str] = []
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["lock"] = ReleaseLock(leases, "ns", "app", identity="me").acquire(wait_seconds, told.append)
        except Exception as err:  # noqa: BLE001 - reported by the test
            outcome["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    return thread, told, outcome


def _until(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_waiter_watches_the_lease_and_starts_when_it_is_deleted():
    leases = WatchedLeases()
    leases.hold("other", datetime.now(UTC), duration=600)
    held_version = leases.lease["metadata"]["resourceVersion"]
    thread, told, outcome = _acquire_in_background(leases, 60)
    _until(lambda: leases.watches)

    leases.change("DELETED")
    thread.join(10)

    assert outcome["lock"].taken_over is None
    outcome["lock"]._stop.set()
    watch = leases.watches[0]
    assert (watch["resourceVersion"], watch["fieldSelector"]) == (held_version, "metadata.name=sh.helm.release.v1.app.lock")
    assert leases.gets == 2  # read, watched, read again on the event: no polling
    [line] = told
    assert line.startswith('waiting for the lock on release "app": held by other until ')


def test_a_waiter_says_again_whom_it_waits_for_when_the_holder_changes():
    leases = WatchedLeases()
    leases.hold("other", datetime.now(UTC), duration=600)
    thread, told, outcome = _acquire_in_background(leases, 60)
    _until(lambda: leases.watches)

    leases.change("MODIFIED", holder="third")
    _until(lambda: len(leases.watches) == 2)
    leases.change("MODIFIED", holder="third")  # renewed: same holder, nothing more to say
    _until(lambda: len(leases.watches) == 3)
    leases.change("DELETED")
    thread.join(10)

    assert "lock" in outcome, outcome
    outcome["lock"]._stop.set()
    assert [line.split(": held by ")[1].split(" until ")[0] for line in told] == ["other", "third"]


def test_a_holder_that_stopped_renewing_is_taken_over_at_its_expiry_without_an_event():
    leases = WatchedLeases()
    leases.hold("silent", datetime.now(UTC) - timedelta(seconds=59.5), duration=60)
    lock = ReleaseLock(leases, "ns", "app", identity="me").acquire(30)
    try:
        assert lock.taken_over is not None and lock.taken_over.identity == "silent"
        assert int(leases.watches[0]["timeoutSeconds"]) <= 1  # bounded by the expiry, not the wait
    finally:
        lock._stop.set()


def test_the_wait_is_bounded_and_ends_with_the_holders_name():
    leases = WatchedLeases()
    leases.hold("other", datetime.now(UTC), duration=600)
    with pytest.raises(LockHeldError, match="held by other"):
        ReleaseLock(leases, "ns", "app", identity="me").acquire(0.2)
    assert leases.watches and int(leases.watches[0]["timeoutSeconds"]) == 1


def test_without_watch_permission_a_waiter_looks_again_every_second():
    leases = WatchedLeases(watch_status=403)
    leases.hold("other", datetime.now(UTC), duration=600)
    thread, told, outcome = _acquire_in_background(leases, 30)
    _until(lambda: leases.watches)
    leases.lease = None  # released; no event reaches a waiter that cannot watch
    thread.join(10)

    assert "lock" in outcome, outcome
    outcome["lock"]._stop.set()
    assert len(told) == 1
