"""`upgrade`: Helm 4.1.4's Upgrade.Run (and --install falling back to install).

The apply method follows --server-side: true/false, or auto = the latest
record's apply_method (runner.release.applymethod). The new revision goes
through the deploy pipeline (runner.actions.deploy) as an install does.
"""

from __future__ import annotations

from runner import engine
from runner.actions.deploy import cancellable, deploy
from runner.actions.install import install
from runner.actions.journal import Journal
from runner.actions.prepare import (
    ChartInput,
    DeployRequest,
    UpgradeError,
    current_release,
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
from runner.actions.rollback import RollbackOptions, rollback_locked
from runner.errors import RunnerError, UsageError
from runner.kube.apply import ApplyResult
from runner.kube.cluster import Lock
from runner.release.applymethod import csa_force_explanation, resolve_server_side
from runner.release.record import (
    DEPLOYED,
    PENDING_STATUSES,
    SUPERSEDED,
    UNINSTALLED,
    Release,
)
from runner.release.storage import ReleaseNotFoundError


def upgrade(cfg: ActionConfig, journal: Journal, request: DeployRequest, given: ChartInput) -> ReleaseResult:
    """Upgrade `request` (its chart and values: `given`); with --install, install it when
    there is nothing (or only an uninstalled release) to upgrade."""
    own = request.upgrade
    validate_name(request.name)
    if own.force_replace and request.force_conflicts:
        raise UsageError("invalid: --force-conflicts and --force-replace are mutually exclusive")
    if request.hide_secret and not request.dry_run:
        raise UsageError("hiding Kubernetes secrets requires a dry-run mode")
    if own.install:
        state = _install_state(cfg, request.name)
        if state:
            return install(cfg, journal, request, given, replacing=state == UNINSTALLED)
    with cancellable(journal, request.name, UpgradeError):  # as Helm's upgrade handles signals
        if request.dry_run:
            return _upgrade(cfg, journal, request, given, None)
        with cfg.locked(request.name, journal, request.wait_for_lock) as lock:
            return _upgrade(cfg, journal, request, given, lock)


def _install_state(cfg: ActionConfig, name: str) -> str:
    """--install installs when there is no history ("none") or the last record is uninstalled."""
    heads = cfg.storage.heads(name)
    if not heads:
        return "none"
    return UNINSTALLED if heads[0].status == UNINSTALLED else ""


def _upgrade(cfg: ActionConfig, journal: Journal, request: DeployRequest, given: ChartInput,
             lock: Lock | None) -> ReleaseResult:
    name = request.name
    journal.debug("preparing upgrade", name=name)
    try:
        last = cfg.storage.last(name)
    except ReleaseNotFoundError as err:
        raise UpgradeError(f'"{name}" has no deployed releases') from err
    notes: list[str] = []
    if last.info.status in PENDING_STATUSES:
        if request.dry_run:
            raise PendingError()
        recover_stranded(cfg, last, lock, request.timeout)
        notes.append(f"revision {last.version} was left pending by an abandoned operation; "
                     "marked failed")
    current = current_release(cfg, last)
    chart = engine.load_chart(given.path)
    debug_dependencies(journal, chart)
    server_side = resolve_server_side(request.server_side, last.apply_method)
    journal.debug("determined release apply method", server_side_apply=server_side,
                  previous_release_apply_method=last.apply_method)
    if request.force_conflicts and not server_side:
        notes.append(csa_force_explanation(last.apply_method, "latest record's"))
    plan = prepare(cfg, journal, request, given, chart, name=name, server_side=server_side,
                   last=last, current=current)
    plan.notes = notes
    plan.on_failure = lambda err, applied: _after_failure(cfg, journal, request, plan.release, applied, err, lock)
    if not request.dry_run:
        journal.debug("performing update", name=name)
        journal.debug("creating upgraded release", name=name)
    result = deploy(cfg, journal, request, plan)
    if not request.dry_run:
        journal.debug("updating status for upgraded release", name=name)
    return result


def _after_failure(cfg: ActionConfig, journal: Journal, request: DeployRequest, failed: Release,
                   applied: ApplyResult, err: RunnerError, lock: Lock | None) -> None:
    """--cleanup-on-fail removes the objects this upgrade created; --rollback-on-failure
    rolls back (inside the lock this upgrade holds)."""
    if request.upgrade.cleanup_on_fail and applied.created:
        _, errors = cfg.require_cluster().delete(applied.created)
        if errors:
            raise UpgradeError(f"an error occurred while cleaning up resources. original upgrade "
                               f"error: {err}: unable to cleanup resources: {', '.join(errors)}") from err
    if request.rollback_on_failure:
        _roll_back_after(cfg, journal, request, failed, err, lock)


def _roll_back_after(cfg: ActionConfig, journal: Journal, request: DeployRequest, failed: Release,
                     err: RunnerError, lock: Lock | None) -> None:
    """--rollback-on-failure: back to the newest superseded/deployed revision (Helm's rule)."""
    good = [h for h in cfg.storage.heads(failed.name) if h.status in (SUPERSEDED, DEPLOYED)]
    if not good:
        raise UpgradeError("unable to find a previously successful release when attempting to "
                           f"rollback. original upgrade error: {err}") from err
    try:
        rollback_locked(cfg, journal, RollbackOptions(
            name=failed.name, revision=good[0].version, server_side=request.server_side,
            force_conflicts=request.force_conflicts, history_max=request.upgrade.history_max, wait=True,
            timeout=request.timeout, no_hooks=request.no_hooks), lock)
    except RunnerError as rollback_err:
        raise UpgradeError(f"an error occurred while rolling back the release. original upgrade "
                           f"error: {err}: {rollback_err}") from err
    raise UpgradeError(f"release {failed.name} failed, and has been rolled back due to "
                       f"rollback-on-failure being set: {err}") from err
