"""Three-way strategic merge patch (k8s strategicpatch.CreateThreeWayMergePatch),
driven by the OpenAPI patch metadata of built-in kinds.

Maps merge key by key (null deletes); lists whose patch strategy is `merge`
merge item by item on their merge key (`$patch: delete` for items dropped
from the chart, `$setElementOrder` to keep the chart's order); primitive
merge lists add values and drop removed ones (`$deleteFromPrimitiveList`);
all other lists are replaced whole when they differ.
"""

from __future__ import annotations

from typing import Any

from runner.kube.openapi import SchemaNode

_MISSING = object()


def three_way(original: dict[str, Any], modified: dict[str, Any], live: dict[str, Any],
              node: SchemaNode | None) -> dict[str, Any]:
    out: dict[str, Any] = {key: None for key in original if key not in modified}
    for key, value in modified.items():
        current = live.get(key, _MISSING)
        field = node.field(key) if node else None
        child = field.node if field else None
        before = original.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            sub = three_way(before if isinstance(before, dict) else {}, value, current, child)
            if sub:
                out[key] = sub
        elif (isinstance(value, list) and isinstance(current, list) and field
              and "merge" in field.strategy.split(",")):
            _merge_list(out, key, before if isinstance(before, list) else [], value, current,
                        child.items() if child else None, field.merge_key)
        elif current != value:
            out[key] = value
    return out


def _merge_list(out: dict[str, Any], key: str, original: list[Any], modified: list[Any],
                live: list[Any], items: SchemaNode | None, merge_key: str) -> None:
    if all(not isinstance(v, dict | list) for v in modified + live + original):
        _merge_primitives(out, key, original, modified, live)
        return
    if not merge_key or not all(isinstance(v, dict) and merge_key in v for v in modified):
        if modified != live:
            out[key] = modified
        return
    live_by = {v.get(merge_key): v for v in live if isinstance(v, dict)}
    original_by = {v.get(merge_key): v for v in original if isinstance(v, dict)}
    wanted = {v[merge_key] for v in modified}
    patch: list[Any] = []
    for item in modified:
        current = live_by.get(item[merge_key])
        if current is None:
            patch.append(item)
            continue
        sub = three_way(original_by.get(item[merge_key]) or {}, item, current, items)
        if sub:
            patch.append({merge_key: item[merge_key], **sub})
    for name in original_by:
        if name not in wanted and name in live_by:
            patch.append({merge_key: name, "$patch": "delete"})
    order = [v[merge_key] for v in modified]
    if patch or order != [v.get(merge_key) for v in live if isinstance(v, dict)]:
        out[key] = patch
        out[f"$setElementOrder/{key}"] = [{merge_key: name} for name in order]


def _merge_primitives(out: dict[str, Any], key: str, original: list[Any], modified: list[Any],
                      live: list[Any]) -> None:
    added = [v for v in modified if v not in live]
    removed = [v for v in original if v not in modified and v in live]
    if added:
        out[key] = added
    if removed:
        out[f"$deleteFromPrimitiveList/{key}"] = removed
    if added or removed:
        out[f"$setElementOrder/{key}"] = list(modified)
