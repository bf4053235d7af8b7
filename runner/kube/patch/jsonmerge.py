"""RFC 7386 JSON merge patches as Helm builds them for custom resources.

- `create_merge_patch(original, modified)`: evanphx/json-patch CreateMergePatch,
  the two-way patch Helm sends by default (`threeWayMergeForUnstructured` off).
- `create_three_way_json_merge_patch(original, modified, current)`:
  k8s.io/apimachinery jsonmergepatch.CreateThreeWayJSONMergePatch, which Helm
  uses when taking ownership: additions and changes from current to modified,
  deletions from original to modified, with kubectl's preconditions (apiVersion,
  kind and metadata.name unchanged).

Lists are replaced whole; numbers compare as numbers (encoding/json float64).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from runner.kube.patch.errors import PatchError
from runner.kube.patch.values import normalize

JSONMap = dict[str, Any]
Precondition = Callable[[JSONMap], bool]


def require_key_unchanged(key: str) -> Precondition:
    return lambda patch: key not in patch


def require_metadata_key_unchanged(key: str) -> Precondition:
    def check(patch: JSONMap) -> bool:
        meta = patch.get("metadata")
        return not isinstance(meta, dict) or key not in meta
    return check


# kubectl's apply preconditions, which Helm passes (pkg/kube/client.go createPatch).
HELM_PRECONDITIONS = (require_key_unchanged("apiVersion"), require_key_unchanged("kind"),
                      require_metadata_key_unchanged("name"))


def create_merge_patch(original: Mapping[str, Any] | None, modified: Mapping[str, Any]) -> JSONMap:
    """The merge patch taking `original` to `modified` (null deletes a key)."""
    return _diff(normalize(original or {}), normalize(modified))


def create_three_way_json_merge_patch(
        original: Mapping[str, Any] | None, modified: Mapping[str, Any],
        current: Mapping[str, Any] | None,
        preconditions: tuple[Precondition, ...] = HELM_PRECONDITIONS) -> JSONMap:
    """Changes current -> modified (no deletions) merged onto deletions original -> modified."""
    before, after, live = normalize(original or {}), normalize(modified), normalize(current or {})
    changes = keep_or_delete_null(_diff(live, after), keep_null=False)
    deletions = keep_or_delete_null(_diff(before, after), keep_null=True)
    if has_conflicts(changes, deletions):
        raise PatchError(f"patch:\n{json.dumps(changes)}\nconflicts with changes made from original "
                         f"to current:\n{json.dumps(deletions)}\n")
    patch = _merge_docs(deletions, changes)
    for check in preconditions:
        if not check(patch):
            raise PatchError(f"precondition failed for: {json.dumps(patch)}: at least one field "
                             "was changed: apiVersion, kind or name")
    return patch


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def json_equal(a: Any, b: Any) -> bool:
    """Equality of encoding/json values (numbers are float64)."""
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(json_equal(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _diff(a: JSONMap, b: JSONMap) -> JSONMap:
    """evanphx getDiff: changed and added keys of `b`, null for keys `b` lacks."""
    into: JSONMap = {}
    for key, after in b.items():
        if key not in a or _kind(a[key]) != _kind(after):
            into[key] = after
        elif isinstance(after, dict):
            nested = _diff(a[key], after)
            if nested:
                into[key] = nested
        elif not json_equal(a[key], after):
            into[key] = after
    into.update({key: None for key in a if key not in b})
    return into


def keep_or_delete_null(patch: JSONMap, keep_null: bool) -> JSONMap:
    """keepOrDeleteNullInObj: only the nulls (deletions) or all but the nulls."""
    out: JSONMap = {}
    for key, value in patch.items():
        if value is None:
            if keep_null:
                out[key] = None
        elif isinstance(value, dict) and not value:
            if not keep_null:
                out[key] = value  # an explicit empty map is a value
        elif isinstance(value, dict):
            nested = keep_or_delete_null(value, keep_null)
            if nested:
                out[key] = nested
        elif not keep_null:
            out[key] = value
    return out


def has_conflicts(left: Any, right: Any) -> bool:
    """mergepatch.HasConflicts: keys both sides set differently."""
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return True
        return any(has_conflicts(v, right[k]) for k, v in left.items() if k in right)
    if isinstance(left, list):
        if not isinstance(right, list) or len(left) != len(right):
            return True
        return any(has_conflicts(x, y) for x, y in zip(left, right, strict=True))
    return not (type(left) is type(right) and left == right)


def _merge_docs(doc: JSONMap, patch: JSONMap) -> JSONMap:
    """evanphx MergePatch(doc, patch) on objects: RFC 7386 with nulls pruned."""
    for key, value in patch.items():
        if value is None:
            doc.pop(key, None)
        elif isinstance(doc.get(key), dict) and isinstance(value, dict):
            doc[key] = _merge_docs(doc[key], value)
        else:
            doc[key] = _prune_nulls(value)
    return doc


def _prune_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _prune_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_prune_nulls(v) for v in value]
    return value
