"""Reading what a workload left behind: the live object, its pods (listed, or watched
as they change), their containers' logs, and the events that name it (hook output
logs and failure evidence)."""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import quote, urlencode

from runner.kube.client import KubeClient, status_text
from runner.kube.resources import Resource

WAKE_SECONDS = 1.0  # PodWatch: how often its reader looks up from an idle watch (no request)


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
    return _oldest_first(item for item in reply.body.get("items") or [] if isinstance(item, dict))


def _oldest_first(pods: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(pods, key=lambda pod: (_meta(pod).get("creationTimestamp") or "", _meta(pod).get("name", "")))


class PodWatch:
    """The pods a label selector matches (or the one named), as the API server reports
    them: listed once, then watched from the list's resourceVersion (runner.kube.watch,
    which lists again when a watch ends). Iterating yields every pod, oldest first, at
    once and again after each change; `close()`, from any thread, ends it."""

    def __init__(self, client: KubeClient, namespace: str, *, selector: str = "", name: str = "") -> None:
        from runner.kube.watch import Observer, Target

        self._target = Target(f"/api/v1/namespaces/{quote(namespace, safe='')}/pods",
                              field_selector=f"metadata.name={name}" if name else "", label_selector=selector)
        self._observer = Observer(client, [self._target], math.inf)
        self._closed = threading.Event()

    def __iter__(self) -> Iterator[list[dict[str, Any]]]:
        pods: dict[str, dict[str, Any]] = {}
        with self._observer as observer:
            while not self._closed.is_set():
                news = observer.next(WAKE_SECONDS)
                if news is None:
                    continue  # a quiet while, or woken by close()
                if news.kind == "failed" and news.error is not None:
                    raise news.error
                if news.kind == "listed":
                    pods = {_meta(pod).get("name", ""): pod for pod in news.objects}
                    observer.decide(self._target, watch=True)
                elif news.kind == "DELETED":
                    pods.pop(_meta(news.objects[0]).get("name", ""), None)
                else:
                    pods[_meta(news.objects[0]).get("name", "")] = news.objects[0]
                yield _oldest_first(pods.values())

    def close(self) -> None:
        self._closed.set()
        self._observer.close()


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
        self.response.settimeout(None)

    def chunks(self) -> Iterator[str]:
        import codecs

        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        try:
            for chunk in self.response.stream(decode_content=True):
                if text := decoder.decode(chunk):
                    yield text
            if rest := decoder.decode(b"", final=True):  # a cut character at the very end
                yield rest
        except (OSError, ValueError):
            return  # dropped or shut down: the caller decides whether to open it again
        finally:
            self.close()

    def close(self) -> None:
        """Wake a read blocked on the socket and hand the connection back (never reused)."""
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            self.response.shutdown()
        self.response.close()


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
