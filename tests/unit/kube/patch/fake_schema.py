"""The `mergeItem` test type of apimachinery's strategicpatch tests
(patch_test.go MergeItem / RetainKeysMergeItem; testdata/swagger-merge-item.json),
written as an OpenAPI v3 document the way the API server publishes its types."""

from __future__ import annotations

from runner.kube.patch.openapi import Schema

_REF = "#/components/schemas/"


def _list_of(name: str, strategy: str = "", key: str = "") -> dict[str, object]:
    prop: dict[str, object] = {"type": "array", "items": {"allOf": [{"$ref": _REF + name}]}}
    if strategy:
        prop["x-kubernetes-patch-strategy"] = strategy
    if key:
        prop["x-kubernetes-patch-merge-key"] = key
    return prop


_INTS = {"type": "array", "items": {"type": "integer"}}
_SIMPLE_MAP = {"type": "object", "additionalProperties": {"type": "string"}}

SCHEMAS: dict[str, dict[str, object]] = {
    "mergeItem": {"type": "object", "properties": {
        "name": {"type": "string"}, "value": {"type": "string"}, "other": {"type": "string"},
        "mergingList": _list_of("mergeItem", "merge", "name"),
        "nonMergingList": _list_of("mergeItem"),
        "mergingIntList": {**_INTS, "x-kubernetes-patch-strategy": "merge"},
        "nonMergingIntList": _INTS,
        "mergeItemPtr": _list_of("mergeItem", "merge", "name"),
        "simpleMap": _SIMPLE_MAP,
        "replacingItem": {"type": "object", "x-kubernetes-patch-strategy": "replace"},
        "retainKeysMap": {"allOf": [{"$ref": _REF + "retainKeysMergeItem"}],
                          "x-kubernetes-patch-strategy": "retainKeys"},
        "retainKeysMergingList": _list_of("mergeItem", "merge,retainKeys", "name"),
    }},
    "retainKeysMergeItem": {"type": "object", "properties": {
        "name": {"type": "string"}, "value": {"type": "string"}, "other": {"type": "string"},
        "simpleMap": _SIMPLE_MAP,
        "mergingIntList": {**_INTS, "x-kubernetes-patch-strategy": "merge"},
        "mergingList": _list_of("mergeItem", "merge", "name"),
        "nonMergingList": _list_of("mergeItem"),
    }},
}

MERGE_ITEM = Schema(SCHEMAS, SCHEMAS["mergeItem"])
