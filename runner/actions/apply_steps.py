"""Rules shared by install, upgrade and rollback around applying: the SSA conflict
preflight and a chart's CRDs (Install.Run's installCRDs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.actions.journal import Journal
from runner.actions.release_config import ActionConfig
from runner.kube.apply import FIELD_MANAGER, ApplyConflictError
from runner.kube.cluster import Cluster
from runner.kube.resources import ManifestBuildError, Resource


def preflight(cluster: Cluster, resources: Sequence[Resource], *,
              migrating_from_csa: bool = False) -> None:
    """Dry-run every server-side apply first: the conflicts, in Helm's words, stop the run
    before anything is written (Helm writes the record and the other objects first).
    When moving a release from client-side apply, our own `helm` Update entries are
    folded into the Apply entry before applying, so they are not conflicts."""
    # An object known to be absent has no field managers, so it cannot conflict.
    conflicts = cluster.preflight([r for r in resources if r.exists is not False],
                                  ignore_manager=FIELD_MANAGER if migrating_from_csa else "")
    if conflicts:
        raise ApplyConflictError(conflicts)


def build(cluster: Cluster, manifest: str, namespace: str, *, validate: bool = False,
          context: str = "") -> list[Resource]:
    """Cluster.build, a failure worded as the action calling Helm's Build wraps it
    (`context`: `unable to build kubernetes objects from release manifest`, ...)."""
    try:
        return cluster.build(manifest, namespace, validate=validate)
    except ManifestBuildError as err:
        raise ManifestBuildError(f"{context}: {err}" if context else str(err)) from err


def chart_crds(chart: Any) -> list[tuple[str, str]]:
    """(name, manifest) of every file of the chart tree's crds/ directories, in Helm's
    order; the name as Helm's errors give it (`crds/x.yaml`, relative to its chart)."""
    return [(file.name, file.data.decode("utf-8", "replace")) for _, file in chart.crd_objects()]


def install_chart_crds(cfg: ActionConfig, journal: Journal, chart: Any, *, dry_run: str, skip: bool,
                       server_side: bool, force: bool, strategy: str) -> None:
    """Install.Run's CRD step, before the chart is rendered (so .Capabilities and lookup
    see the CRDs): with a cluster to talk to (not --dry-run=client) and unless
    --skip-crds, a server dry run only warns; otherwise the crds/ files are created, or
    server-side applied (so an existing CRD is brought to the chart's version), then
    waited for by `strategy`'s waiter (Helm's --wait; hookOnly waits for nothing)."""
    crds = chart_crds(chart)
    if skip or not crds or dry_run == "client":
        return
    if dry_run:
        from runner.actions.template import CRDS_ON_DRY_RUN
        from runner.golang.slog import text_line

        journal.warn(text_line("WARN", CRDS_ON_DRY_RUN))
        return
    cfg.require_cluster().install_crds(crds, server_side=server_side, force=force, strategy=strategy)
