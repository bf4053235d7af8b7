"""Readiness, two ways as Helm 4 has them.

- `watch_ready` (--wait / --wait=watcher): every object must reach kstatus's
  Current (runner.kube.kstatus), a Failed one ends the wait at once; the error
  is Helm's statusWaiter text, one line per object that is not Current, then
  "context deadline exceeded" when the timeout ran out.
- `wait_ready` (--wait=legacy): Helm 3's polling: Deployments, StatefulSets and
  DaemonSets rolled out, PVCs bound, Jobs complete, Pods ready or succeeded;
  other kinds are ready once they exist.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from runner.errors import RunnerError
from runner.kube.client import KubeClient
from runner.kube.resources import Resource

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

POLL_SECONDS = 0.5


class WaitError(RunnerError):
    """A resource did not become ready in time, or failed (a Job's Failed condition)."""


def ready_state(kind: str, obj: dict[str, Any]) -> tuple[bool, str]:
    """(ready, why-not) for one live object."""
    check = _CHECKS.get(kind)
    return check(obj) if check else (True, "")


def _deployment(obj: dict[str, Any]) -> tuple[bool, str]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    want = int(spec.get("replicas", 1))
    if int(status.get("observedGeneration", 0)) < int(obj["metadata"].get("generation", 0)):
        return False, "rollout not observed yet"
    if int(status.get("updatedReplicas", 0)) < want or int(status.get("availableReplicas", 0)) < want:
        return False, f"{status.get('availableReplicas', 0)}/{want} replicas available"
    return True, ""


def _statefulset(obj: dict[str, Any]) -> tuple[bool, str]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    want = int(spec.get("replicas", 1))
    if int(status.get("observedGeneration", 0)) < int(obj["metadata"].get("generation", 0)):
        return False, "rollout not observed yet"
    if int(status.get("readyReplicas", 0)) < want or int(status.get("updatedReplicas", 0)) < want:
        return False, f"{status.get('readyReplicas', 0)}/{want} replicas ready"
    return True, ""


def _daemonset(obj: dict[str, Any]) -> tuple[bool, str]:
    status = obj.get("status") or {}
    if int(status.get("observedGeneration", 0)) < int(obj["metadata"].get("generation", 0)):
        return False, "rollout not observed yet"
    want = int(status.get("desiredNumberScheduled", 0))
    if int(status.get("numberReady", 0)) < want or int(status.get("updatedNumberScheduled", 0)) < want:
        return False, f"{status.get('numberReady', 0)}/{want} pods ready"
    return True, ""


def _pvc(obj: dict[str, Any]) -> tuple[bool, str]:
    phase = (obj.get("status") or {}).get("phase", "")
    return phase == "Bound", f"phase {phase or 'Pending'}"


def _job(obj: dict[str, Any]) -> tuple[bool, str]:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("status") != "True":
            continue
        if condition.get("type") == "Complete":
            return True, ""
        if condition.get("type") == "Failed":
            raise WaitError(f"job {obj['metadata']['name']} failed: {condition.get('reason', 'BackoffLimitExceeded')}")
    return False, "not complete"


def _pod(obj: dict[str, Any]) -> tuple[bool, str]:
    status = obj.get("status") or {}
    phase = status.get("phase", "")
    if phase == "Succeeded":
        return True, ""
    if phase == "Failed":
        raise WaitError(f"pod {obj['metadata']['name']} failed")
    ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                for c in status.get("conditions") or [])
    return ready, f"phase {phase or 'Pending'}"


def _pod_done(obj: dict[str, Any]) -> tuple[bool, str]:
    """A hook Pod must run to completion, not just be ready."""
    phase = (obj.get("status") or {}).get("phase", "")
    if phase == "Failed":
        raise WaitError(f"pod {obj['metadata']['name']} failed")
    return phase == "Succeeded", f"phase {phase or 'Pending'}"


def _service(obj: dict[str, Any]) -> tuple[bool, str]:
    """Helm 3's serviceReady: a LoadBalancer needs external IPs or an ingress."""
    spec = obj.get("spec") or {}
    if spec.get("type") != "LoadBalancer" or spec.get("externalIPs"):
        return True, ""
    ingress = ((obj.get("status") or {}).get("loadBalancer") or {}).get("ingress")
    return bool(ingress), "no load balancer ingress yet"


_CHECKS: dict[str, Callable[[dict[str, Any]], tuple[bool, str]]] = {
    "Deployment": _deployment, "StatefulSet": _statefulset, "DaemonSet": _daemonset,
    "PersistentVolumeClaim": _pvc, "Job": _job, "Pod": _pod, "Service": _service,
}


def wait_ready(client: KubeClient, resources: Sequence[Resource], timeout: float,
               *, completion: bool = False) -> None:
    """Poll until all are ready; raise WaitError naming what is not at the deadline.
    `completion`: Pods must succeed (hooks), not only be ready."""
    deadline = time.monotonic() + timeout
    client.debug("beginning wait for resources", count=len(resources), timeout=go_duration(timeout))
    pending = [r for r in resources if r.kind in _CHECKS]
    reasons: dict[str, str] = {}
    while pending:
        still = []
        for resource in pending:
            live = client.checked("GET", resource.path, f"get {resource.describe()}")
            check = _pod_done if completion and resource.kind == "Pod" else _CHECKS[resource.kind]
            ready, why = check(live)
            if not ready:
                still.append(resource)
                reasons[resource.ref()] = why
        pending = still
        if pending and time.monotonic() >= deadline:
            detail = ", ".join(f"{r.ref()} ({reasons[r.ref()]})" for r in pending)
            raise WaitError(f"context deadline exceeded: resources not ready: {detail}")
        if pending:
            time.sleep(POLL_SECONDS)


def watch_ready(client: KubeClient, resources: Sequence[Resource], timeout: float,
                *, jobs: bool = False, hooks: bool = False) -> None:
    """Helm's statusWaiter.Wait (WaitWithJobs with `jobs`, WatchUntilReady for hook
    resources with `hooks`), by polling; bounded by `timeout`."""
    from runner.kube import kstatus

    deadline = time.monotonic() + (timeout or DEFAULT_WATCHER_TIMEOUT)
    client.debug("waiting for resources", count=len(resources), timeout=go_duration(timeout))
    pending = [r for r in resources if not _paused(r)]
    states: dict[str, tuple[str, str]] = {}
    told = ""
    while True:
        for resource in pending:
            reply = client.request("GET", resource.path)
            live = reply.body if reply.ok else None
            if not reply.ok and reply.status != 404:
                raise WaitError(f"get {resource.describe()}: {reply.message}")
            states[resource.key] = kstatus.compute(resource.kind, live, jobs=jobs, hooks=hooks)
        pending = [r for r in pending if states[r.key][0] not in (kstatus.CURRENT, kstatus.FAILED)]
        expired = time.monotonic() >= deadline
        if not pending or expired:
            break
        told = _debug_waiting(client, pending, states, kstatus.CURRENT, told)
        time.sleep(POLL_SECONDS)
    _raise_not_current(resources, states, expired and bool(pending))
    counted = [r for r in resources if states.get(r.key, ("",))[0] != kstatus.FAILED]
    client.debug("all resources achieved desired status", desiredStatus=kstatus.CURRENT,
                 resourceCount=len(counted))


def _debug_waiting(client: KubeClient, pending: Sequence[Resource], states: dict[str, tuple[str, str]],
                   desired: str, told: str) -> str:
    """Helm's statusObserver line: the first (by name) of those not there yet, and its
    status; said again only when that changes. Returns what was said."""
    first = min(pending, key=lambda r: r.name)
    line = f"{first.key}={states[first.key][0]}"
    if line != told:
        client.debug("waiting for resource", namespace=first.namespace, name=first.name, kind=first.kind,
                     expectedStatus=desired, actualStatus=states[first.key][0])
    return line


def go_duration(seconds: float) -> str:
    """A timeout as Go prints a time.Duration (5m0s), as Helm's log shows it."""
    from runner.golang.time import duration_string

    return duration_string(round(seconds * 1e9))


DEFAULT_WATCHER_TIMEOUT = 30.0


def watch_deleted(client: KubeClient, resources: Sequence[Resource], timeout: float) -> None:
    """Helm's statusWaiter.WaitForDelete: every object gone, or one line per object
    still there ("... still exists. status: ..., message: ...") and the deadline."""
    from runner.kube import kstatus

    deadline = time.monotonic() + (timeout or DEFAULT_WATCHER_TIMEOUT)
    client.debug("waiting for resources to be deleted", count=len(resources), timeout=go_duration(timeout))
    left = list(resources)
    states: dict[str, tuple[str, str]] = {}
    told = ""
    while left:
        for resource in left:
            reply = client.request("GET", resource.path)
            live = reply.body if reply.ok else None
            states[resource.key] = kstatus.compute(resource.kind, live)
        left = [r for r in left if states[r.key][0] != kstatus.NOT_FOUND]
        if not left or time.monotonic() >= deadline:
            break
        told = _debug_waiting(client, left, states, kstatus.NOT_FOUND, told)
        time.sleep(POLL_SECONDS)
    if not left:  # Helm counts none: the deleted objects' statuses are dropped
        client.debug("all resources achieved desired status", desiredStatus=kstatus.NOT_FOUND, resourceCount=0)
    if left:
        lines = [f"resource {r.kind}/{r.namespace}/{r.name} still exists. status: {states[r.key][0]}, "
                 f"message: {states[r.key][1]}" for r in left]
        raise WaitError("\n".join([*lines, "context deadline exceeded"]))


def _paused(resource: Resource) -> bool:
    return resource.kind == "Deployment" and bool((resource.obj.get("spec") or {}).get("paused"))


def _raise_not_current(resources: Sequence[Resource], states: dict[str, tuple[str, str]],
                       expired: bool) -> None:
    lines = [f"resource {r.kind}/{r.namespace}/{r.name} not ready. status: {states[r.key][0]}, "
             f"message: {states[r.key][1]}"
             for r in resources if r.key in states and states[r.key][0] != "Current"]
    if expired:
        lines.append("context deadline exceeded")
    if lines:
        raise WaitError("\n".join(lines))


def wait_for(strategy: str, client: KubeClient, resources: Sequence[Resource], timeout: float,
             *, jobs: bool = False) -> None:
    """Wait as --wait=<strategy> says: watcher (kstatus), legacy (polling), hookOnly (not at all)."""
    if strategy == "legacy":
        wait_ready(client, resources, timeout)
    elif strategy != "hookOnly":
        watch_ready(client, resources, timeout, jobs=jobs)
