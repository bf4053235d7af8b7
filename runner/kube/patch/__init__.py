"""Client-side apply patches, as Helm 4 builds them (pkg/kube/client.go createPatch).

One entry: `three_way_patch(original, modified, current, gvk, metadata_source)`
returns `(content_type, patch_body)`:

- kinds client-go's scheme knows (plus apiextensions.k8s.io/v1, which Helm
  registers): a three-way strategic merge patch
  (`application/strategic-merge-patch+json`) whose list semantics come from
  the API server's OpenAPI v3 patch metadata;
- custom resources (and apiextensions v1beta1 CRDs, as Helm treats them): a JSON
  merge patch (`application/merge-patch+json`); two-way original -> modified
  as Helm sends by default, three-way when `three_way_for_custom` (Helm's
  `threeWayMergeForUnstructured`, on when taking ownership without SSA).

`original` is the object from the previous release's manifest (None when
there was none), `modified` the newly rendered one, `current` the live object
as the API server returned it. An empty body means nothing to change.
`metadata_for(client)` gives the per-client OpenAPI metadata source for a
runner.kube.client.KubeClient. Nothing here imports `kubernetes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runner.kube.patch.bridge import metadata_for
from runner.kube.patch.errors import PatchError
from runner.kube.patch.jsonmerge import create_merge_patch, create_three_way_json_merge_patch
from runner.kube.patch.openapi import GroupVersionKind, OpenAPIPatchMetadata, PatchMetadataSource
from runner.kube.patch.strategic import create_three_way_merge_patch

STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
MERGE_PATCH = "application/merge-patch+json"

# API groups registered in client-go's kubernetes scheme (k8s.io/client-go/kubernetes/scheme),
# which is what decides "typed" in Helm, plus apiextensions.k8s.io that Helm adds to it.
BUILT_IN_GROUPS = frozenset({
    "", "admissionregistration.k8s.io", "apps", "authentication.k8s.io", "authorization.k8s.io",
    "autoscaling", "batch", "certificates.k8s.io", "coordination.k8s.io", "discovery.k8s.io",
    "events.k8s.io", "extensions", "flowcontrol.apiserver.k8s.io", "internal.apiserver.k8s.io",
    "networking.k8s.io", "node.k8s.io", "policy", "rbac.authorization.k8s.io", "resource.k8s.io",
    "scheduling.k8s.io", "storage.k8s.io", "storagemigration.k8s.io", "apiextensions.k8s.io",
})

__all__ = [
    "BUILT_IN_GROUPS", "MERGE_PATCH", "STRATEGIC_MERGE_PATCH", "GroupVersionKind",
    "OpenAPIPatchMetadata", "PatchError", "PatchMetadataSource", "is_strategic", "metadata_for",
    "three_way_patch",
]


def is_strategic(gvk: GroupVersionKind) -> bool:
    """Helm's choice: strategic for typed kinds; CRDs of apiextensions v1beta1 are not."""
    if gvk.group == "apiextensions.k8s.io" and gvk.version == "v1beta1":
        return False
    return gvk.group in BUILT_IN_GROUPS


def three_way_patch(original: Mapping[str, Any] | None, modified: Mapping[str, Any],
                    current: Mapping[str, Any] | None, gvk: GroupVersionKind,
                    metadata_source: PatchMetadataSource | None = None, *,
                    three_way_for_custom: bool = False) -> tuple[str, dict[str, Any]]:
    """(content type, patch body) for a client-side apply of `modified`."""
    if is_strategic(gvk):
        schema = metadata_source.schema_for(gvk) if metadata_source is not None else None
        return STRATEGIC_MERGE_PATCH, create_three_way_merge_patch(
            dict(original or {}), dict(modified), dict(current or {}), schema)
    if three_way_for_custom:
        return MERGE_PATCH, create_three_way_json_merge_patch(original, modified, current)
    return MERGE_PATCH, create_merge_patch(original, modified)
