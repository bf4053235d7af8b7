"""Watching the API server: one watch request (`Stream`, `events`), and `Observer`,
which lists then watches several collections at once as client-go's informers do.

A watch opens `?watch=1` from a resourceVersion (the one a list or get
returned, so nothing between the two is missed) and yields each event until
the server ends the watch at `timeout` seconds, the connection drops, or an
ERROR event comes (410 Gone: the resourceVersion is too old). Each of those
just ends the iteration: the caller lists again and watches from there, as
client-go's reflector does.

Nothing here outlives the caller's deadline (the `timeout` a watch is opened with,
the Observer's `deadline`), however the server misbehaves: opening a watch (its
retries included) gives up there, and so does a read of its events. A watch without
a deadline is asked to end after MAX_WATCH_SECONDS, then opened again.

A read blocked on the socket is out of reach of the KeyboardInterrupt that
cancels the work (runner.deepstack passes it on between Python steps only), so
while a watch is open an interrupt also shuts its socket down; so does
`Stream.shut_down()`, from any thread.

`Observer` runs one thread per collection (a kind in a namespace), each
listing then watching, and hands their news to the caller through one queue,
so a wait reacts to the event that makes the last object ready at once and
sends two requests per kind and namespace instead of a GET per object per poll.
"""

from __future__ import annotations

import contextlib
import json
import math
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from runner.kube.client import KubeClient, KubeError

READ_GRACE_SECONDS = 5.0  # past the server's own end of the watch, a silent socket is dead
# An API server answers a watch's headers at once: a watch unanswered this long is lost
# (a proxy that took the request and stalls), and waiting on it would cost its whole timeout.
HEADERS_SECONDS = 10.0
# client-go's reflector asks for 5 to 10 minutes: a longer watch is ended and opened again.
MAX_WATCH_SECONDS = 300.0
JOIN_SECONDS = 1.0  # Observer.close(): how long its threads, all woken, have to end together
FIRST_RETRY_SECONDS, LAST_RETRY_SECONDS = 0.8, 30.0  # the kstatus watcher's backoff


class Stream:
    """One watch request, read as it comes. `shut_down()`, from any thread, ends it; the
    reading thread then closes it (closed under a read, the response fails with
    errors of its own)."""

    def __init__(self, client: KubeClient, collection: str, *, resource_version: str, timeout: float,
                 field_selector: str = "", label_selector: str = "") -> None:
        self.deadline = time.monotonic() + timeout
        timeout = min(timeout, MAX_WATCH_SECONDS)
        query = [("watch", "1"), ("resourceVersion", resource_version),
                 ("timeoutSeconds", str(max(1, math.ceil(timeout)))), ("allowWatchBookmarks", "false")]
        if field_selector:
            query.append(("fieldSelector", field_selector))
        if label_selector:
            query.append(("labelSelector", label_selector))
        self.response = client.stream(collection, query, read_timeout=HEADERS_SECONDS, deadline=self.deadline)
        if self.response.status >= 400:
            body = _decode(self.response.data) or {}
            self.close()
            raise KubeError(f"watch {collection}: {body.get('message') or f'HTTP {self.response.status}'}",
                            self.response.status, str(body.get("reason", "")), body)
        # The events may be minutes apart: from here a read waits until the watch's own end
        # (a server that never ends it: the caller's deadline).
        self.response.settimeout(max(min(timeout + READ_GRACE_SECONDS, self.deadline - time.monotonic()), 0.01))

    def __iter__(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(type, object) for each ADDED / MODIFIED / DELETED, until the watch ends."""
        try:
            yield from _read_events(self.response, self.deadline)
        except (OSError, ValueError):
            return  # dropped, timed out or shut down: the caller lists again
        finally:
            self.close()

    def shut_down(self) -> None:
        """Wake a read blocked on the watch's socket (safe from another thread)."""
        # No socket any more (closed, or its connection handed back): nothing to wake.
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            self.response.shutdown()

    def close(self) -> None:
        """Shut the socket down and hand the connection back: a watch left mid-stream
        is never reused."""
        self.shut_down()
        self.response.close()


def events(client: KubeClient, collection: str, *, resource_version: str, timeout: float,
           field_selector: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(type, object) for each ADDED / MODIFIED / DELETED in `collection` after
    `resource_version`, for at most `timeout` seconds. A refusal (403: no `watch`
    permission; or no answer before the timeout) raises KubeError; the caller may poll instead."""
    from runner.deepstack import WakeOnInterrupt

    stream = Stream(client, collection, resource_version=resource_version, timeout=timeout,
                    field_selector=field_selector)
    with WakeOnInterrupt(stream.shut_down):
        yield from stream


def _read_events(response: Any, deadline: float) -> Iterator[tuple[str, dict[str, Any]]]:
    pending = b""
    for chunk in response.stream(decode_content=True):
        if time.monotonic() >= deadline:
            return  # a server trickling bytes past the watch's end keeps no one waiting
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            event = _decode(line)
            if not event:
                continue
            kind, obj = str(event.get("type", "")), event.get("object") or {}
            if kind == "ERROR":
                return  # 410 Gone and the like: list again
            if kind != "BOOKMARK":
                yield kind, obj


def _decode(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# -- several collections at once --------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A collection to observe: a kind in a namespace, narrowed to one name when only one
    is wanted (or to the objects a label selector matches)."""

    collection: str  # e.g. /apis/apps/v1/namespaces/ns/deployments
    field_selector: str = ""
    label_selector: str = ""

    @property
    def query(self) -> list[tuple[str, str]]:
        return [(name, value) for name, value in (("fieldSelector", self.field_selector),
                                                  ("labelSelector", self.label_selector)) if value]


@dataclass(frozen=True)
class News:
    """What a target's thread saw: `listed` (every object, after a list), an event
    (ADDED / MODIFIED / DELETED with its object), or `failed` (the error ends the wait)."""

    target: Target
    kind: str  # "listed", "ADDED", "MODIFIED", "DELETED", "failed"
    objects: list[dict[str, Any]] = field(default_factory=list)
    error: KubeError | None = None


class Observer:
    """List then watch each target on its own thread until `close()` or `deadline`
    (time.monotonic()). After each list the caller `decide`s whether the target needs
    watching (objects all there need no watch). A dropped or expired watch lists again;
    a server error or a lost connection is retried with the kstatus watcher's backoff;
    403 (no list or watch permission) is `failed`; 404 (the kind is no longer served)
    stops that target."""

    def __init__(self, client: KubeClient, targets: list[Target], deadline: float) -> None:
        from runner.deepstack import WakeOnInterrupt

        self.client = client
        self.targets = targets
        self.deadline = deadline
        self._news: queue.Queue[News | None] = queue.Queue()  # None: woken by an interrupt
        self._stopped = threading.Event()
        self._streams: dict[Target, Stream] = {}
        self._decisions: dict[Target, queue.Queue[bool]] = {t: queue.Queue() for t in targets}
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._observe, args=(t,), daemon=True,
                                          name=f"watch {t.collection}") for t in targets]
        # The caller blocks in next(): an interrupt wakes it at once, not at its next tick.
        self._waker = WakeOnInterrupt(lambda: self._news.put(None))

    def __enter__(self) -> Observer:
        self._waker.__enter__()
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._waker.__exit__()
        self.close()

    def next(self, wait: float) -> News | None:
        """The next news, or None when there is none within `wait` seconds (or an
        interrupt came: it is raised in the caller as this returns)."""
        try:
            return self._news.get(timeout=max(wait, 0.0))
        except queue.Empty:
            return None

    def decide(self, target: Target, *, watch: bool) -> None:
        """After a `listed` news: watch the target from there on, or leave it."""
        self._decisions[target].put(watch)

    def close(self) -> None:
        """Stop every thread (a caller blocked in next() is woken: None)."""
        self._stopped.set()
        self._news.put(None)
        for decision in self._decisions.values():
            decision.put(False)
        with self._lock:
            streams = list(self._streams.values())
        for stream in streams:  # each reading thread, woken, closes its own
            stream.shut_down()
        # One budget for all: a thread still opening its watch ends by the deadline
        # anyway, and joining each for a second would put the caller that much past it.
        end = time.monotonic() + JOIN_SECONDS
        for thread in self._threads:
            thread.join(timeout=max(end - time.monotonic(), 0.0))

    def _observe(self, target: Target) -> None:
        pause = FIRST_RETRY_SECONDS
        while not self._stopped.is_set() and time.monotonic() < self.deadline:
            try:
                version = self._list(target)
                if version is None:
                    return
                self._watch(target, version)
                pause = FIRST_RETRY_SECONDS
            except KubeError as err:
                if err.status == 403:
                    self._news.put(News(target, "failed", error=err))
                    return
                if err.status == 404:
                    return
                self._stopped.wait(min(pause, max(self.deadline - time.monotonic(), 0.0)))
                pause = min(pause * 2, LAST_RETRY_SECONDS)

    def _list(self, target: Target) -> str | None:
        """List the target; tell what it holds; its resourceVersion (None: stop)."""
        reply = self.client.request("GET", target.collection, query=target.query)
        if not reply.ok:
            raise KubeError(f"failed to list {target.collection}: {reply.message}", reply.status,
                            str(reply.body.get("reason", "")), reply.body)
        if self._stopped.is_set():
            return None
        self._news.put(News(target, "listed", list(reply.body.get("items") or [])))
        if not self._decisions[target].get():
            return None
        return str((reply.body.get("metadata") or {}).get("resourceVersion", ""))

    def _watch(self, target: Target, version: str) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            return
        stream = Stream(self.client, target.collection, resource_version=version, timeout=left,
                        field_selector=target.field_selector, label_selector=target.label_selector)
        with self._lock:
            self._streams[target] = stream
        if self._stopped.is_set():  # closed while the request was on its way
            stream.close()
            return
        for kind, obj in stream:
            self._news.put(News(target, kind, [obj]))
