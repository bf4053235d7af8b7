"""`install`: Helm 4.1.4's Install.Run, orchestrating chart, engine, kube and release.

Records: pending-install ("Initial install underway") before anything is
applied, then deployed ("Install complete") or failed ("Release "x" failed:
...") — the same sequence Helm writes (runner.actions.deploy runs it).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace

from runner import engine
from runner.actions.apply_steps import install_chart_crds
from runner.actions.deploy import (
    DeployError,
    DeployOptions,
    Plan,
    cancellable,
    debug_dependencies,
    deploy,
    render,
)
from runner.actions.journal import Journal
from runner.actions.release_config import (
    ActionConfig,
    PendingError,
    check_labels,
    now,
    recover_stranded,
    validate_name,
)
from runner.actions.results import ReleaseResult
from runner.errors import RunnerError
from runner.kube.apply import ApplyResult
from runner.kube.cluster import Lock
from runner.kube.crds import CRDInstallError
from runner.kube.wait import in_effect
from runner.release.applymethod import method_for, resolve_server_side
from runner.release.record import (
    FAILED,
    PENDING_INSTALL,
    PENDING_STATUSES,
    UNINSTALLED,
    Info,
    Release,
)

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any, NoReturn


@dataclass
class InstallOptions:
    """install's own flags; the shared ones are DeployOptions."""

    generate_name: bool = False  # -g: NAME is <chart>-<unix time>
    replace: bool = False  # --replace: reuse the name of a failed or uninstalled release


class InstallError(DeployError):
    """Helm prefixes install failures with INSTALLATION FAILED at the CLI."""


def install(cfg: ActionConfig, journal: Journal, opts: DeployOptions,
            own: InstallOptions | None = None) -> ReleaseResult:
    from runner.actions.template import locate_chart

    own = own or InstallOptions()
    source = locate_chart(opts.chart)
    journal.debug("Chart path", path=os.path.abspath(source))
    chart = engine.load_chart(source)
    if own.generate_name and not opts.name:
        opts = replace(opts, name=f"{chart.name()}-{int(time.time())}")
    if opts.dry_run != "client":
        cfg.check_reachable(journal.warn)
    if opts.hide_secret and not opts.dry_run:
        raise InstallError("hiding Kubernetes secrets requires a dry-run mode")
    try:
        validate_name(opts.name)
    except RunnerError as err:
        _name_check_failed(journal, err)
    debug_dependencies(journal, chart)
    with cancellable(journal, opts.name, InstallError):  # runInstall handles signals from here on
        if opts.dry_run:
            return deploy(cfg, journal, opts, _plan(cfg, journal, opts, chart, source))
        if opts.create_namespace:
            # the lock lives there, so before it (Helm creates it once the dry run is ruled out)
            cfg.require_cluster().ensure_namespace(cfg.namespace,
                                                   server_side=resolve_server_side(opts.server_side))
        with cfg.locked(opts.name, journal, opts.wait_for_lock) as lock:
            notes, retry = _check_available(cfg, journal, opts, own.replace, lock)
            plan = _plan(cfg, journal, opts, chart, source)
            plan.notes, plan.replace = notes, own.replace or retry
            return deploy(cfg, journal, opts, plan)


def _install_crds(cfg: ActionConfig, journal: Journal, opts: DeployOptions, chart: Any) -> None:
    """The chart's crds/ once its dependencies are processed, before the cluster's
    capabilities are read and it is rendered, as Helm's install (failures are the install's)."""
    try:
        install_chart_crds(cfg, journal, chart, dry_run=opts.dry_run, skip=opts.skip_crds,
                           server_side=resolve_server_side(opts.server_side),
                           force=opts.force_conflicts,
                           # the --wait strategy, before --rollback-on-failure raises hookOnly
                           strategy=in_effect(opts.wait, opts.wait_strategy))
    except CRDInstallError as err:
        raise InstallError(str(err)) from err


def _plan(cfg: ActionConfig, journal: Journal, opts: DeployOptions, chart: Any, source: str) -> Plan:
    server_side = resolve_server_side(opts.server_side)
    rendered = render(cfg, journal, opts, chart, source, opts.values, namespace=cfg.namespace,
                      revision=1, upgrade=False,
                      before_render=lambda ready: _install_crds(cfg, journal, opts, ready))
    labels = check_labels(opts.labels)
    stamp = now()
    release = Release(
        name=opts.name, namespace=cfg.namespace, version=1, chart=rendered.chart_json,
        config=opts.values, manifest=rendered.manifest, hooks=rendered.hooks,
        info=Info(status=PENDING_INSTALL, first_deployed=stamp, last_deployed=stamp,
                  description="Initial install underway", notes=rendered.notes),
        apply_method=method_for(server_side),
        labels={} if opts.dry_run else labels,  # Helm's dry-run record carries none
    )
    return Plan(release, server_side, InstallError,
                # Helm: taking objects over with client-side apply merges custom resources three-way.
                three_way_for_custom=opts.take_ownership and not server_side,
                # Install's Update of objects it adopts folds client-side managers first, always.
                migrating_from_csa=server_side,
                on_failure=(lambda err, applied: _undo(cfg, release, applied, err))
                if opts.rollback_on_failure else None)


def _check_available(cfg: ActionConfig, journal: Journal, opts: DeployOptions, replacing: bool,
                     lock: Lock | None) -> tuple[list[str], bool]:
    """availableName: a name is free when unused, or (with --replace) failed/uninstalled.
    Beyond Helm: a release whose every revision failed never ran, so installing it
    again is a clean retry (as --replace), not a name clash; a first install left
    pending by a killed run is marked failed first (see recover_stranded).
    Returns the notes to tell and whether this install is such a retry."""
    name = opts.name
    heads = cfg.storage.heads(name)
    if not heads:
        return [], False
    notes: list[str] = []
    if heads[0].status in PENDING_STATUSES:
        if heads[0].status != PENDING_INSTALL:
            raise PendingError()
        recover_stranded(cfg, cfg.storage.get(name, heads[0].version), lock, opts.timeout)
        notes.append(f"revision {heads[0].version} was left pending by an abandoned operation; "
                     "marked failed")
        heads = cfg.storage.heads(name)
    if replacing and heads[0].status in (UNINSTALLED, FAILED):
        return notes, False
    if all(head.status == FAILED for head in heads):
        return [*notes, f"retrying the failed first install of {name} "
                        f"(revision {heads[0].version} failed)"], True
    _name_check_failed(journal, InstallError("cannot reuse a name that is still in use"))


def _name_check_failed(journal: Journal, err: RunnerError) -> NoReturn:
    """availableName's failure: logged, then returned wrapped (Install.RunWithContext)."""
    from runner.golang.slog import text_line

    journal.warn(text_line("ERROR", "release name check failed", {"error": str(err)}))
    raise InstallError(f"release name check failed: {err}") from err


def _undo(cfg: ActionConfig, release: Release, applied: ApplyResult, err: RunnerError) -> None:
    """--rollback-on-failure: remove what this install created — only that: objects that
    existed before (adopted) stay — and its record."""
    _, errors = cfg.require_cluster().delete(list(reversed(applied.created)))
    cfg.storage.delete(release.name, release.version)
    if errors:
        raise InstallError(f"an error occurred while uninstalling the release. original install "
                           f"error: {err}: {'; '.join(errors)}") from err
    raise InstallError(f"release {release.name} failed, and has been uninstalled due to "
                       f"rollback-on-failure being set: {err}") from err
