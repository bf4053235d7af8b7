"""Rules shared by install, upgrade and rollback around applying: the SSA conflict
preflight and a chart's CRDs."""

from __future__ import annotations

from collections.abc import Sequence

from runner.kube.apply import FIELD_MANAGER, ApplyConflictError
from runner.kube.cluster import Cluster
from runner.kube.resources import Resource

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def preflight(cluster: Cluster, resources: Sequence[Resource], *,
              migrating_from_csa: bool = False) -> None:
    """Dry-run every server-side apply first: all conflicts reported, nothing written.
    When moving a release from client-side apply, our own `helm` Update entries are
    folded into the Apply entry before applying, so they are not conflicts."""
    # An object known to be absent has no field managers, so it cannot conflict.
    conflicts = cluster.preflight([r for r in resources if r.exists is not False])
    if migrating_from_csa:
        conflicts = [c for c in conflicts if c.manager != FIELD_MANAGER]
    if conflicts:
        raise ApplyConflictError(conflicts)


def chart_crds(chart: Any) -> list[str]:
    """The manifests of a chart's crds/ directories (created before anything else, never
    updated: Helm)."""
    return [file.data.decode("utf-8", "replace") for _, file in chart.crd_objects()]
