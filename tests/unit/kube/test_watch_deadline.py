"""A watch never outlives its caller's deadline, however the API server misbehaves:
a server (here a local one) that answers lists but never sends a watch's headers, or
answers 429 with a Retry-After longer than the time left, ends a 2 s wait in about
2 s, not at the 10 s header timeout plus retries."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from runner.kube import wait, watch
from runner.kube.client import KubeClient
from runner.kube.kubeconfig import ConnectionConfig
from runner.kube.lease import LockHeldError, ReleaseLock, micro_time
from runner.kube.transport import Transport
from tests.unit.fakes.watchapi import resource

GENEROUS = 6.0  # the deadline is 2 s: before the fix these took 7 s to over a minute
LEASE = "/apis/coordination.k8s.io/v1/namespaces/ns/leases"


class _Misbehaving(BaseHTTPRequestHandler):
    """GET /version and lists are answered; a watch (`watch=1`) is answered by
    `self.server.watch_reply`: "stall" (headers never come) or "429" (Retry-After: 20)."""

    server: _Server

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if "watch=1" in self.path:
            self.server.watches += 1
            if self.server.watch_reply == "429":
                self._reply(429, {"kind": "Status", "message": "too many requests"}, {"Retry-After": "20"})
                return
            self.server.stop.wait(60)  # never answers: the client must give up on its own
            return
        if self.path.startswith("/version"):
            self._reply(200, {"major": "1", "minor": "35", "gitVersion": "v1.35.0"})
        elif self.path.startswith(LEASE + "/"):
            self._reply(200, _held_lease())
        else:
            self._reply(200, {"kind": "List", "metadata": {"resourceVersion": "5"}, "items": []})

    def _reply(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, watch_reply: str) -> None:
        super().__init__(("127.0.0.1", 0), _Misbehaving)
        self.watch_reply = watch_reply
        self.watches = 0
        self.stop = threading.Event()


def _held_lease() -> dict:
    now = datetime.now(UTC)
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "helm-release-r", "namespace": "ns", "resourceVersion": "7"},
            "spec": {"holderIdentity": "another-run", "leaseDurationSeconds": 600,
                     "acquireTime": micro_time(now), "renewTime": micro_time(now)}}


@pytest.fixture(params=["stall", "429"])
def client(request) -> Iterator[KubeClient]:
    server = _Server(request.param)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    client = KubeClient(Transport(ConnectionConfig(server=f"http://{host}:{port}", qps=-1)), "ns")
    yield client
    server.stop.set()
    server.shutdown()
    server.server_close()
    client.transport.close()


def _timed(work: Callable[[], object]) -> float:
    """How long `work` took; it is abandoned (the test fails) past GENEROUS + 2 s."""
    begun, ended = time.monotonic(), []

    def run() -> None:
        with contextlib.suppress(Exception):  # each test's own assertion is on the time
            work()
        ended.append(time.monotonic())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GENEROUS + 2)
    return ended[0] - begun if ended else float("inf")


def test_a_watch_ends_at_its_timeout_when_the_server_misbehaves(client: KubeClient) -> None:
    took = _timed(lambda: list(watch.events(client, "/api/v1/namespaces/ns/pods", resource_version="5",
                                            timeout=2)))
    assert took < GENEROUS


def test_a_wait_on_several_kinds_ends_at_its_timeout_when_no_watch_opens(client: KubeClient) -> None:
    """One watch per kind: none may keep the wait past its deadline (each used to hold
    it up to a second more as it was joined, and its own 10 s header wait)."""
    awaited = [resource(kind, f"x-{kind.lower()}") for kind in
               ("Deployment", "Job", "Pod", "ConfigMap", "PersistentVolumeClaim")]

    took = _timed(lambda: wait.watch_ready(client, awaited, 2))

    assert took < GENEROUS


def test_wait_for_lock_ends_at_its_timeout_when_the_leases_watch_does_not_open(client: KubeClient) -> None:
    lock = ReleaseLock(client, "ns", "r")
    failed: list[BaseException] = []

    def acquire() -> None:
        try:
            lock.acquire(wait_seconds=2)
        except LockHeldError as err:
            failed.append(err)

    took = _timed(acquire)

    assert took < GENEROUS and failed

