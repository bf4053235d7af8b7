"""Secret and ConfigMap release stores, Helm's default drivers.

Listing uses a metadata-only list (PartialObjectMetadataList) selected by
labels, so finding the revisions of a release never downloads or decodes the
records themselves: only the ones used are fetched.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from runner.errors import RunnerError
from runner.release import codec
from runner.release.record import Release
from runner.release.storage.driver import (
    OWNER,
    RecordHead,
    ReleaseExistsError,
    ReleaseNotFoundError,
    record_labels,
    user_labels,
)

if TYPE_CHECKING:
    from runner.kube.client import KubeClient

_METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
SECRET_TYPE = "helm.sh/release.v1"


class KubeDriver:
    """Records as namespaced objects of one kind (`secrets` or `configmaps`)."""

    def __init__(self, client: KubeClient, namespace: str, plural: str = "secrets") -> None:
        if plural not in ("secrets", "configmaps"):
            raise ValueError(f"unsupported storage kind {plural!r}")
        self.api = client
        self.namespace = namespace
        self.plural = plural
        self.name = "Secret" if plural == "secrets" else "ConfigMap"

    # -- reads -----------------------------------------------------------------

    def get(self, key: str) -> Release:
        obj = self._request("GET", f"/{key}", what=f'get: failed to get "{key}"')
        if obj is None:
            raise ReleaseNotFoundError(key)
        return self._release_of(obj)

    def heads(self, release_name: str) -> list[RecordHead]:
        selector = f"owner={OWNER},name={release_name}"
        listing = self._request(
            "GET", "", query=[("labelSelector", selector)], accept=_METADATA_LIST,
            what="query: failed to query with labels",
        )
        heads = []
        for item in (listing or {}).get("items") or []:
            meta = item["metadata"]
            labels = meta.get("labels") or {}
            if labels.get("version", "").isdigit():
                heads.append(
                    RecordHead(
                        meta["name"], release_name, int(labels["version"]), labels.get("status", ""),
                        dict(labels),
                    )
                )
        return heads

    def query(self, labels: dict[str, str]) -> list[Release]:
        """Every record whose labels match, each keeping all its stored labels (as Helm's
        List does, so that `list --selector` sees name, status and version too)."""
        selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
        listing = self._request("GET", "", query=[("labelSelector", selector)],
                                what="list: failed to list")
        found = []
        for obj in (listing or {}).get("items") or []:
            try:
                release = self._release_of(obj)
            except codec.RecordDecodeError:
                continue  # Helm's Query and List leave out what they cannot decode
            release.labels = dict(obj["metadata"].get("labels") or {})
            found.append(release)
        return found

    # -- writes ----------------------------------------------------------------

    def create(self, key: str, release: Release) -> None:
        body = self._object(key, release, created=True)
        status, reply = self._write("POST", "", body)
        if status == 409:
            raise ReleaseExistsError(key)
        self._check(status, reply, "create: failed to create")  # Helm's wording

    def update(self, key: str, release: Release) -> None:
        body = self._object(key, release, created=False)
        status, reply = self._write("PUT", f"/{key}", body)
        self._check(status, reply, "update: failed to update")

    def delete(self, key: str) -> Release | None:
        try:
            release: Release | None = self.get(key)
        except codec.RecordDecodeError:
            release = None  # unreadable, removed all the same (an uninstall leaves nothing behind)
        status, reply = self._write("DELETE", f"/{key}", None)
        if status >= 400:  # Helm returns the API error as it is
            raise RunnerError(str(reply.get("message") or f"HTTP {status}"))
        return release

    # -- encoding --------------------------------------------------------------

    def _object(self, key: str, release: Release, *, created: bool) -> dict[str, Any]:
        encoded = codec.encode(release)
        meta = {
            "name": key,
            "namespace": self.namespace,
            "labels": record_labels(release, created=created),
        }
        if self.plural == "configmaps":
            return {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": meta,
                "data": {"release": encoded},
            }
        data = base64.b64encode(encoded.encode()).decode()
        return {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": meta,
            "type": SECRET_TYPE,
            "data": {"release": data},
        }

    def _release_of(self, obj: dict[str, Any]) -> Release:
        key = obj["metadata"]["name"]
        stored = (obj.get("data") or {}).get("release", "")
        if self.plural == "secrets":
            stored = base64.b64decode(stored).decode("ascii", "replace")
        release = codec.decode(stored, key=key)
        release.labels = user_labels(obj["metadata"].get("labels") or {})
        return release

    # -- HTTP ------------------------------------------------------------------

    def _path(self, suffix: str) -> str:
        if not self.namespace:  # every namespace (list -A); reads only
            return f"/api/v1/{self.plural}{suffix}"
        return f"/api/v1/namespaces/{self.namespace}/{self.plural}{suffix}"

    def _request(
        self,
        method: str,
        suffix: str,
        *,
        query: list[tuple[str, str]] | None = None,
        accept: str = "application/json",
        what: str,
    ) -> dict[str, Any] | None:
        """A read; None when not found. `what` is Helm's prefix for a failure."""
        status, reply = self._call(method, suffix, None, query or [], accept)
        if status == 404:
            return None
        self._check(status, reply, what)
        return reply

    def _write(
        self, method: str, suffix: str, body: dict[str, Any] | None
    ) -> tuple[int, dict[str, Any]]:
        return self._call(method, suffix, body, [], "application/json")

    def _call(
        self,
        method: str,
        suffix: str,
        body: dict[str, Any] | None,
        query: list[tuple[str, str]],
        accept: str,
    ) -> tuple[int, dict[str, Any]]:
        reply = self.api.request(method, self._path(suffix), body=body, query=query, accept=accept)
        return reply.status, reply.body

    @staticmethod
    def _check(status: int, reply: dict[str, Any], what: str) -> None:
        if status >= 400:
            raise RunnerError(f"{what}: {reply.get('message') or f'HTTP {status}'}")

