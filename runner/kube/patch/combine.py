"""Merging the additions patch into the deletions patch: apimachinery's mergeMap
with MergeOptions{MergeParallelList: false, IgnoreUnmatchedNulls: false}, the
client-side mode CreateThreeWayMergePatch uses. Directive lists stay as
directives; `$setElementOrder` lists of both halves must agree."""

from __future__ import annotations

from typing import Any

from runner.kube.patch.directives import (
    DELETE,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    MERGE,
    REPLACE,
    RETAIN_KEYS_DIRECTIVE,
    SET_ELEMENT_ORDER,
    element_kind,
    extract_key,
    field,
    items,
    strategy,
)
from runner.kube.patch.errors import PatchError
from runner.kube.patch.openapi import Schema
from runner.kube.patch.order import find, merge_key_value, normalize_element_order, partition
from runner.kube.patch.values import dedupe_scalars, deep_equal, same

JSONMap = dict[str, Any]

_MISSING = object()


def merge_map(original: JSONMap, patch: JSONMap, schema: Schema | None) -> JSONMap:
    """Merge `patch` into `original` (both patches); mutates and returns `original`."""
    if DIRECTIVE in patch:
        return _map_directive(patch[DIRECTIVE], patch)
    _merge_retain_keys(original, patch)
    _merge_element_orders(original, patch, schema)
    for key, value in list(patch.items()):
        if key.startswith(DELETE_FROM_PRIMITIVE_LIST):
            original[key] = value
        elif value is None:
            original.pop(key, None)
            original[key] = None
        else:
            original[key] = _merge_value(original.get(key, _MISSING), value, schema, key)
    return original


def _merge_value(before: Any, value: Any, schema: Schema | None, key: str) -> Any:
    if before is _MISSING or type(before) is not type(value):
        return value
    sub, meta = field(schema, key)
    _, kind = strategy(meta)
    if isinstance(value, dict):
        return value if kind == REPLACE else merge_map(before, value, sub)
    if isinstance(value, list):
        return merge_slice(before, value, items(sub), meta.merge_key) if kind == MERGE else value
    return value


def _map_directive(directive: Any, patch: JSONMap) -> JSONMap:
    if directive == REPLACE:
        return {k: v for k, v in patch.items() if k != DIRECTIVE}
    if directive == DELETE:
        return {}
    raise PatchError(f"Unknown patch type: {directive} in map: {patch}")


def _merge_retain_keys(original: JSONMap, patch: JSONMap) -> None:
    if RETAIN_KEYS_DIRECTIVE not in patch:
        return
    keys = patch.pop(RETAIN_KEYS_DIRECTIVE)
    if RETAIN_KEYS_DIRECTIVE not in original:
        original[RETAIN_KEYS_DIRECTIVE] = keys
    elif not deep_equal(original[RETAIN_KEYS_DIRECTIVE], keys):
        raise PatchError(f"{original[RETAIN_KEYS_DIRECTIVE]} and {keys} are not deep equal: "
                         "this may happen when calculating the 3-way diff patch")


def _merge_element_orders(original: JSONMap, patch: JSONMap, schema: Schema | None) -> None:
    """mergePatchIntoOriginal: each `$setElementOrder/<f>` moves to `original`,
    and list <f> of both halves is merged and put in that order."""
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        if key not in original:
            original[key] = order
        elif not deep_equal(original[key], order):
            raise PatchError("invalid patch: $setElementOrder lists of the two patches differ")
        if not isinstance(order, list):
            raise PatchError(f"invalid {SET_ELEMENT_ORDER} list: {order!r}")
        name = extract_key(key, SET_ELEMENT_ORDER)
        merged = _merged_ordered_list(original.get(name, _MISSING), patch.get(name, _MISSING),
                                      order, schema, name)
        if merged is not None:
            original[name] = merged
            patch.pop(name, None)


def _merged_ordered_list(before: Any, after: Any, order: list[Any], schema: Schema | None,
                         name: str) -> list[Any] | None:
    for value in (before, after):
        if value is not _MISSING and not isinstance(value, list):
            raise PatchError(f"expected a list for {name}, found {value!r}")
    if before is _MISSING and after is _MISSING:
        return None
    sub, meta = field(schema, name)
    _, kind = strategy(meta)
    merge_key = meta.merge_key
    before_list = [] if before is _MISSING else before
    after_list = [] if after is _MISSING else after
    _validate_order(after_list, order, merge_key)
    if after is _MISSING:
        merged = before_list
    elif before is _MISSING:
        merged = after_list
    else:
        merged = merge_slice(before_list, after_list, items(sub), merge_key) if kind == MERGE \
            else after_list
    if not before_list and not after_list:
        return merged
    inside, outside = partition(merged, order, merge_key)
    is_map = element_kind(before_list, after_list) is dict
    return normalize_element_order(inside, outside, order, before_list, merge_key, is_map)


def _validate_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """validatePatchWithSetOrderList: patch items must follow the $setElementOrder order."""
    if not patch_list or not order:
        return
    kept = patch_list
    if merge_key:
        kept = [v for v in patch_list if not (isinstance(v, dict) and v.get(DIRECTIVE) == DELETE)]
    p = o = 0
    while p < len(kept) and o < len(order):
        if isinstance(kept[p], dict) and DIRECTIVE in kept[p]:
            p += 1
            continue
        if _key_equal(kept[p], order[o], merge_key):
            p += 1
        o += 1
    if p < len(kept) and o >= len(order):
        raise PatchError(f"The order in patch list:\n{patch_list}\n doesn't match "
                         f"{SET_ELEMENT_ORDER} list:\n{order}\n")


def _key_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return same(left, right)
    return same(merge_key_value(left, merge_key), merge_key_value(right, merge_key))


def merge_slice(original: list[Any], patch: list[Any], schema: Schema | None,
                merge_key: str) -> list[Any]:
    """mergeSlice (merge strategy): scalars united, maps merged by merge key."""
    if not original and not patch:
        return original
    is_map = element_kind(original, patch) is dict
    if not is_map:
        merged = dedupe_scalars(original + patch)
    else:
        if not merge_key:
            raise PatchError("cannot merge lists without merge key for type map")
        original, patch = _special_elements(original, patch, merge_key)
        merged = _merge_by_key(original, patch, merge_key, schema)
    inside, outside = partition(merged, patch, merge_key)
    return normalize_element_order(inside, outside, patch, original, merge_key, is_map)


def _special_elements(original: list[Any], patch: list[Any],
                      merge_key: str) -> tuple[list[Any], list[Any]]:
    """mergeSliceWithSpecialElements: apply `$patch` items; (original, plain patch items)."""
    plain: list[Any] = []
    replace_all = False
    for item in patch:
        directive = item.get(DIRECTIVE, _MISSING)
        if directive is _MISSING:
            plain.append(item)
        elif directive == DELETE:
            key = merge_key_value(item, merge_key)
            original = [v for v in original if not (isinstance(v, dict) and merge_key in v
                                                    and same(v[merge_key], key))]
        elif directive == REPLACE:
            replace_all = True
        elif directive == MERGE:
            raise PatchError("merging lists cannot yet be specified in the patch")
        else:
            raise PatchError(f"Unknown patch type: {directive} in map: {item}")
    return (plain, []) if replace_all else (original, plain)


def _merge_by_key(original: list[Any], patch: list[Any], merge_key: str,
                  schema: Schema | None) -> list[Any]:
    merged = list(original)
    for item in patch:
        position = find(merged, merge_key, merge_key_value(item, merge_key))
        if position >= 0:
            merged[position] = merge_map(merged[position], item, schema)
        else:
            merged.append(item)
    return merged
