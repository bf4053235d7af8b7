"""Client-side apply's three-way merge (k8s jsonmergepatch.CreateThreeWayJSONMergePatch).

The patch carries the deletions between the last applied object (`original`,
from the previous release manifest) and the target, plus every change that
takes the live object to the target; fields nobody in the chart ever set
(defaults, other controllers' additions) stay as they are.

Lists are replaced whole (JSON merge semantics). Helm uses a strategic merge
patch for built-in kinds, which merges lists such as containers by key; that
difference only shows when another writer added items to such a list.
"""

from __future__ import annotations

from typing import Any

_IGNORED_LIVE = ("status",)
_IGNORED_META = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation",
                 "selfLink")


def three_way_patch(client: Any, original: dict[str, Any] | None, resource: Any,
                    live: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """(patch, strategic) for a target object; an empty patch means nothing to change."""
    del client  # the OpenAPI patch metadata lookup would use it (see module docstring)
    target = resource.obj
    deletions = _deletions(original or {}, target)
    changes = _changes(_comparable(live), target)
    return _merge(deletions, changes), False


def _deletions(original: dict[str, Any], target: dict[str, Any]) -> dict[str, Any]:
    """Keys set in `original` but gone from `target` -> null (recursively for maps)."""
    out: dict[str, Any] = {}
    for key, value in original.items():
        if key not in target:
            out[key] = None
        elif isinstance(value, dict) and isinstance(target[key], dict):
            nested = _deletions(value, target[key])
            if nested:
                out[key] = nested
    return out


def _changes(live: dict[str, Any], target: dict[str, Any]) -> dict[str, Any]:
    """Every key whose target value differs from the live one (maps recursively)."""
    out: dict[str, Any] = {}
    for key, value in target.items():
        current = live.get(key, _MISSING)
        if isinstance(value, dict) and isinstance(current, dict):
            nested = _changes(current, value)
            if nested:
                out[key] = nested
        elif current != value:
            out[key] = value
    return out


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _comparable(live: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in live.items() if k not in _IGNORED_LIVE}
    meta = dict(out.get("metadata") or {})
    for key in _IGNORED_META:
        meta.pop(key, None)
    out["metadata"] = meta
    return out


_MISSING = object()
