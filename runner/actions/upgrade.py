"""`upgrade`: Helm 4.1.4's Upgrade.Run (and --install falling back to install).

The apply method follows --server-side: true/false, or auto = the latest
record's apply_method (runner.release.applymethod). The new revision goes
through the deploy pipeline (runner.actions.deploy) as an install does.
"""

from __future__ import annotations

from dataclasses import dataclass

from runner import engine
from runner.actions.deploy import (
    DeployError,
    DeployOptions,
    Plan,
    cancellable,
    debug_dependencies,
    deploy,
    render,
)
from runner.actions.install import InstallOptions, install
from runner.actions.journal import Journal
from runner.actions.release_config import (
    ActionConfig,
    PendingError,
    merge_labels,
    now,
    recover_stranded,
    validate_name,
)
from runner.actions.results import ReleaseResult
from runner.actions.rollback import RollbackOptions, rollback_locked
from runner.errors import RunnerError, UsageError
from runner.kube.apply import ApplyResult
from runner.kube.cluster import Lock
from runner.release.applymethod import csa_force_explanation, method_for, resolve_server_side
from runner.release.record import (
    CLIENT_SIDE_APPLY,
    DEPLOYED,
    FAILED,
    PENDING_STATUSES,
    PENDING_UPGRADE,
    SUPERSEDED,
    UNINSTALLED,
    Info,
    Release,
)
from runner.release.storage import ReleaseNotFoundError
from runner.release.storage.storage import DEFAULT_HISTORY_MAX

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


@dataclass
class UpgradeOptions:
    """upgrade's own flags; the shared ones are DeployOptions."""

    install: bool = False  # -i: install when there is no release (or it was uninstalled)
    reuse_values: bool = False
    reset_values: bool = False
    reset_then_reuse_values: bool = False
    cleanup_on_fail: bool = False
    history_max: int = DEFAULT_HISTORY_MAX
    force_replace: bool = False  # --force-replace (--force): PUT instead of patch


class UpgradeError(DeployError):
    """Helm prefixes upgrade failures with UPGRADE FAILED at the CLI."""


def upgrade(cfg: ActionConfig, journal: Journal, opts: DeployOptions,
            own: UpgradeOptions | None = None) -> ReleaseResult:
    own = own or UpgradeOptions()
    validate_name(opts.name)
    if own.force_replace and opts.force_conflicts:
        raise UsageError("invalid: --force-conflicts and --force-replace are mutually exclusive")
    if opts.hide_secret and not opts.dry_run:
        raise UsageError("hiding Kubernetes secrets requires a dry-run mode")
    if own.install:
        state = _install_state(cfg, opts.name)
        if state:
            return install(cfg, journal, opts, InstallOptions(replace=state == UNINSTALLED))
    with cancellable(journal, opts.name, UpgradeError):  # as Helm's upgrade handles signals
        if opts.dry_run:
            return _upgrade(cfg, journal, opts, own, None)
        with cfg.locked(opts.name, journal, opts.wait_for_lock) as lock:
            return _upgrade(cfg, journal, opts, own, lock)


def _install_state(cfg: ActionConfig, name: str) -> str:
    """--install installs when there is no history ("none") or the last record is uninstalled."""
    heads = cfg.storage.heads(name)
    if not heads:
        return "none"
    return UNINSTALLED if heads[0].status == UNINSTALLED else ""


def _upgrade(cfg: ActionConfig, journal: Journal, opts: DeployOptions, own: UpgradeOptions,
             lock: Lock | None) -> ReleaseResult:
    from runner.actions.template import locate_chart

    journal.debug("preparing upgrade", name=opts.name)
    try:
        last = cfg.storage.last(opts.name)
    except ReleaseNotFoundError as err:
        raise UpgradeError(f'"{opts.name}" has no deployed releases') from err
    notes: list[str] = []
    if last.info.status in PENDING_STATUSES:
        if opts.dry_run:
            raise PendingError()
        recover_stranded(cfg, last, lock, opts.timeout)
        notes.append(f"revision {last.version} was left pending by an abandoned operation; "
                     "marked failed")
    current = current_release(cfg, last)
    source = locate_chart(opts.chart)
    chart = engine.load_chart(source)
    debug_dependencies(journal, chart)
    values = reuse_values(opts.values, own, chart, current)
    server_side = resolve_server_side(opts.server_side, last.apply_method)
    journal.debug("determined release apply method", server_side_apply=server_side,
              previous_release_apply_method=last.apply_method)
    if opts.force_conflicts and not server_side:
        notes.append(csa_force_explanation(last.apply_method, "latest record's"))
    revision = last.version + 1
    rendered = render(cfg, journal, opts, chart, source, values, namespace=current.namespace,
                      revision=revision, upgrade=True)
    upgraded = Release(
        name=opts.name, namespace=current.namespace, version=revision, chart=rendered.chart_json,
        config=values, manifest=rendered.manifest, hooks=rendered.hooks,
        info=Info(status=PENDING_UPGRADE, first_deployed=current.info.first_deployed,
                  last_deployed=now(), description="Preparing upgrade", notes=rendered.notes),
        apply_method=method_for(server_side),
        labels=merge_labels(last.labels, opts.labels),
    )
    if not opts.dry_run:
        journal.debug("performing update", name=opts.name)
        journal.debug("creating upgraded release", name=opts.name)
    result = deploy(cfg, journal, opts, Plan(
        upgraded, server_side, UpgradeError, previous=current,
        # Helm asks the release being replaced (the deployed one), not the latest record.
        migrating_from_csa=current.apply_method in ("", CLIENT_SIDE_APPLY) and server_side,
        force_replace=own.force_replace, history_max=own.history_max, notes=notes,
        on_failure=lambda err, applied: _after_failure(cfg, journal, opts, own, upgraded, applied,
                                                       err, lock)))
    if not opts.dry_run:
        journal.debug("updating status for upgraded release", name=opts.name)
    return result


def current_release(cfg: ActionConfig, last: Release) -> Release:
    if last.info.status == DEPLOYED:
        return last
    try:
        return cfg.storage.deployed(last.name)
    except ReleaseNotFoundError as err:
        if last.info.status in (FAILED, SUPERSEDED):
            return last
        raise UpgradeError(f'"{last.name}" has no deployed releases') from err


def reuse_values(given: dict[str, Any], own: UpgradeOptions, chart: Any,
                  current: Release) -> dict[str, Any]:
    """reuseValues: --reset-values, --reuse-values, --reset-then-reuse-values, or copy when empty."""
    from runner.chart.values import Warnings, coalesce_tables, coalesce_values

    values = dict(given)
    if own.reset_values:
        return values
    if own.reuse_values:
        if current.chart:
            chart.values = coalesce_values(stored_chart(current), dict(current.config), Warnings())
        return coalesce_tables(values, dict(current.config), Warnings())
    if own.reset_then_reuse_values:
        return coalesce_tables(values, dict(current.config), Warnings())
    if not values and current.config:
        return dict(current.config)
    return values


def stored_chart(release: Release) -> Any:
    """The previous release's chart (its metadata and values) for --reuse-values' old defaults."""
    from runner.release.chartjson import chart_from_json

    return chart_from_json(release.chart or {})


def _after_failure(cfg: ActionConfig, journal: Journal, opts: DeployOptions, own: UpgradeOptions,
                   failed: Release, applied: ApplyResult, err: RunnerError, lock: Lock | None) -> None:
    """--cleanup-on-fail removes the objects this upgrade created; --rollback-on-failure
    rolls back (inside the lock this upgrade holds)."""
    if own.cleanup_on_fail and applied.created:
        _, errors = cfg.require_cluster().delete(applied.created)
        if errors:
            raise UpgradeError(f"an error occurred while cleaning up resources. original upgrade "
                               f"error: {err}: unable to cleanup resources: {', '.join(errors)}") from err
    if opts.rollback_on_failure:
        _roll_back_after(cfg, journal, opts, own, failed, err, lock)


def _roll_back_after(cfg: ActionConfig, journal: Journal, opts: DeployOptions, own: UpgradeOptions,
                     failed: Release, err: RunnerError, lock: Lock | None) -> None:
    """--rollback-on-failure: back to the newest superseded/deployed revision (Helm's rule)."""
    good = [h for h in cfg.storage.heads(failed.name) if h.status in (SUPERSEDED, DEPLOYED)]
    if not good:
        raise UpgradeError("unable to find a previously successful release when attempting to "
                           f"rollback. original upgrade error: {err}") from err
    try:
        rollback_locked(cfg, journal, RollbackOptions(
            name=failed.name, revision=good[0].version, server_side=opts.server_side,
            force_conflicts=opts.force_conflicts, history_max=own.history_max, wait=True,
            timeout=opts.timeout, no_hooks=opts.no_hooks), lock)
    except RunnerError as rollback_err:
        raise UpgradeError(f"an error occurred while rolling back the release. original upgrade "
                           f"error: {err}: {rollback_err}") from err
    raise UpgradeError(f"release {failed.name} failed, and has been rolled back due to "
                       f"rollback-on-failure being set: {err}") from err
