"""Reading what a workload left behind: the live object, its pods, their containers'
logs, and the events that name it (hook output logs and failure evidence)."""

from __future__ import annotations

import contextlib
from urllib.parse import quote, urlencode

from runner.kube.client import KubeClient, status_text
from runner.kube.resources import Resource

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from collections.abc import Iterator
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


class LogStream:
    """A container's log as it is written (GET pods/<pod>/log?follow=true): `chunks()`
    yields its text from the log's first line and ends when the container does (the
    kubelet closes the stream), when the connection drops, or when `close()` is called
    from any thread. A container that has not started raises KubeError (400)."""

    def __init__(self, client: KubeClient, namespace: str, pod: str, container: str) -> None:
        from runner.kube.client import KubeError
        from runner.kube.watch import HEADERS_SECONDS

        path = f"/api/v1/namespaces/{quote(namespace, safe='')}/pods/{quote(pod, safe='')}/log"
        self.response = client.stream(path, [("container", container), ("follow", "true")],
                                      read_timeout=HEADERS_SECONDS, accept="*/*")
        if self.response.status >= 400:
            status, data = self.response.status, self.response.data
            self.close()
            raise KubeError(f"log of {pod}/{container}: {status_text(status, data)}", status)
        # A migration may print nothing for minutes: from here a read waits until a line
        # comes, the container ends, or close() shuts the socket down.
        sock = getattr(getattr(self.response, "connection", None), "sock", None)
        if sock is not None:
            sock.settimeout(None)

    def chunks(self) -> Iterator[str]:
        import codecs

        from urllib3.exceptions import HTTPError

        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        try:
            for chunk in self.response.stream(decode_content=True):
                if text := decoder.decode(chunk):
                    yield text
            if rest := decoder.decode(b"", final=True):  # a cut character at the very end
                yield rest
        except (HTTPError, OSError, ValueError):
            return  # dropped or shut down: the caller decides whether to open it again
        finally:
            self.close()

    def close(self) -> None:
        """Wake a read blocked on the socket and hand the connection back (never reused)."""
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            self.response.shutdown()
        self.response.close()
        self.response.release_conn()


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
