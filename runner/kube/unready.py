"""Why objects are not ready, in a line each: deploy-runner's account after Helm's
wait error, e.g. `deployment/web: 1 of 3 replicas available; pod web-6c9-x: ImagePullBackOff`.

A workload's line counts its replicas from its status and names the pods it
selects that are not ready, with the reason a user would otherwise dig out of
`kubectl describe`: the container's waiting reason (ImagePullBackOff,
CrashLoopBackOff, CreateContainerConfigError...), a terminated container's
reason and exit code, or why the pod is not scheduled. The pods come from one
list per namespace, asked only when a wait has failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from runner.kube.client import KubeClient
from runner.kube.resources import Resource

if TYPE_CHECKING:
    from runner.kube.wait import Awaited

MOST_PODS = 3  # pods named per reason; the rest are counted
_WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job")


def explain(client: KubeClient, resources: Sequence[Resource], objects: dict[str, dict[str, Any]],
            states: dict[str, Awaited], *, deletion: bool = False) -> list[str]:
    """One line per resource: `kind/name: what is wrong`, from the last copy the wait saw
    (`deletion`: the wait was for them to be gone)."""
    pods = _PodLists(client)
    lines = []
    for resource in resources:
        obj, state = objects.get(resource.key), states[resource.key]
        head = f"{resource.kind.lower()}/{resource.name}"
        if obj is None or state.status == "NotFound":
            lines.append(f"{head}: {'deleted' if state.status == 'NotFound' else 'not found'}")
        elif deletion:
            lines.append(f"{head}: {_deletion(obj)}")
        else:
            parts = [summary(resource.kind, obj, state)]
            if resource.kind in _WORKLOADS:
                parts += _pod_parts(resource, obj, pods)
            lines.append(f"{head}: {'; '.join(p for p in parts if p)}")
    return lines


def summary(kind: str, obj: dict[str, Any], state: Awaited) -> str:
    """The object's own account: replicas for workloads, phase for pods and claims;
    for any other kind the wait's message (a kstatus message, a condition's)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    want = _int(spec.get("replicas", 1))
    if kind == "Deployment":
        return f"{_int(status.get('availableReplicas'))} of {want} replicas available"
    if kind in ("StatefulSet", "ReplicaSet", "ReplicationController"):
        return f"{_int(status.get('readyReplicas'))} of {want} replicas ready"
    if kind == "DaemonSet":
        return f"{_int(status.get('numberReady'))} of {_int(status.get('desiredNumberScheduled'))} pods ready"
    if kind == "Job":
        done = f"{_int(status.get('succeeded'))} of {_int(spec.get('completions', 1))} completions"
        failed = _int(status.get("failed"))
        return f"{done}, {failed} failed" if failed else done
    if kind == "PersistentVolumeClaim":
        storage_class = spec.get("storageClassName")
        return f"{status.get('phase') or 'Pending'}" + (f' (storage class "{storage_class}")' if storage_class else "")
    if kind == "Pod":
        return pod_trouble(obj)
    return state.message or state.status


def pod_trouble(pod: dict[str, Any]) -> str:
    """Why one pod is not ready (or did not succeed), in kubectl's words."""
    status = pod.get("status") or {}
    containers = [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]
    named = len(containers) > 1
    for container in containers:
        why = _container_trouble(container)
        if why:
            return f"container {container.get('name', '')}: {why}" if named else why
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            reason = condition.get("reason") or "Unschedulable"
            return f"{reason}: {condition['message']}" if condition.get("message") else reason
    phase = status.get("phase") or "Pending"
    if status.get("reason"):
        return f"{phase} ({status['reason']})"
    if phase == "Running":
        ready = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), {})
        return f"Running, not ready{': ' + ready['message'] if ready.get('message') else ''}"
    return phase


def _container_trouble(container: dict[str, Any]) -> str:
    state = container.get("state") or {}
    waiting, terminated = state.get("waiting"), state.get("terminated")
    if waiting and waiting.get("reason") not in (None, "", "PodInitializing"):
        last = ((container.get("lastState") or {}).get("terminated") or {})
        exit_code = last.get("exitCode")
        return str(waiting["reason"]) + (f" (last exit code {exit_code})" if exit_code is not None else "")
    if terminated and (terminated.get("exitCode") or terminated.get("reason") not in (None, "Completed")):
        return f"{terminated.get('reason') or 'Terminated'} (exit code {terminated.get('exitCode', 0)})"
    return ""


def _pod_parts(resource: Resource, obj: dict[str, Any], pods: _PodLists) -> list[str]:
    selector = (obj.get("spec") or {}).get("selector") or {}
    if resource.kind == "ReplicationController":
        selector = {"matchLabels": selector}
    if not selector:
        return []
    troubles: dict[str, list[str]] = {}  # the same reason once, with the pods it holds back
    for pod in pods.of(resource.namespace):
        if matches(selector, _labels(pod)) and _not_fine(pod):
            troubles.setdefault(pod_trouble(pod), []).append(pod["metadata"]["name"])
    return [_pods_part(names, trouble) for trouble, names in troubles.items()]


def _pods_part(names: list[str], trouble: str) -> str:
    if len(names) == 1:
        return f"pod {names[0]}: {trouble}"
    shown = ", ".join(names[:MOST_PODS]) + (f" and {len(names) - MOST_PODS} more" if len(names) > MOST_PODS else "")
    return f"pods {shown}: {trouble}"


def _not_fine(pod: dict[str, Any]) -> bool:
    """Neither ready nor completed (a Job's finished pods are fine)."""
    status = pod.get("status") or {}
    if status.get("phase") == "Succeeded":
        return False
    return not any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])


def matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A LabelSelector (matchLabels, matchExpressions) against an object's labels."""
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression.get("key", ""), expression.get("operator", "")
        values = expression.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


def _deletion(obj: dict[str, Any]) -> str:
    """Why an object is still there: not deleted at all, or waiting for its finalizers."""
    meta = obj.get("metadata") or {}
    if not meta.get("deletionTimestamp"):
        return "still exists, not being deleted"
    finalizers = meta.get("finalizers") or []
    return "being deleted" + (f", waiting for finalizers {', '.join(finalizers)}" if finalizers else "")


def _labels(obj: dict[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("labels") or {})


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


class _PodLists:
    """The pods of each namespace, listed once when first asked (none if the list fails)."""

    def __init__(self, client: KubeClient) -> None:
        self.client = client
        self._pods: dict[str, list[dict[str, Any]]] = {}

    def of(self, namespace: str) -> list[dict[str, Any]]:
        if namespace not in self._pods:
            reply = self.client.request("GET", f"/api/v1/namespaces/{namespace}/pods")
            self._pods[namespace] = list(reply.body.get("items") or []) if reply.ok else []
        return self._pods[namespace]
