"""List order in strategic merge patches: normalizeSliceOrder, normalizeElementOrder,
mergeSortedSlice and the partitions by presence (apimachinery strategicpatch)."""

from __future__ import annotations

from typing import Any

from runner.kube.patch.directives import DELETE, DIRECTIVE
from runner.kube.patch.errors import PatchError
from runner.kube.patch.values import same


def merge_key_value(item: Any, merge_key: str) -> Any:
    if not isinstance(item, dict):
        raise PatchError(f"expected a map, found {item!r}")
    if merge_key not in item:
        raise PatchError(f"map: {item} does not contain declared merge key: {merge_key}")
    return item[merge_key]


def index(values: list[Any], wanted: Any, merge_key: str, is_map: bool) -> int:
    """Position of `wanted` in `values` (by merge key for maps), or -1."""
    def key(item: Any) -> Any:
        if not is_map:
            return item
        return item.get(merge_key) if isinstance(item, dict) else None

    target = key(wanted)
    return next((i for i, v in enumerate(values) if same(key(v), target)), -1)


def normalize_slice_order(to_sort: list[Any], order: list[Any], merge_key: str,
                          is_map: bool) -> list[Any]:
    """Sort by position in `order`; `$patch: delete` items go last, in their order."""
    to_delete: list[Any] = []
    if is_map:
        for item in to_sort + order:
            merge_key_value(item, merge_key)
        to_delete = [v for v in to_sort if v.get(DIRECTIVE) == DELETE]
        to_sort = [v for v in to_sort if v.get(DIRECTIVE) != DELETE]
    ranked = sorted(to_sort, key=lambda v: index(order, v, merge_key, is_map))
    return ranked + to_delete


def normalize_element_order(patch: list[Any], server_only: list[Any], patch_order: list[Any],
                            server_order: list[Any], merge_key: str, is_map: bool) -> list[Any]:
    """Patch items in the patch's order, server-only items interleaved by the live order."""
    patch = normalize_slice_order(patch, patch_order, merge_key, is_map)
    server_only = normalize_slice_order(server_only, server_order, merge_key, is_map)
    return merge_sorted(server_only, patch, server_order, merge_key, is_map)


def merge_sorted(left: list[Any], right: list[Any], server_order: list[Any], merge_key: str,
                 is_map: bool) -> list[Any]:
    """mergeSortedSlice: a left item goes first only when both sit in server_order, left earlier."""
    out: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if j < len(right) and (i >= len(left) or not _before(left[i], right[j], server_order,
                                                                 merge_key, is_map)):
            out.append(right[j])
            j += 1
        else:
            out.append(left[i])
            i += 1
    return out


def _before(left: Any, right: Any, order: list[Any], merge_key: str, is_map: bool) -> bool:
    li = index(order, left, merge_key, is_map)
    ri = index(order, right, merge_key, is_map)
    return li >= 0 and ri >= 0 and li < ri


def partition(values: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """(items present in `by`, the others); maps by merge key, primitives by value."""
    if not merge_key:
        present = [v for v in values if any(same(v, b) for b in by)]
        return present, [v for v in values if not any(same(v, b) for b in by)]
    inside: list[Any] = []
    outside: list[Any] = []
    for value in values:
        key = merge_key_value(value, merge_key)
        found = any(_matches(b, merge_key, key) for b in by)
        (inside if found else outside).append(value)
    return inside, outside


def find(values: list[Any], merge_key: str, key: Any) -> int:
    """findMapInSliceBasedOnKeyValue: index of the first map whose merge key equals `key`."""
    return next((i for i, v in enumerate(values) if _matches(v, merge_key, key)), -1)


def _matches(item: Any, merge_key: str, key: Any) -> bool:
    if not isinstance(item, dict):
        raise PatchError(f"value for key {merge_key} is not a map.")
    return merge_key in item and same(item[merge_key], key)
