"""Three-way strategic merge patch, as k8s.io/apimachinery's
strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, overwrite=true)
builds it for Helm's client-side apply.

The patch is the difference from `current` (live) to `modified` (the new
manifest) without deletions, plus the deletions from `original` (the previous
release's manifest) to `modified`; the second is merged into the first the way
apimachinery merges two patches. Fields nobody in the chart ever set
(defaults, other managers' additions) stay; fields dropped from the chart go.

Lists follow the field's patch metadata from the server's OpenAPI:
- strategy `merge` with a merge key: items matched by key, changed items carry
  only their changes plus the key, dropped ones `{key: v, $patch: delete}`,
  and `$setElementOrder/<field>` gives the chart's order;
- strategy `merge` on primitives: added values, `$deleteFromPrimitiveList/<field>`
  for removed ones, `$setElementOrder/<field>`;
- `retainKeys`: `$retainKeys` lists the keys the object keeps (others cleared);
- `replace` or none: the whole value when it differs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from runner.kube.patch import combine
from runner.kube.patch.directives import (
    DELETE,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    MERGE,
    REPLACE,
    RETAIN_KEYS_DIRECTIVE,
    SET_ELEMENT_ORDER,
    element_kind,
    field,
    items,
    strategy,
)
from runner.kube.patch.errors import PatchError
from runner.kube.patch.openapi import Schema
from runner.kube.patch.order import merge_key_value, normalize_slice_order
from runner.kube.patch.values import (
    dedupe_scalars,
    deep_equal,
    go_sort,
    go_str,
    normalize,
    same,
)

JSONMap = dict[str, Any]


@dataclass(frozen=True)
class DiffOptions:
    set_element_order: bool = True
    ignore_changes_and_additions: bool = False
    ignore_deletions: bool = False
    build_retain_keys: bool = False


def create_three_way_merge_patch(original: JSONMap | None, modified: JSONMap,
                                 current: JSONMap | None, schema: Schema | None) -> JSONMap:
    """The strategic merge patch taking `current` to `modified`, deleting what
    `original` had and `modified` dropped. `schema` None: no patch metadata."""
    before, after, live = normalize(original or {}), normalize(modified), normalize(current or {})
    delta = diff_maps(live, after, schema, DiffOptions(ignore_deletions=True))
    deletions = diff_maps(before, after, schema, DiffOptions(ignore_changes_and_additions=True))
    return combine.merge_map(deletions, delta, schema)


def diff_maps(original: JSONMap, modified: JSONMap, schema: Schema | None,
              options: DiffOptions) -> JSONMap:
    """diffMaps: the patch that takes `original` to `modified` under `options`."""
    patch: JSONMap = {}
    retain: list[str] = []
    for key, value in modified.items():
        if options.build_retain_keys and value is not None:
            retain.append(key)
        _diff_key(key, original, value, patch, schema, options)
    if not options.ignore_deletions:
        patch.update({key: None for key in original if key not in modified})
    if retain and (patch or _has_additional_new_field(original, modified)):
        patch[RETAIN_KEYS_DIRECTIVE] = go_sort(retain, go_str)
    return patch


def _diff_key(key: str, original: JSONMap, value: Any, patch: JSONMap, schema: Schema | None,
              options: DiffOptions) -> None:
    if key not in original:
        if not options.ignore_changes_and_additions:
            patch[key] = value
        return
    before = original[key]
    if key == DIRECTIVE:
        if not isinstance(before, str) or not isinstance(value, str):
            raise PatchError(f"invalid value for special key: {DIRECTIVE}")
        if before != value:
            patch[key] = value
    elif type(before) is not type(value):
        if not options.ignore_changes_and_additions:
            patch[key] = value
    elif isinstance(before, dict):
        _diff_map_field(key, before, value, patch, schema, options)
    elif isinstance(before, list):
        _diff_list_field(key, before, value, patch, schema, options)
    else:
        _replace_if_unequal(key, before, value, patch, options)


def _diff_map_field(key: str, before: JSONMap, after: JSONMap, patch: JSONMap,
                    schema: Schema | None, options: DiffOptions) -> None:
    sub, meta = field(schema, key)
    retain, kind = strategy(meta)
    if kind == REPLACE:
        if not options.ignore_changes_and_additions:
            patch[key] = after
        return
    value = diff_maps(before, after, sub, replace(options, build_retain_keys=retain))
    if value:
        patch[key] = value


def _diff_list_field(key: str, before: list[Any], after: list[Any], patch: JSONMap,
                     schema: Schema | None, options: DiffOptions) -> None:
    sub, meta = field(schema, key)
    retain, kind = strategy(meta)
    if kind != MERGE:
        _replace_if_unequal(key, before, after, patch, options)
        return
    options = replace(options, build_retain_keys=retain)
    added, deleted, order = diff_lists(before, after, items(sub), meta.merge_key, options)
    if added:
        patch[key] = added
    if deleted:
        patch[f"{DELETE_FROM_PRIMITIVE_LIST}/{key}"] = deleted
    if order:
        patch[f"{SET_ELEMENT_ORDER}/{key}"] = order


def _replace_if_unequal(key: str, before: Any, after: Any, patch: JSONMap,
                        options: DiffOptions) -> None:
    if not options.ignore_changes_and_additions and not deep_equal(before, after):
        patch[key] = after


def _has_additional_new_field(original: JSONMap, modified: JSONMap) -> bool:
    return any(v is not None and k not in modified for k, v in original.items())


def diff_lists(original: list[Any], modified: list[Any], schema: Schema | None, merge_key: str,
               options: DiffOptions) -> tuple[list[Any], list[Any], list[Any]]:
    """diffLists: (patch list, primitive deletion list, $setElementOrder list)."""
    if not original:
        if not modified or options.ignore_changes_and_additions:
            return [], [], []
        return modified, [], []
    if element_kind(original, modified) is dict:
        return _diff_lists_of_maps(original, modified, schema, merge_key, options)
    added, deleted, sorted_original = _diff_lists_of_scalars(original, modified, options)
    added = normalize_slice_order(added, modified, merge_key, False)
    # apimachinery sorts `original` in place before this comparison.
    changed = not deep_equal(sorted_original, modified)
    wants_order = ((not options.ignore_deletions and deleted)
                   or (not options.ignore_changes_and_additions and changed))
    return added, deleted, modified if options.set_element_order and wants_order else []


def _diff_lists_of_maps(original: list[Any], modified: list[Any], schema: Schema | None,
                        merge_key: str, options: DiffOptions) -> tuple[list[Any], list[Any], list[Any]]:
    changed, deleted = _pair_maps(original, modified, schema, merge_key, options)
    changed = normalize_slice_order(changed, modified, merge_key, True)
    order_same = len(original) == len(modified) and all(
        same(merge_key_value(a, merge_key), merge_key_value(b, merge_key))
        for a, b in zip(original, modified, strict=True))
    changed += deleted
    wants_order = ((not options.ignore_changes_and_additions and (changed or not order_same))
                   or (not options.ignore_deletions and changed))
    if not (options.set_element_order and wants_order):
        return changed, [], []
    return changed, [], [{merge_key: item.get(merge_key)} for item in modified]


def _pair_maps(original: list[Any], modified: list[Any], schema: Schema | None, merge_key: str,
               options: DiffOptions) -> tuple[list[Any], list[Any]]:
    """diffListsOfMaps: a merge join of both lists sorted by merge key string."""
    before = _sort_maps(original, merge_key)
    after = _sort_maps(modified, merge_key)
    patch: list[Any] = []
    deleted: list[Any] = []
    i = j = 0
    while i < len(before) or j < len(after):
        left = go_str(merge_key_value(before[i], merge_key)) if i < len(before) else None
        right = go_str(merge_key_value(after[j], merge_key)) if j < len(after) else None
        if left is not None and left == right:
            value = diff_maps(before[i], after[j], schema, options)
            if value:
                value[merge_key] = after[j][merge_key]
                patch.append(value)
            i, j = i + 1, j + 1
        elif right is not None and (left is None or left > right):
            if not options.ignore_changes_and_additions:
                patch.append(after[j])
            j += 1
        else:
            if not options.ignore_deletions:
                deleted.append({merge_key: before[i][merge_key], DIRECTIVE: DELETE})
            i += 1
    return patch, deleted


def _sort_maps(values: list[Any], merge_key: str) -> list[Any]:
    for value in values:
        if not isinstance(value, dict):
            raise PatchError(f"expected a map, found {value!r}")
    return go_sort(values, lambda v: go_str(v.get(merge_key)))


def _diff_lists_of_scalars(original: list[Any], modified: list[Any],
                           options: DiffOptions) -> tuple[list[Any], list[Any], list[Any]]:
    """diffListsOfScalars: (added, deleted, original sorted) by `%v` strings."""
    before = go_sort(original, go_str)
    after = go_sort(modified, go_str)
    added: list[Any] = []
    deleted: list[Any] = []
    i = j = 0
    while i < len(before) or j < len(after):
        left = go_str(before[i]) if i < len(before) else None
        right = go_str(after[j]) if j < len(after) else None
        if left is not None and left == right:
            i, j = i + 1, j + 1
        elif right is not None and (left is None or left > right):
            if not options.ignore_changes_and_additions:
                added.append(after[j])
            j += 1
        else:
            if not options.ignore_deletions:
                deleted.append(before[i])
            i += 1
    return added, dedupe_scalars(deleted), before
