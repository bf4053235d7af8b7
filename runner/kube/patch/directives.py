"""Strategic merge patch directive names and the patch-strategy tag."""

from __future__ import annotations

from runner.kube.patch.errors import PatchError
from runner.kube.patch.openapi import PatchMeta, Schema

DIRECTIVE = "$patch"
DELETE = "delete"
REPLACE = "replace"
MERGE = "merge"
RETAIN_KEYS = "retainKeys"
RETAIN_KEYS_DIRECTIVE = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER = "$setElementOrder"


def strategy(meta: PatchMeta) -> tuple[bool, str]:
    """extractRetainKeysPatchStrategy: (has retainKeys, the other strategy)."""
    found = meta.strategies
    if len(found) > 2 or (len(found) == 2 and RETAIN_KEYS not in found):
        raise PatchError(f"unexpected patch strategy: {list(found)}")
    if RETAIN_KEYS in found:
        rest = [s for s in found if s != RETAIN_KEYS]
        return True, rest[0] if rest else ""
    return False, found[0] if found else ""


def field(schema: Schema | None, key: str) -> tuple[Schema | None, PatchMeta]:
    """Schema and metadata of a field; none for fields the schema does not know."""
    if schema is None:
        return None, PatchMeta()
    return schema.field(key)


def items(schema: Schema | None) -> Schema | None:
    return schema.items() if schema is not None else None


def extract_key(key: str, prefix: str) -> str:
    """`$setElementOrder/containers` -> `containers`."""
    head, sep, rest = key.partition("/")
    if not sep or head != prefix:
        raise PatchError(f"Unable to find {prefix!r} prefix in {key}")
    return rest


def element_kind(*lists: list[object]) -> type:
    """sliceElementType: the one type of all elements (no lists of lists)."""
    kind: type | None = None
    for values in lists:
        for value in values:
            if kind is None:
                kind = type(value)
                if kind is list:
                    raise PatchError("lists of lists are not supported")
            elif type(value) is not kind:
                raise PatchError(f"list element types are not identical: {list(lists)}")
    if kind is None:
        raise PatchError("no elements in any of the given slices")
    return kind
