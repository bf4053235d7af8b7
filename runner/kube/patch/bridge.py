"""Bridges from runner.kube's client to this package (no kubernetes import).

`client_get_json(client)` turns a runner.kube.client.KubeClient into the
`get_json(path)` callable OpenAPIPatchMetadata needs; `metadata_for(client)`
keeps one OpenAPIPatchMetadata per client so documents are fetched once.

`legacy_three_way_patch` answers the earlier call shape
`three_way_patch(client, original, resource, live) -> (patch, strategic)` that
runner/kube/apply.py used against the module this package replaced; remove it
once apply.py calls `three_way_patch(original, modified, current, gvk, source)`.
It keeps that module's three-way merge for custom resources.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from runner.kube.patch.errors import PatchError
from runner.kube.patch.openapi import GroupVersionKind, OpenAPIPatchMetadata

_ATTR = "_patch_openapi_metadata"
_LOCK = threading.Lock()


def client_get_json(client: Any) -> Callable[[str], Mapping[str, Any]]:
    def get_json(url: str) -> Mapping[str, Any]:
        path, _, query = url.partition("?")
        reply = client.request("GET", path, query=parse_qsl(query))
        if not reply.ok:
            raise PatchError(f"cannot read the OpenAPI document {path}: {reply.message}")
        return reply.body
    return get_json


def metadata_for(client: Any) -> OpenAPIPatchMetadata:
    with _LOCK:
        source = client.__dict__.get(_ATTR)
        if source is None:
            source = OpenAPIPatchMetadata(client_get_json(client))
            client.__dict__[_ATTR] = source
    return source


def legacy_three_way_patch(client: Any, original: Mapping[str, Any] | None, resource: Any,
                           live: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    from runner.kube.patch import STRATEGIC_MERGE_PATCH, three_way_patch

    mapping = resource.mapping
    gvk = GroupVersionKind(mapping.group, mapping.version, mapping.kind)
    source = metadata_for(client) if client is not None else None
    content_type, body = three_way_patch(original, resource.obj, live, gvk, source,
                                         three_way_for_custom=True)
    return body, content_type == STRATEGIC_MERGE_PATCH
