"""kstatus (sigs.k8s.io/cli-utils, as Helm 4's statusWaiter uses it): the status
of one live object, Current / InProgress / Failed / Terminating / NotFound,
with kstatus's messages, and Helm's own readers for hook Jobs and Pods."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CURRENT = "Current"
IN_PROGRESS = "InProgress"
FAILED = "Failed"
TERMINATING = "Terminating"
NOT_FOUND = "NotFound"

Result = tuple[str, str]
Reader = Callable[[dict[str, Any]], Result]


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = (obj.get("status") or {}).get("conditions") or []
    return {str(c.get("type", "")): c for c in found if isinstance(c, dict)}


def _generic(obj: dict[str, Any]) -> Result | None:
    """checkGenericProperties: deletion, observedGeneration, Reconciling/Stalled."""
    meta = obj.get("metadata") or {}
    if meta.get("deletionTimestamp"):
        return TERMINATING, "Resource scheduled for deletion"
    status = obj.get("status") or {}
    if "observedGeneration" in status and "generation" in meta:
        seen, gen = _int(status["observedGeneration"]), _int(meta["generation"])
        if seen != gen:
            return IN_PROGRESS, f"{obj.get('kind', '')} generation is {gen}, but latest observed generation is {seen}"
    conditions = _conditions(obj)
    reconciling = conditions.get("Reconciling")
    if reconciling and reconciling.get("status") == "True":
        return IN_PROGRESS, str(reconciling.get("message", ""))
    stalled = conditions.get("Stalled")
    if stalled and stalled.get("status") == "True":
        return FAILED, str(stalled.get("message", ""))
    return None


def _deployment(obj: dict[str, Any]) -> Result:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    progressing = available = False
    for kind, cond in _conditions(obj).items():
        if kind == "Progressing" and cond.get("reason") == "ProgressDeadlineExceeded":
            return FAILED, "Progress deadline exceeded"
        if kind == "Progressing" and cond.get("status") == "True" and cond.get("reason") == "NewReplicaSetAvailable":
            progressing = True
        if kind == "Available" and cond.get("status") == "True":
            available = True
    want, have = _int(spec.get("replicas", 1), 1), _int(status.get("replicas"))
    updated, ready = _int(status.get("updatedReplicas")), _int(status.get("readyReplicas"))
    avail = _int(status.get("availableReplicas"))
    checks = [(want > have, f"Replicas: {have}/{want}"), (want > updated, f"Updated: {updated}/{want}"),
              (have > want, f"Pending termination: {have - want}"),
              (updated > avail, f"Available: {avail}/{updated}"), (want > ready, f"Ready: {ready}/{want}"),
              (not progressing, "ReplicaSet not Available"), (not available, "Deployment not Available")]
    for failing, message in checks:
        if failing:
            return IN_PROGRESS, message
    return CURRENT, f"Deployment is available. Replicas: {have}"


def _statefulset(obj: dict[str, Any]) -> Result:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return CURRENT, "StatefulSet is using the ondelete update strategy"
    want, have = _int(spec.get("replicas", 1), 1), _int(status.get("replicas"))
    ready, current = _int(status.get("readyReplicas")), _int(status.get("currentReplicas"))
    updated = _int(status.get("updatedReplicas"))
    partition = _int((strategy.get("rollingUpdate") or {}).get("partition"))
    if partition:
        if updated < want - partition:
            return IN_PROGRESS, f"updated: {updated}/{want - partition}"
        return CURRENT, f"Partition rollout complete. updated: {updated}"
    checks = [(want > have, f"Replicas: {have}/{want}"), (want > ready, f"Ready: {ready}/{want}"),
              (have > want, f"Pending termination: {have - want}"),
              (want > current, f"current: {current}/{want}")]
    for failing, message in checks:
        if failing:
            return IN_PROGRESS, message
    if status.get("currentRevision") != status.get("updateRevision"):
        return IN_PROGRESS, (f"Waiting for updated revision {status.get('updateRevision', '')} "
                             f"to match current {status.get('currentRevision', '')}")
    return CURRENT, f"All replicas scheduled as expected. Replicas: {have}"


def _daemonset(obj: dict[str, Any]) -> Result:
    status = obj.get("status") or {}
    if "desiredNumberScheduled" not in status:
        return IN_PROGRESS, "Missing .status.desiredNumberScheduled"
    want = _int(status.get("desiredNumberScheduled"))
    checks = [("Current", _int(status.get("currentNumberScheduled"))),
              ("Updated", _int(status.get("updatedNumberScheduled"))),
              ("Available", _int(status.get("numberAvailable"))),
              ("Ready", _int(status.get("numberReady")))]
    for label, have in checks:
        if want > have:
            return IN_PROGRESS, f"{label}: {have}/{want}"
    return CURRENT, f"All replicas scheduled as expected. Replicas: {want}"


def _pvc(obj: dict[str, Any]) -> Result:
    phase = str((obj.get("status") or {}).get("phase", ""))
    if phase != "Bound":
        return IN_PROGRESS, f"PVC is not Bound. phase: {phase}"
    return CURRENT, "PVC is Bound"


def _pod(obj: dict[str, Any]) -> Result:
    status = obj.get("status") or {}
    phase = str(status.get("phase", ""))
    if phase == "Succeeded":
        return CURRENT, "Pod has completed successfully"
    if phase == "Failed":
        return FAILED, "Pod has completed, but not successfully"
    ready = _conditions(obj).get("Ready") or {}
    if phase == "Running" and ready.get("status") == "True":
        return CURRENT, "Pod is Ready"
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") == "CrashLoopBackOff":
            return FAILED, "Pod is in CrashLoopBackOff"
    if phase == "Running":
        return IN_PROGRESS, "Pod is running but is not Ready"
    return IN_PROGRESS, f"Pod phase is {phase or 'Pending'}"


def _job(obj: dict[str, Any]) -> Result:
    """kstatus's Job: Current once started (Helm's plain --wait does not wait for Jobs)."""
    status = obj.get("status") or {}
    succeeded, failed = _int(status.get("succeeded")), _int(status.get("failed"))
    finished = _finished_job(obj)
    if finished is not None:
        return finished
    if not status.get("startTime"):
        return IN_PROGRESS, "Job not started"
    return CURRENT, f"Job in progress. success:{succeeded}, active: {_int(status.get('active'))}, failed: {failed}"


def _finished_job(obj: dict[str, Any]) -> Result | None:
    """A Job's first True Complete or Failed condition, as kstatus and Helm word it; None if neither."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    parallelism = _int(spec.get("parallelism", 1), 1)
    completions = _int(spec.get("completions", parallelism), parallelism)
    for kind, cond in _conditions(obj).items():
        if cond.get("status") != "True":
            continue
        if kind == "Complete":
            return CURRENT, f"Job Completed. succeeded: {_int(status.get('succeeded'))}/{completions}"
        if kind == "Failed":
            return FAILED, f"Job Failed. failed: {_int(status.get('failed'))}/{completions}"
    return None


def helm_job(obj: dict[str, Any]) -> Result:
    """Helm's customJobStatusReader: Current only when Complete."""
    return _finished_job(obj) or (IN_PROGRESS, "Job in progress")


def helm_pod(obj: dict[str, Any]) -> Result:
    """Helm's customPodStatusReader: a hook Pod must run to completion."""
    phase = str((obj.get("status") or {}).get("phase", ""))
    name = (obj.get("metadata") or {}).get("name", "")
    if phase == "Succeeded":
        return CURRENT, f"pod {name} succeeded"
    if phase == "Failed":
        return FAILED, f"pod {name} failed"
    return IN_PROGRESS, "Pod in progress"


def _service(obj: dict[str, Any]) -> Result:
    """kstatus asks a LoadBalancer only for its cluster IP (the legacy waiter wants an ingress)."""
    spec = obj.get("spec") or {}
    if spec.get("type") == "LoadBalancer" and not spec.get("clusterIP"):
        return IN_PROGRESS, "ClusterIP not set. Service type: LoadBalancer"
    return CURRENT, "Service is ready"


def _crd(obj: dict[str, Any]) -> Result:
    conditions = _conditions(obj)
    names = conditions.get("NamesAccepted")
    if names and names.get("status") == "False":
        return FAILED, str(names.get("message", "names not accepted"))
    established = conditions.get("Established")
    if established and established.get("status") == "True":
        return CURRENT, "CRD is established"
    return IN_PROGRESS, "Install in progress"


def _other(obj: dict[str, Any]) -> Result:
    """Any other kind: a Ready condition, if the object has one, must be True."""
    ready = _conditions(obj).get("Ready")
    if ready and ready.get("status") != "True":
        return IN_PROGRESS, str(ready.get("message") or "Ready condition is not True")
    return CURRENT, "Resource is current"


_READERS: dict[str, Reader] = {
    "Deployment": _deployment, "StatefulSet": _statefulset, "DaemonSet": _daemonset,
    "PersistentVolumeClaim": _pvc, "Pod": _pod, "Job": _job, "Service": _service,
    "CustomResourceDefinition": _crd,
}


def compute(kind: str, obj: dict[str, Any] | None, *, jobs: bool = False,
            hooks: bool = False) -> Result:
    """The object's status. `jobs`: Jobs must complete (--wait-for-jobs);
    `hooks`: Helm's WatchUntilReady (Jobs complete, Pods succeed, the rest ready)."""
    if obj is None:
        return NOT_FOUND, "Resource not found"
    if hooks:
        reader = {"Job": helm_job, "Pod": helm_pod}.get(kind)
        return reader(obj) if reader else (CURRENT, "Resource is current")
    generic = _generic(obj)
    if generic is not None:
        return generic
    if jobs and kind == "Job":
        return helm_job(obj)
    return _READERS.get(kind, _other)(obj)
