"""The bridge from runner.kube's client to this package (no kubernetes import).

`client_get_json(client)` turns a runner.kube.client.KubeClient into the
`get_json(path)` callable OpenAPIPatchMetadata needs; `metadata_for(client)`
keeps one OpenAPIPatchMetadata per client so documents are fetched once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from runner.kube.patch.errors import PatchError
from runner.kube.patch.openapi import OpenAPIPatchMetadata

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

