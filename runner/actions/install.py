"""`install`: Helm 4.1.4's Install.Run, orchestrating chart, engine, kube and release.

Records: pending-install ("Initial install underway") before anything is
applied, then deployed ("Install complete") or failed ("Release "x" failed:
...") — the same sequence Helm writes (runner.actions.deploy runs it).
"""

from __future__ import annotations

import os
import time
from typing import Any, NoReturn

from runner import engine
from runner.actions.apply_steps import install_chart_crds
from runner.actions.deploy import cancellable, deploy
from runner.actions.journal import Journal
from runner.actions.prepare import (
    ChartInput,
    DeployRequest,
    InstallError,
    Plan,
    debug_dependencies,
    prepare,
)
from runner.actions.release_config import (
    ActionConfig,
    PendingError,
    recover_stranded,
    validate_name,
)
from runner.actions.results import ReleaseResult
from runner.errors import RunnerError
from runner.kube.apply import ApplyResult
from runner.kube.cluster import Lock
from runner.kube.crds import CRDInstallError
from runner.kube.wait import in_effect
from runner.release.applymethod import resolve_server_side
from runner.release.record import (
    FAILED,
    PENDING_INSTALL,
    PENDING_STATUSES,
    UNINSTALLED,
    Release,
)


def install(cfg: ActionConfig, journal: Journal, request: DeployRequest, given: ChartInput, *,
            replacing: bool = False) -> ReleaseResult:
    """Install `request` (its chart and values: `given`); `replacing`: upgrade --install over
    an uninstalled release (as --replace)."""
    journal.debug("Chart path", path=os.path.abspath(given.path))
    chart = engine.load_chart(given.path)
    name = request.name
    if request.install.generate_name and not name:
        name = f"{chart.name()}-{int(time.time())}"
    if request.dry_run != "client":
        cfg.check_reachable(journal.warn)
    if request.hide_secret and not request.dry_run:
        raise InstallError("hiding Kubernetes secrets requires a dry-run mode")
    try:
        validate_name(name)
    except RunnerError as err:
        _name_check_failed(journal, err)
    debug_dependencies(journal, chart)
    replace = request.install.replace or replacing
    with cancellable(journal, name, InstallError):  # runInstall handles signals from here on
        if request.dry_run:
            return deploy(cfg, journal, request, _plan(cfg, journal, request, given, chart, name))
        if request.create_namespace:
            # the lock lives there, so before it (Helm creates it once the dry run is ruled out)
            cfg.require_cluster().ensure_namespace(cfg.namespace,
                                                   server_side=resolve_server_side(request.server_side))
        with cfg.locked(name, journal, request.wait_for_lock) as lock:
            notes, retry = _check_available(cfg, journal, request, name, replace, lock)
            plan = _plan(cfg, journal, request, given, chart, name)
            plan.notes, plan.replace = notes, replace or retry
            return deploy(cfg, journal, request, plan)


def _install_crds(cfg: ActionConfig, journal: Journal, request: DeployRequest, chart: Any) -> None:
    """The chart's crds/ once its dependencies are processed, before the cluster's
    capabilities are read and it is rendered, as Helm's install (failures are the install's)."""
    try:
        install_chart_crds(cfg, journal, chart, dry_run=request.dry_run, skip=request.skip_crds,
                           server_side=resolve_server_side(request.server_side),
                           force=request.force_conflicts,
                           # the --wait strategy, before --rollback-on-failure raises hookOnly
                           strategy=in_effect(request.wait, request.wait_strategy))
    except CRDInstallError as err:
        raise InstallError(str(err)) from err


def _plan(cfg: ActionConfig, journal: Journal, request: DeployRequest, given: ChartInput, chart: Any,
          name: str) -> Plan:
    plan = prepare(cfg, journal, request, given, chart, name=name,
                   server_side=resolve_server_side(request.server_side),
                   before_render=lambda ready: _install_crds(cfg, journal, request, ready))
    if request.rollback_on_failure:
        plan.on_failure = lambda err, applied: _undo(cfg, plan.release, applied, err)
    return plan


def _check_available(cfg: ActionConfig, journal: Journal, request: DeployRequest, name: str,
                     replacing: bool, lock: Lock | None) -> tuple[list[str], bool]:
    """availableName: a name is free when unused, or (with --replace) failed/uninstalled.
    Beyond Helm: a release whose every revision failed never ran, so installing it
    again is a clean retry (as --replace), not a name clash; a first install left
    pending by a killed run is marked failed first (see recover_stranded).
    Returns the notes to tell and whether this install is such a retry."""
    heads = cfg.storage.heads(name)
    if not heads:
        return [], False
    notes: list[str] = []
    if heads[0].status in PENDING_STATUSES:
        if heads[0].status != PENDING_INSTALL:
            raise PendingError()
        recover_stranded(cfg, cfg.storage.get(name, heads[0].version), lock, request.timeout)
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
