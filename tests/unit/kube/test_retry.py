"""The retry policy of runner.kube.transport (rules in runner.kube.retry), on a scripted
transport: what is sent again, after how long, how often, and what is looked up first."""

from __future__ import annotations

import json
import signal
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from runner.kube import retry
from runner.kube.kubeconfig import ConnectionConfig
from runner.kube.transport import ConnectionFailed, Reply, Transport
from tests.unit.test_deepstack import signalled_once_started

SECRETS = "/api/v1/namespaces/ns/secrets"
SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "labels": {"a": "b"}},
          "data": {"k": "dg=="}}
LIVE = {**SECRET, "metadata": {**SECRET["metadata"], "resourceVersion": "7", "uid": "u",
                               "creationTimestamp": "2026-01-01T00:00:00Z", "namespace": "ns"},
        "type": "Opaque"}


def dropped() -> ConnectionFailed:
    """The connection closed after the request was sent: its outcome is unknown."""
    return ConnectionFailed('Post "https://k:6443/x": EOF', sent=True, transient=True)


def refused() -> ConnectionFailed:
    return ConnectionFailed("dial tcp 127.0.0.1:6443: connect: connection refused", sent=False,
                            transient=True)


class Scripted(Transport):
    """Answers (or failures) from a script, one per request; records requests and waits."""

    def __init__(self, *script: Reply | ConnectionFailed | Callable[[str, str], Reply],
                 answered: bool = True) -> None:
        super().__init__(ConnectionConfig(server="https://k.example:6443", qps=-1))
        self.script = list(script)
        self.sent: list[tuple[str, str]] = []
        self.waits: list[float] = []
        self._sleep = self.waits.append
        self._answered = answered

    def _attempt(self, method: str, path: str, query: list[tuple[str, str]], headers: dict[str, str],
                 body: bytes | None, **options: Any) -> Reply:
        self.sent.append((method, path))
        step = self.script.pop(0) if self.script else Reply(500, b"script ran out")
        if isinstance(step, ConnectionFailed):
            raise step
        return step(method, path) if callable(step) else step


def ok(body: dict[str, Any] | None = None, status: int = 200) -> Reply:
    return Reply(status, json.dumps(body or {}).encode())


def send(transport: Transport, method: str, path: str, body: dict[str, Any] | list[Any] | None = None,
         content_type: str = "application/json", query: list[tuple[str, str]] | None = None) -> Reply:
    data = None if body is None else json.dumps(body).encode()
    return transport.request(method, path, query or [], {"Content-Type": content_type}, data)


def test_a_read_whose_connection_dropped_is_sent_again_with_growing_waits():
    transport = Scripted(dropped(), dropped(), ok({"kind": "SecretList"}))
    assert send(transport, "GET", SECRETS).status == 200
    assert transport.sent == [("GET", SECRETS)] * 3
    assert transport.waits == [0.2, 0.4]


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE", "PATCH"])
def test_too_many_requests_is_sent_again_after_retry_after_whatever_the_method(method):
    transport = Scripted(Reply(429, b"{}", "3"), ok(LIVE, 201))
    assert send(transport, method, f"{SECRETS}/s", SECRET).status == 201
    assert transport.waits == [3.0]
    assert [m for m, _ in transport.sent] == [method, method]


def test_a_retry_after_longer_than_the_limit_is_not_waited_for():
    transport = Scripted(Reply(429, b'{"message":"slow down"}', "3600"))
    assert send(transport, "GET", SECRETS).status == 429
    assert transport.waits == [] and len(transport.sent) == 1


def test_retries_are_bounded_in_number_and_in_time():
    transport = Scripted(*[Reply(503, b"{}")] * 50)
    assert send(transport, "GET", SECRETS).status == 503
    assert len(transport.sent) == 1 + retry.MAX_RETRIES
    assert sum(transport.waits) <= retry.MAX_WAIT_SECONDS
    long_waits = Scripted(*[Reply(503, b"{}", "25")] * 50)
    assert send(long_waits, "GET", SECRETS).status == 503
    assert long_waits.waits == [25.0, 25.0]  # a third would pass MAX_WAIT_SECONDS


def test_a_refused_connection_is_final_until_the_server_has_answered_once():
    never = Scripted(refused(), ok(), answered=False)
    with pytest.raises(ConnectionFailed, match="connection refused"):
        send(never, "GET", "/version")
    assert len(never.sent) == 1 and never.waits == []  # as Helm: unreachable at once

    restarting = Scripted(ok({"gitVersion": "v1.35.4"}), refused(), refused(), ok(LIVE, 201),
                          answered=False)
    send(restarting, "GET", "/version")
    assert send(restarting, "POST", SECRETS, SECRET).status == 201  # never sent: safe to resend
    assert [m for m, _ in restarting.sent] == ["GET", "POST", "POST", "POST"]


@pytest.mark.parametrize("failure", [
    ConnectionFailed("dial tcp: lookup k.invalid: no such host", sent=False, transient=False),
    ConnectionFailed("tls: failed to verify certificate", sent=True, transient=False),
])
def test_failures_a_retry_cannot_mend_are_final(failure):
    transport = Scripted(failure, ok())
    with pytest.raises(ConnectionFailed):
        send(transport, "GET", SECRETS)
    assert len(transport.sent) == 1


def test_a_create_that_took_effect_is_not_sent_twice():
    transport = Scripted(dropped(), ok(LIVE))
    reply = send(transport, "POST", SECRETS, SECRET)
    assert reply.status == 201 and json.loads(reply.data)["metadata"]["uid"] == "u"
    assert transport.sent == [("POST", SECRETS), ("GET", f"{SECRETS}/s")]


def test_a_create_that_did_not_take_effect_is_sent_again():
    transport = Scripted(Reply(504, b"{}"), ok({"kind": "Status"}, 404), ok(LIVE, 201))
    assert send(transport, "POST", SECRETS, SECRET).status == 201
    assert transport.sent == [("POST", SECRETS), ("GET", f"{SECRETS}/s"), ("POST", SECRETS)]


def test_a_create_whose_name_someone_else_took_gets_the_servers_own_conflict():
    theirs = {**LIVE, "data": {"k": "b3RoZXI="}}
    conflict = ok({"kind": "Status", "reason": "AlreadyExists"}, 409)
    transport = Scripted(dropped(), ok(theirs), conflict)
    assert send(transport, "POST", SECRETS, SECRET).status == 409
    assert [m for m, _ in transport.sent] == ["POST", "GET", "POST"]


def test_a_replace_that_took_effect_is_the_answer():
    sent = {**SECRET, "metadata": {**SECRET["metadata"], "resourceVersion": "6"}}
    transport = Scripted(Reply(502, b"bad gateway"), ok(LIVE))
    assert send(transport, "PUT", f"{SECRETS}/s", sent).status == 200
    assert [m for m, _ in transport.sent] == ["PUT", "GET"]


def test_a_delete_whose_object_is_gone_succeeded():
    transport = Scripted(dropped(), ok({"kind": "Status"}, 404))
    assert send(transport, "DELETE", f"{SECRETS}/s").status == 200
    assert [m for m, _ in transport.sent] == ["DELETE", "GET"]


@pytest.mark.parametrize(("content_type", "resent"), [
    ("application/apply-patch+yaml", True),
    ("application/strategic-merge-patch+json", True),
    ("application/merge-patch+json", True),
    ("application/json-patch+json", False),  # `add` to a list twice is two elements
])
def test_patches_are_sent_again_only_when_sending_twice_changes_nothing_more(content_type, resent):
    transport = Scripted(dropped(), ok(LIVE))
    if resent:
        assert send(transport, "PATCH", f"{SECRETS}/s", SECRET, content_type).status == 200
    else:
        with pytest.raises(ConnectionFailed):
            send(transport, "PATCH", f"{SECRETS}/s", [{"op": "add"}], content_type)
    assert len(transport.sent) == (2 if resent else 1)


def test_a_create_without_a_name_is_not_sent_again_when_it_may_have_worked():
    pod = {"kind": "Pod", "metadata": {"generateName": "hook-"}}
    transport = Scripted(dropped(), ok())
    with pytest.raises(ConnectionFailed):
        send(transport, "POST", "/api/v1/namespaces/ns/pods", pod)
    assert len(transport.sent) == 1


def test_a_dry_run_write_is_sent_again():
    transport = Scripted(dropped(), ok(LIVE, 201))
    assert send(transport, "POST", SECRETS, {"kind": "Pod"}, query=[("dryRun", "All")]).status == 201


@pytest.mark.parametrize(("status", "retry_after", "again"), [
    (500, "", False),  # an internal error the server reports as final (a failing webhook)
    (500, "1", True),
    (502, "", True), (503, "", True), (504, "", True),
    (400, "", False), (404, "", False), (409, "", False), (422, "", False),
])
def test_which_answers_are_tried_again(status, retry_after, again):
    transport = Scripted(Reply(status, b"{}", retry_after), ok())
    assert send(transport, "GET", SECRETS).status == (200 if again else status)


class Unread:
    """A stream's StreamedReply, as far as the retries touch it."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.released = False

    def close(self) -> None:
        self.released = True


def test_a_watch_is_opened_again_as_a_read_is_and_a_refused_answer_gives_its_connection_back():
    busy, dropped_once, open_ = Unread(429), dropped(), Unread(200)
    transport = Scripted(Reply(429, b"", "2", busy), dropped_once, Reply(200, b"", "", open_))
    assert transport.stream("/apis/coordination.k8s.io/v1/leases", [("watch", "1")], {}, 5.0) is open_
    assert transport.waits == [2.0, 0.4] and len(transport.sent) == 3
    assert busy.released and not open_.released  # the caller reads and closes the open one


def test_a_refused_watch_is_handed_back_as_the_server_answered():
    forbidden = Unread(403)
    transport = Scripted(Reply(403, b"", "", forbidden))
    assert transport.stream("/apis/coordination.k8s.io/v1/leases", [("watch", "1")], {}, 5.0) is forbidden
    assert transport.waits == [] and not forbidden.released


def test_a_wait_before_a_retry_ends_at_ctrl_c_on_the_deep_stack_thread() -> None:
    """Signals reach the main thread only; the work, waiting for its next attempt,
    is woken (else a Ctrl-C waits out a 30 s Retry-After)."""
    script = textwrap.dedent("""
        import time
        from runner.deepstack import run_deep
        from runner.kube.transport import Transport
        from runner.kube.kubeconfig import ConnectionConfig

        def work():
            begun = time.monotonic()
            try:
                print("started", flush=True)
                Transport(ConnectionConfig(server="https://k.example:6443"))._sleep(30)
                while True:
                    pass  # the pending exception arrives at the next step
            except KeyboardInterrupt:
                print(f"woken in {'under' if time.monotonic() - begun < 10 else 'over'} 10 s", flush=True)
                raise

        try:
            run_deep(work)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    assert signalled_once_started(script, signal.SIGINT) == (0, "woken in under 10 s\ninterrupted\n")


@pytest.mark.parametrize(("sent", "live", "same"), [
    (SECRET, LIVE, True),
    ({"spec": {"a": [1, 2]}}, {"spec": {"a": [1, 2], "b": 3}}, True),
    ({"spec": {"a": [1, 2]}}, {"spec": {"a": [1]}}, False),
    ({"spec": {"a": 1}}, {"spec": {"a": 1.5}}, False),
    ({"spec": {"a": "1"}}, {"spec": {"a": 1}}, False),
    ({"spec": {"holderIdentity": "me"}}, {"spec": {"holderIdentity": "you"}}, False),
    ({"metadata": {"name": "s", "resourceVersion": "1"}}, {"metadata": {"name": "s", "resourceVersion": "2"}},
     True),
])
def test_whether_a_live_object_shows_a_write(sent, live, same):
    assert retry.reflects(sent, live) is same


def test_a_watch_is_not_opened_again_past_its_callers_deadline():
    """A 429 asking for 5 s when 2 s are left: the answer stands (the wait ends at its
    timeout); a drop with time left is retried as any read is."""
    import time

    transport = Scripted(Reply(429, b"{}", "5"), ok())
    transport.stream("/api/v1/namespaces/ns/pods", [("watch", "1")], {}, 10, deadline=time.monotonic() + 2)
    assert transport.sent == [("GET", "/api/v1/namespaces/ns/pods")] and transport.waits == []

    transport = Scripted(dropped(), ok())
    transport.stream("/api/v1/namespaces/ns/pods", [("watch", "1")], {}, 10, deadline=time.monotonic() + 2)
    assert len(transport.sent) == 2 and transport.waits == [0.2]
