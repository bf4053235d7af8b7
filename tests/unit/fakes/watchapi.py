"""A fake API server for list and watch (what runner.kube.watch and the waits use):
objects per collection, and events a test sends while a wait runs.

`FakeApi` stands in for KubeClient: `request("GET", collection)` lists (or GETs one
object), `stream()` opens a watch that yields what `send()` publishes after it
opened, until `drop()` ends it or the reader closes it. It counts every request
and can refuse lists with a status.
"""

from __future__ import annotations

import json
import math
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

from runner.kube.client import KubeError, Response, RestMapping
from runner.kube.resources import Resource

MAPPINGS = {
    "Deployment": RestMapping("apps", "v1", "Deployment", "deployments", True),
    "Job": RestMapping("batch", "v1", "Job", "jobs", True),
    "Pod": RestMapping("", "v1", "Pod", "pods", True),
    "ConfigMap": RestMapping("", "v1", "ConfigMap", "configmaps", True),
    "PersistentVolumeClaim": RestMapping("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", True),
}


def resource(kind: str, name: str, namespace: str = "ns", **spec: Any) -> Resource:
    mapping = MAPPINGS[kind]
    obj = {"apiVersion": mapping.api_version, "kind": kind,
           "metadata": {"name": name, "namespace": namespace}, "spec": spec}
    return Resource(obj, mapping, namespace)


class _Watch:
    """One open watch: what the API sends on it, read as the transport's StreamedReply would be."""

    def __init__(self, api: FakeApi, collection: str) -> None:
        self.api, self.collection = api, collection
        self.status, self.data = 200, b""
        self.events: queue.Queue[bytes | None] = queue.Queue()
        self.closed = threading.Event()

    def stream(self, decode_content: bool = True) -> Any:
        while not self.closed.is_set():
            try:
                line = self.events.get(timeout=0.05)
            except queue.Empty:
                continue
            if line is None:
                return
            yield line

    def shutdown(self) -> None:
        self.closed.set()

    def settimeout(self, seconds: float | None) -> None:
        pass

    def close(self) -> None:
        self.closed.set()
        with self.api.lock:
            if self in self.api.watches:
                self.api.watches.remove(self)


@dataclass
class FakeApi:
    collections: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # path -> name -> obj
    requests: list[str] = field(default_factory=list)  # "LIST path", "WATCH path", "GET path"
    watch_queries: list[dict[str, str]] = field(default_factory=list)  # the query of each watch opened
    refuse: dict[str, int] = field(default_factory=dict)  # collection -> status of its lists
    watches: list[_Watch] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    version: int = 1
    debugged: list[str] = field(default_factory=list)  # what --debug would show (KubeClient.debug)

    # -- arranging --------------------------------------------------------------------
    def put(self, res: Resource, status: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
        """The object as stored (returned): `res`'s with `status` and metadata fields."""
        obj = json.loads(json.dumps(res.obj))
        obj["metadata"].update(meta)
        obj["status"] = status or {}
        self.store(res.mapping.collection_path(res.namespace), obj)
        return obj

    def store(self, collection: str, obj: dict[str, Any]) -> None:
        with self.lock:
            self.version += 1
            obj["metadata"]["resourceVersion"] = str(self.version)
            self.collections.setdefault(collection, {})[obj["metadata"]["name"]] = obj

    def send(self, kind: str, res: Resource, status: dict[str, Any] | None = None, **meta: Any) -> None:
        """Change the object (or delete it: DELETED) and tell every open watch of its collection."""
        collection = res.mapping.collection_path(res.namespace)
        if kind == "DELETED":
            with self.lock:
                obj = self.collections.get(collection, {}).pop(res.name, None) or res.obj
        else:
            obj = self.put(res, status, **meta)
        line = json.dumps({"type": kind, "object": obj}).encode() + b"\n"
        for watch in self.open_watches(collection):
            watch.events.put(line)

    def drop(self) -> None:
        """Every open watch ends (the connection dropped, or the server's timeout)."""
        for watch in self.open_watches():
            watch.events.put(None)

    def open_watches(self, collection: str = "") -> list[_Watch]:
        with self.lock:
            return [w for w in self.watches if not collection or w.collection == collection]

    def wait_for_watches(self, count: int, timeout: float = 5.0) -> None:
        """Until `count` watches are open (the wait listed everything and watches)."""
        import time

        end = time.monotonic() + timeout
        while len(self.open_watches()) < count:
            if time.monotonic() > end:
                raise AssertionError(f"{len(self.open_watches())} watches open, not {count}")
            time.sleep(0.01)

    # -- what KubeClient offers ---------------------------------------------------------
    def debug(self, message: str, **attrs: Any) -> None:
        from runner.golang.slog import text_line

        self.debugged.append(text_line("DEBUG", message, attrs))

    def preferred_mapping(self, mapping: Any) -> Any:
        return mapping  # one version per kind here

    def request(self, method: str, path: str, *, query: list[tuple[str, str]] | None = None,
                **_: Any) -> Response:
        selector = dict(query or []).get("fieldSelector", "")
        labels = dict(part.split("=", 1) for part in dict(query or []).get("labelSelector", "").split(",") if part)
        with self.lock:
            if path in self.collections or path in self.refuse or path.endswith("/pods"):
                self.requests.append(f"LIST {path}")
                if path in self.refuse:
                    return Response(self.refuse[path], {"message": "forbidden", "reason": "Forbidden"})
                items = list(self.collections.get(path, {}).values())
                if selector.startswith("metadata.name="):
                    items = [i for i in items if i["metadata"]["name"] == selector.split("=", 1)[1]]
                items = [i for i in items
                         if all((i["metadata"].get("labels") or {}).get(k) == v for k, v in labels.items())]
                return Response(200, {"metadata": {"resourceVersion": str(self.version)},
                                      "items": json.loads(json.dumps(items))})
            self.requests.append(f"{method} {path}")
            collection, _, name = path.rpartition("/")
            obj = self.collections.get(collection, {}).get(name)
            return Response(200, obj) if obj else Response(404, {"message": "not found"})

    def stream(self, path: str, query: list[tuple[str, str]], read_timeout: float,
               deadline: float = math.inf) -> _Watch:
        if path in self.refuse:
            raise KubeError("watch refused", self.refuse[path])
        watch = _Watch(self, path)
        with self.lock:
            self.requests.append(f"WATCH {path}")
            self.watch_queries.append(dict(query))
            self.watches.append(watch)
        return watch
