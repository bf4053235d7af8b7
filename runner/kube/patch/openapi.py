"""Strategic-merge patch metadata from the API server's OpenAPI v3 documents.

The server publishes, on every property of its built-in types, the metadata
client-go keeps in struct tags: `x-kubernetes-patch-strategy` ("merge",
"replace", "retainKeys", "merge,retainKeys") and `x-kubernetes-patch-merge-key`.
`/openapi/v3` indexes one document per group/version (`api/v1`,
`apis/apps/v1`, ...); each holds `components.schemas`, where the top-level
kinds carry `x-kubernetes-group-version-kind`.

Documents are fetched through an injected `get_json(path) -> dict` (the path
may carry a `?hash=` query), once per group/version, so this module needs no
Kubernetes client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

_REF_DEPTH = 16  # $ref chains are short; the bound guards against cycles


@dataclass(frozen=True)
class GroupVersionKind:
    group: str
    version: str
    kind: str

    @classmethod
    def of(cls, api_version: str, kind: str) -> GroupVersionKind:
        group, _, version = api_version.rpartition("/")
        return cls(group, version, kind)

    @classmethod
    def of_object(cls, obj: Mapping[str, Any]) -> GroupVersionKind:
        return cls.of(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


@dataclass(frozen=True)
class PatchMeta:
    """The patch metadata of one field: its strategies and merge key."""

    strategies: tuple[str, ...] = ()
    merge_key: str = ""


NO_META = PatchMeta()


class Schema:
    """One node of a group/version's schemas, with `$ref`/`allOf` resolved."""

    __slots__ = ("_node", "_schemas")

    def __init__(self, schemas: Mapping[str, Any], node: Mapping[str, Any]) -> None:
        self._schemas = schemas
        self._node = _resolve(schemas, node)

    def field(self, key: str) -> tuple[Schema | None, PatchMeta]:
        """The schema and patch metadata of field `key` (map values for a map)."""
        prop = (self._node.get("properties") or {}).get(key)
        if isinstance(prop, Mapping):
            return Schema(self._schemas, prop), _meta(prop)
        extra = self._node.get("additionalProperties")
        if isinstance(extra, Mapping):
            return Schema(self._schemas, extra), NO_META
        return None, NO_META

    def items(self) -> Schema | None:
        """The schema of a list's elements."""
        items = self._node.get("items")
        return Schema(self._schemas, items) if isinstance(items, Mapping) else None


def _meta(prop: Mapping[str, Any]) -> PatchMeta:
    strategy = str(prop.get("x-kubernetes-patch-strategy") or "")
    strategies = tuple(s for s in strategy.split(",") if s)
    return PatchMeta(strategies, str(prop.get("x-kubernetes-patch-merge-key") or ""))


def _resolve(schemas: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    for _ in range(_REF_DEPTH):
        ref = node.get("$ref") or next(
            (part["$ref"] for part in node.get("allOf") or () if isinstance(part, Mapping) and "$ref" in part),
            None)
        if not ref:
            return node
        node = schemas.get(str(ref).rsplit("/", 1)[-1]) or {}
    return node


class PatchMetadataSource(Protocol):
    def schema_for(self, gvk: GroupVersionKind) -> Schema | None: ...


@dataclass(frozen=True)
class _GroupVersion:
    schemas: Mapping[str, Any]
    kinds: Mapping[str, str]  # kind -> schema name


class OpenAPIPatchMetadata:
    """Schemas by GroupVersionKind from `/openapi/v3`, cached per group/version."""

    def __init__(self, get_json: Callable[[str], Mapping[str, Any]]) -> None:
        self._get_json = get_json
        self._index: Mapping[str, Any] | None = None
        self._cache: dict[tuple[str, str], _GroupVersion] = {}
        self._lock = threading.Lock()

    def schema_for(self, gvk: GroupVersionKind) -> Schema | None:
        """The schema of the kind, or None when the server publishes none."""
        with self._lock:
            document = self._document(gvk.group, gvk.version)
        name = document.kinds.get(gvk.kind)
        return Schema(document.schemas, document.schemas[name]) if name else None

    def _document(self, group: str, version: str) -> _GroupVersion:
        key = (group, version)
        if key not in self._cache:
            self._cache[key] = self._fetch(group, version)
        return self._cache[key]

    def _fetch(self, group: str, version: str) -> _GroupVersion:
        if self._index is None:
            self._index = self._get_json("/openapi/v3").get("paths") or {}
        entry = self._index.get(f"apis/{group}/{version}" if group else f"api/{version}")
        url = entry.get("serverRelativeURL") if isinstance(entry, Mapping) else None
        if not url:
            return _GroupVersion({}, {})
        schemas = (self._get_json(str(url)).get("components") or {}).get("schemas") or {}
        return _GroupVersion(schemas, _kinds(schemas, group, version))


def _kinds(schemas: Mapping[str, Any], group: str, version: str) -> dict[str, str]:
    kinds: dict[str, str] = {}
    for name, schema in schemas.items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            if gvk.get("group", "") == group and gvk.get("version") == version:
                kinds.setdefault(str(gvk.get("kind")), name)
    return kinds
