"""Reading what a workload left behind: the live object, its pods, their containers'
logs, and the events that name it (hook output logs and failure evidence)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from runner.kube.client import KubeClient
from runner.kube.resources import Resource

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def live(client: KubeClient, resource: Resource) -> dict[str, Any] | None:
    """The object as the API server has it now; None when it is gone (or unreadable)."""
    reply = client.request("GET", resource.path)
    return reply.body if reply.ok else None


def pods(client: KubeClient, namespace: str, *, selector: str = "", name: str = "") -> list[dict[str, Any]]:
    """The pods a label selector matches, or the one named; oldest first."""
    query = [("labelSelector", selector)] if selector else [("fieldSelector", f"metadata.name={name}")]
    reply = client.request("GET", f"/api/v1/namespaces/{quote(namespace, safe='')}/pods", query=query)
    if not reply.ok:
        return []
    items = [item for item in reply.body.get("items") or [] if isinstance(item, dict)]
    return sorted(items, key=lambda pod: (_meta(pod).get("creationTimestamp") or "", _meta(pod).get("name", "")))


def container_log(client: KubeClient, namespace: str, pod: str, container: str, *,
                  tail_lines: int | None = None, limit_bytes: int | None = None) -> tuple[int, str]:
    """One container's log: (HTTP status, the text or the error's message)."""
    query: list[tuple[str, str]] = [("container", container)]
    if tail_lines is not None:
        query.append(("tailLines", str(tail_lines)))
    if limit_bytes is not None:
        query.append(("limitBytes", str(limit_bytes)))
    path = f"/api/v1/namespaces/{quote(namespace, safe='')}/pods/{quote(pod, safe='')}/log"
    return client.text(f"{path}?{urlencode(query)}")


def events(client: KubeClient, namespace: str, kind: str, name: str) -> list[dict[str, Any]]:
    """The events whose involvedObject is this object, oldest first."""
    selector = f"involvedObject.name={name},involvedObject.kind={kind}"
    reply = client.request("GET", f"/api/v1/namespaces/{quote(namespace, safe='')}/events",
                           query=[("fieldSelector", selector)])
    if not reply.ok:
        return []
    items = [item for item in reply.body.get("items") or [] if isinstance(item, dict)]
    return sorted(items, key=event_time)


def event_time(event: dict[str, Any]) -> str:
    """When an event last happened (events.k8s.io's eventTime, or core's timestamps)."""
    series = event.get("series") or {}
    return str(series.get("lastObservedTime") or event.get("lastTimestamp") or event.get("eventTime")
               or event.get("firstTimestamp") or _meta(event).get("creationTimestamp") or "")


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}
