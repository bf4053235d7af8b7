"""A per-release lock: a coordination.k8s.io/v1 Lease held while an operation runs.

The Lease names its holder and how long the hold lasts from the last
renewal; a renewer thread keeps it fresh. Another run may take it over only
once it has expired (its holder stopped renewing: killed, lost network).
Optimistic concurrency (resourceVersion) makes take-over races safe: of two
writers, one gets a 409 and backs off.

A run that waits for the lock (`--wait-for-lock`) reads the Lease, then
watches it from that resourceVersion (runner.kube.watch): it tries again as
soon as the Lease is deleted or written, or at its expiry (a holder that
stopped renewing sends no event), whichever comes first, within the wait.
Without `watch` permission on leases it looks again every second.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from runner.errors import RunnerError
from runner.kube.client import KubeClient, KubeError, Response

LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
DEFAULT_DURATION_SECONDS = 60
POLL_SECONDS = 1.0  # a waiter that cannot watch the Lease looks again this often
RACE_PAUSE_SECONDS = 0.05
EXPIRY_MARGIN_SECONDS = 0.05  # wake just past a silent holder's expiry, to take it over


class LockHeldError(RunnerError):
    """Another live operation holds the release's lock (`resource_version`: of the Lease
    read, to watch it from; empty after a lost write race)."""

    def __init__(self, holder: str, expires: str, resource_version: str = "",
                 expiry: datetime | None = None) -> None:
        super().__init__("another operation (install/upgrade/rollback) is in progress"
                         f" (held by {holder} until {expires})")
        self.holder = holder
        self.expires = expires
        self.resource_version = resource_version
        self.expiry = expiry


class LeaseForbiddenError(KubeError):
    """RBAC does not let this user use Leases, which Helm does not need and deploy-runner does."""

    def __init__(self, subject: str, verb: str, namespace: str) -> None:
        super().__init__(f'{subject} cannot {verb} leases.coordination.k8s.io in namespace "{namespace}": '
                         "grant get/create/update/delete on leases (see docs/releases.md)", 403, "Forbidden")


def _subject(message: str) -> str:
    """`User "x"` from the API server's Forbidden message, for the one-line explanation."""
    found = re.search(r'User "[^"]*"', message)
    return found.group(0) if found else "the current user"


def _namespace_missing(reply: Response) -> bool:
    details = reply.body.get("details") or {}
    return reply.status == 404 and details.get("kind") == "namespaces"


def lease_name(release: str) -> str:
    return f"sh.helm.release.v1.{release}.lock"


def new_identity() -> str:
    return f"deploy-runner@{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:8]}"


def micro_time(moment: datetime) -> str:
    """metav1.MicroTime's text."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass
class PreviousHolder:
    identity: str
    renewed: str


@dataclass
class ReleaseLock:
    client: KubeClient
    namespace: str
    release: str
    identity: str = field(default_factory=new_identity)
    duration: int = DEFAULT_DURATION_SECONDS
    taken_over: PreviousHolder | None = None
    namespace_missing: bool = False  # the release namespace does not exist: no Lease, nothing to guard
    _resource_version: str = ""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @property
    def _collection(self) -> str:
        return LEASE_PATH.format(ns=self.namespace)

    @property
    def _path(self) -> str:
        return f"{self._collection}/{lease_name(self.release)}"

    def acquire(self, wait_seconds: float = 0.0,
                on_wait: Callable[[str], None] | None = None) -> ReleaseLock:
        """Take the lock (waiting up to `wait_seconds` for a live holder), start renewing.
        `on_wait` is told whom it waits for: once, and again when the holder changes."""
        deadline = time.monotonic() + wait_seconds
        told = ""
        while True:
            try:
                self._try_acquire()
                break
            except LockHeldError as held:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise
                if on_wait is not None and held.resource_version and held.holder != told:
                    on_wait(f'waiting for the lock on release "{self.release}": held by {held.holder} '
                            f"until {held.expires}")
                    told = held.holder
                self._await_change(held, left)
        if self.namespace_missing:
            return self
        self._thread = threading.Thread(target=self._renew_loop, daemon=True,
                                        name=f"lease-{self.release}")
        self._thread.start()
        return self

    def _try_acquire(self) -> None:
        now = datetime.now(UTC)
        reply = self.client.request("GET", self._path)
        if reply.status == 404:
            self._create(now)
            return
        if not reply.ok:
            raise self._refused(reply, "get")
        spec = reply.body.get("spec") or {}
        renewed = spec.get("renewTime") or spec.get("acquireTime")
        expiry = _parse(renewed) + timedelta(seconds=int(spec.get("leaseDurationSeconds", 0))) if renewed else now
        holder = spec.get("holderIdentity") or ""
        if holder and holder != self.identity and expiry > now:
            raise LockHeldError(holder, micro_time(expiry), reply.body["metadata"]["resourceVersion"], expiry)
        if holder and holder != self.identity:
            self.taken_over = PreviousHolder(holder, renewed or "")
        self._write(reply.body, now)

    def _await_change(self, held: LockHeldError, left: float) -> None:
        """Until the Lease changes (deleted, renewed, taken), it expires, or `left` seconds pass."""
        from runner.kube import watch

        if not held.resource_version:  # lost a write race just now: look again at once
            time.sleep(min(left, RACE_PAUSE_SECONDS))
            return
        expires_in = (held.expiry - datetime.now(UTC)).total_seconds() if held.expiry else 0.0
        timeout = min(left, max(expires_in, 0.0) + EXPIRY_MARGIN_SECONDS)
        begun = time.monotonic()
        try:
            for _ in watch.events(self.client, self._collection, resource_version=held.resource_version,
                                  timeout=timeout, field_selector=f"metadata.name={lease_name(self.release)}"):
                return  # any change: look again
        except KubeError:  # no `watch` permission (or none served): look again in a while
            pass
        if time.monotonic() - begun < min(timeout, POLL_SECONDS):  # ended at once: do not spin
            time.sleep(min(left, POLL_SECONDS))

    def _create(self, now: datetime) -> None:
        body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": lease_name(self.release), "namespace": self.namespace,
                             "labels": {"owner": "helm", "name": self.release}},
                "spec": self._spec(now, now)}
        reply = self.client.request("POST", self._collection, body=body)
        if reply.status == 409:
            raise LockHeldError("a concurrent run", "now")
        if _namespace_missing(reply):
            # Nothing can be stored in a namespace that does not exist, so there is nothing
            # to guard: the operation goes on and fails where Helm's does, in Helm's words
            # (`create: failed to create: namespaces "x" not found`, `"x" has no deployed releases`).
            self.namespace_missing = True
            return
        if not reply.ok:
            raise self._refused(reply, "create")
        self._resource_version = reply.body["metadata"]["resourceVersion"]

    def _refused(self, reply: Response, verb: str) -> KubeError:
        """A lease request the server refused; a 403 says which permission to grant."""
        if reply.status == 403:
            return LeaseForbiddenError(_subject(reply.message), verb, self.namespace)
        return KubeError(f"release lock: {reply.message}", reply.status)

    def _spec(self, acquired: datetime, renewed: datetime) -> dict[str, Any]:
        return {"holderIdentity": self.identity, "leaseDurationSeconds": self.duration,
                "acquireTime": micro_time(acquired), "renewTime": micro_time(renewed)}

    def _write(self, current: dict[str, Any], now: datetime) -> None:
        current["spec"] = self._spec(now, now)
        reply = self.client.request("PUT", self._path, body=current)
        if reply.status == 409:  # someone else wrote it first
            raise LockHeldError("a concurrent run", "now")
        if not reply.ok:
            raise self._refused(reply, "update")
        self._resource_version = reply.body["metadata"]["resourceVersion"]

    def renew(self) -> None:
        reply = self.client.request("GET", self._path)
        if not reply.ok or (reply.body.get("spec") or {}).get("holderIdentity") != self.identity:
            return  # lost (deleted or taken over): nothing to renew
        reply.body["spec"]["renewTime"] = micro_time(datetime.now(UTC))
        put = self.client.request("PUT", self._path, body=reply.body)
        if put.ok:
            self._resource_version = put.body["metadata"]["resourceVersion"]

    def _renew_loop(self) -> None:
        while not self._stop.wait(max(1.0, self.duration / 3)):
            try:
                self.renew()
            except KubeError:
                continue  # transient; the next tick tries again before expiry

    def release_lock(self) -> None:
        if self.namespace_missing:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        body = {"kind": "DeleteOptions", "apiVersion": "v1",
                "preconditions": {"resourceVersion": self._resource_version}}
        self.client.request("DELETE", self._path, body=body)

    def __enter__(self) -> ReleaseLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release_lock()


def lock_state(client: KubeClient, namespace: str, release: str) -> dict[str, Any] | None:
    """The Lease's spec if one exists (for status reports and recovery decisions)."""
    reply = client.request("GET", f"{LEASE_PATH.format(ns=namespace)}/{lease_name(release)}")
    return (reply.body.get("spec") or {}) if reply.ok else None
