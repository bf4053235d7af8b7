"""Secret and ConfigMap release stores, Helm's default drivers.

Listing uses a metadata-only list (PartialObjectMetadataList) selected by
labels, so finding the revisions of a release never downloads or decodes the
records themselves: only the ones used are fetched.
"""

from __future__ import annotations

import base64
import json

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

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
SECRET_TYPE = "helm.sh/release.v1"


class KubeDriver:
    """Records as namespaced objects of one kind (`secrets` or `configmaps`)."""

    def __init__(self, api_client: Any, namespace: str, plural: str = "secrets") -> None:
        # api_client: a kubernetes ApiClient, or a runner.kube.KubeClient (no kubernetes import)
        if plural not in ("secrets", "configmaps"):
            raise ValueError(f"unsupported storage kind {plural!r}")
        self.api = api_client
        self.namespace = namespace
        self.plural = plural
        self.name = "Secret" if plural == "secrets" else "ConfigMap"

    # -- reads -----------------------------------------------------------------

    def get(self, key: str) -> Release:
        obj = self._request("GET", f"/{key}")
        if obj is None:
            raise ReleaseNotFoundError(key)
        return self._release_of(obj)

    def heads(self, release_name: str) -> list[RecordHead]:
        selector = f"owner={OWNER},name={release_name}"
        listing = self._request(
            "GET", "", query=[("labelSelector", selector)], accept=_METADATA_LIST
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
        listing = self._request("GET", "", query=[("labelSelector", selector)])
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
        self._check(status, reply, f"create: failed to create {key}")

    def update(self, key: str, release: Release) -> None:
        body = self._object(key, release, created=False)
        status, reply = self._write("PUT", f"/{key}", body)
        self._check(status, reply, f"update: failed to update {key}")

    def delete(self, key: str) -> Release | None:
        try:
            release: Release | None = self.get(key)
        except codec.RecordDecodeError:
            release = None  # unreadable, removed all the same (an uninstall leaves nothing behind)
        status, reply = self._write("DELETE", f"/{key}", None)
        self._check(status, reply, f"delete: failed to delete {key}")
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
    ) -> dict[str, Any] | None:
        status, reply = self._call(method, suffix, None, query or [], accept)
        if status == 404:
            return None
        self._check(status, reply, f"{method} {self._path(suffix)}")
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
        if not hasattr(self.api, "call_api"):  # a runner.kube.KubeClient
            reply = self.api.request(method, self._path(suffix), body=body, query=query,
                                     accept=accept)
            return reply.status, reply.body
        from kubernetes.client.exceptions import ApiException

        try:
            response = self.api.call_api(
                self._path(suffix),
                method,
                query_params=query,
                header_params={"Accept": accept, "Content-Type": "application/json"},
                body=body,
                auth_settings=["BearerToken"],
                _preload_content=False,
            )
        except ApiException as err:
            return err.status, _json(err.body)
        raw = response[0] if isinstance(response, tuple) else response
        return raw.status, _json(raw.data)

    @staticmethod
    def _check(status: int, reply: dict[str, Any], what: str) -> None:
        if status >= 400:
            raise RunnerError(f"{what}: {reply.get('message') or f'HTTP {status}'}")


def _json(data: bytes | str | None) -> dict[str, Any]:
    if not data:
        return {}
    try:
        parsed = json.loads(data)
    except ValueError:
        return {"message": data.decode() if isinstance(data, bytes) else data}
    return parsed if isinstance(parsed, dict) else {}
