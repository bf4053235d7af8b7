"""Patch metadata from the API server's OpenAPI v3 (x-kubernetes-patch-strategy,
x-kubernetes-patch-merge-key), fetched per group/version and cached on the client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runner.kube.client import KubeClient

_CACHE_ATTR = "_openapi_documents"


@dataclass(frozen=True)
class Field:
    node: SchemaNode | None
    strategy: str = ""  # "", "merge", "retainKeys", "merge,retainKeys", "replace"
    merge_key: str = ""


class SchemaNode:
    """One object schema inside a group/version's OpenAPI document."""

    def __init__(self, schemas: dict[str, Any], schema: dict[str, Any]) -> None:
        self.schemas = schemas
        self.schema = _resolve(schemas, schema)

    def field(self, name: str) -> Field:
        prop = (self.schema.get("properties") or {}).get(name)
        if prop is None:
            extra = self.schema.get("additionalProperties")
            return Field(SchemaNode(self.schemas, extra) if isinstance(extra, dict) else None)
        return Field(SchemaNode(self.schemas, prop), str(prop.get("x-kubernetes-patch-strategy", "")),
                     str(prop.get("x-kubernetes-patch-merge-key", "")))

    def items(self) -> SchemaNode | None:
        items = self.schema.get("items")
        return SchemaNode(self.schemas, items) if isinstance(items, dict) else None


def _resolve(schemas: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    for _ in range(8):  # $ref chains are short; the bound guards against cycles
        ref = schema.get("$ref") or next(
            (part.get("$ref") for part in schema.get("allOf") or [] if "$ref" in part), None)
        if not ref:
            return schema
        schema = schemas.get(ref.rsplit("/", 1)[-1], {})
    return schema


def schema_for(client: KubeClient, api_version: str, kind: str) -> SchemaNode | None:
    """The schema of apiVersion/kind, or None when the server publishes none."""
    schemas = _document(client, api_version)
    group, _, version = api_version.rpartition("/")
    for schema in schemas.values():
        for gvk in schema.get("x-kubernetes-group-version-kind") or []:
            if gvk.get("group", "") == group and gvk.get("version") == version and gvk.get("kind") == kind:
                return SchemaNode(schemas, schema)
    return None


def _document(client: KubeClient, api_version: str) -> dict[str, Any]:
    cache: dict[str, dict[str, Any]] = client.__dict__.setdefault(_CACHE_ATTR, {})
    if api_version not in cache:
        group, _, _ = api_version.rpartition("/")
        key = f"apis/{api_version}" if group else f"api/{api_version}"
        index = client.request("GET", "/openapi/v3")
        url = ((index.body.get("paths") or {}).get(key) or {}).get("serverRelativeURL")
        schemas: dict[str, Any] = {}
        if url:
            path, _, query = url.partition("?")
            reply = client.request("GET", path, query=[tuple(q.split("=", 1)) for q in query.split("&") if "=" in q])
            schemas = ((reply.body.get("components") or {}).get("schemas") or {}) if reply.ok else {}
        cache[api_version] = schemas
    return cache[api_version]
