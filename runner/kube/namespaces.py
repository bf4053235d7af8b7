"""Namespaces as previews use them: applied with labels and annotations, listed by a
label selector, deleted, and waited on while their finalizers run."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from runner.kube.apply import APPLY_PATCH
from runner.kube.client import KubeClient, KubeError

FIELD_MANAGER = "deploy-runner"  # not Helm's: these fields are deploy-runner's own
PATH = "/api/v1/namespaces"


@dataclass(frozen=True)
class NamespaceInfo:
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    phase: str = ""
    created: str = ""
    conditions: tuple[str, ...] = ()  # why a terminating namespace is not gone yet

    @classmethod
    def of(cls, obj: dict[str, Any]) -> NamespaceInfo:
        meta, status = obj.get("metadata") or {}, obj.get("status") or {}
        waiting = tuple(f"{c.get('type')}: {c.get('message', '')}".strip()
                        for c in status.get("conditions") or [] if c.get("status") == "True")
        return cls(meta.get("name", ""), dict(meta.get("labels") or {}),
                   dict(meta.get("annotations") or {}), status.get("phase", ""),
                   meta.get("creationTimestamp", ""), waiting)


class Namespaces:
    def __init__(self, client: KubeClient) -> None:
        self.client = client

    def apply(self, name: str, labels: dict[str, str], annotations: dict[str, str]) -> None:
        """Server-side apply of the namespace with these labels and annotations."""
        body = {"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": name, "labels": labels, "annotations": annotations}}
        reply = self.client.request("PATCH", f"{PATH}/{quote(name, safe='')}", body=body,
                                    query=[("fieldManager", FIELD_MANAGER), ("force", "true")],
                                    content_type=APPLY_PATCH)
        if not reply.ok:
            raise KubeError(f"failed to apply namespace {name}: {reply.message}", reply.status)

    def get(self, name: str) -> NamespaceInfo | None:
        reply = self.client.request("GET", f"{PATH}/{quote(name, safe='')}")
        if reply.status == 404:
            return None
        if not reply.ok:
            raise KubeError(f"failed to get namespace {name}: {reply.message}", reply.status)
        return NamespaceInfo.of(reply.body)

    def list(self, selector: str) -> list[NamespaceInfo]:
        reply = self.client.request("GET", PATH, query=[("labelSelector", selector)])
        if not reply.ok:
            raise KubeError(f"failed to list namespaces: {reply.message}", reply.status)
        return [NamespaceInfo.of(item) for item in reply.body.get("items") or []]

    def delete(self, name: str) -> None:
        reply = self.client.request("DELETE", f"{PATH}/{quote(name, safe='')}")
        if not reply.ok and reply.status != 404:
            raise KubeError(f"failed to delete namespace {name}: {reply.message}", reply.status)

    def wait_gone(self, name: str, timeout: float, interval: float = 0.5) -> NamespaceInfo | None:
        """None once the namespace is gone; what is left of it after `timeout` otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            info = self.get(name)
            if info is None or time.monotonic() >= deadline:
                return info
            time.sleep(interval)
