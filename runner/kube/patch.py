"""Client-side apply's three-way merge (k8s jsonmergepatch.CreateThreeWayJSONMergePatch).

The patch carries the deletions between the last applied object (`original`,
from the previous release manifest) and the target, plus every change that
takes the live object to the target; fields nobody in the chart ever set
(defaults, other controllers' additions) stay as they are.

Built-in kinds get a strategic merge patch built from the server's OpenAPI
patch metadata (runner.kube.strategic), as Helm does; custom resources get a
JSON merge patch, where lists are replaced whole.
"""

from __future__ import annotations

from typing import Any

_IGNORED_LIVE = ("status",)
# API groups served by Kubernetes itself (client-go's scheme, plus apiextensions as Helm adds):
# these take strategic merge patches; everything else is a custom resource.
BUILT_IN_GROUPS = frozenset({
    "", "apps", "batch", "autoscaling", "policy", "networking.k8s.io", "rbac.authorization.k8s.io",
    "storage.k8s.io", "scheduling.k8s.io", "coordination.k8s.io", "discovery.k8s.io",
    "node.k8s.io", "certificates.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io",
    "apiregistration.k8s.io", "flowcontrol.apiserver.k8s.io", "events.k8s.io", "resource.k8s.io",
})
_IGNORED_META = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation",
                 "selfLink")


def three_way_patch(client: Any, original: dict[str, Any] | None, resource: Any,
                    live: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """(patch, strategic) for a target object; an empty patch means nothing to change."""
    target = resource.obj
    if resource.mapping.group in BUILT_IN_GROUPS:
        from runner.kube import strategic
        from runner.kube.openapi import schema_for

        node = schema_for(client, resource.api_version, resource.kind)
        if node is not None:
            return strategic.three_way(original or {}, target, _comparable(live), node), True
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
