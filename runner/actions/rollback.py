"""`rollback [REVISION]`: Helm 4.1.4's Rollback.Run.

A new revision is written with the target revision's chart, values,
manifest and hooks ("Rollback to N"); auto apply method follows the target
revision's apply_method (runner.release.applymethod); every deployed record
becomes superseded.
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.actions.apply_steps import preflight
from runner.actions.hooks import run_hooks
from runner.actions.release_config import (
    DEFAULT_TIMEOUT,
    ActionConfig,
    now,
    recover_stranded,
    validate_name,
)
from runner.actions.results import ReleaseResult
from runner.errors import CANCELED, RunnerError
from runner.kube.cluster import Lock
from runner.kube.ownership import set_release_metadata
from runner.release.applymethod import csa_force_explanation, method_for, resolve_server_side
from runner.release.record import (
    DEPLOYED,
    FAILED,
    PENDING_ROLLBACK,
    PENDING_STATUSES,
    SUPERSEDED,
    Info,
    Release,
)
from runner.release.storage import ReleaseNotFoundError
from runner.release.storage.storage import DEFAULT_HISTORY_MAX


@dataclass
class RollbackOptions:
    name: str
    revision: int = 0  # 0: the one before the latest
    server_side: str = "auto"
    force_conflicts: bool = False
    cleanup_on_fail: bool = False
    history_max: int = DEFAULT_HISTORY_MAX
    dry_run: bool = False
    wait: bool = False
    wait_strategy: str = "watcher"  # watcher | legacy (Helm 4 --wait=...)
    wait_for_jobs: bool = False
    timeout: float = DEFAULT_TIMEOUT
    no_hooks: bool = False
    wait_for_lock: float = 0.0


class RollbackError(RunnerError):
    pass


def rollback(cfg: ActionConfig, opts: RollbackOptions) -> ReleaseResult:
    validate_name(opts.name)
    if opts.revision < 0:
        raise RollbackError("invalid release revision")
    with cfg.locked(opts.name, opts.wait_for_lock) as lock:
        return rollback_locked(cfg, opts, lock)


def rollback_locked(cfg: ActionConfig, opts: RollbackOptions, lock: Lock | None) -> ReleaseResult:
    """The rollback, while the caller holds the release's lock (rollback itself, or an
    upgrade rolling back on failure)."""
    cfg.debug("preparing rollback", name=opts.name)
    try:
        current = cfg.storage.last(opts.name)
    except ReleaseNotFoundError as err:
        raise RollbackError("release: not found") from err
    notes = []
    if current.info.status in PENDING_STATUSES:
        recover_stranded(cfg, current, lock, opts.timeout)
        notes.append(f"revision {current.version} was left pending by an abandoned operation; "
                     "marked failed")
    wanted = opts.revision or current.version - 1
    if wanted not in {head.version for head in cfg.storage.heads(opts.name)}:
        raise RollbackError(f"release has no {wanted} version")
    cfg.debug("rolling back", name=opts.name, currentVersion=current.version, targetVersion=wanted)
    previous = cfg.storage.get(opts.name, wanted)
    server_side = resolve_server_side(opts.server_side, previous.apply_method)
    if opts.force_conflicts and not server_side:
        notes.append(csa_force_explanation(previous.apply_method, "target revision's"))
    target = Release(
        name=opts.name, namespace=current.namespace, version=current.version + 1,
        chart=previous.chart, config=previous.config, manifest=previous.manifest,
        hooks=previous.hooks, labels=dict(previous.labels),
        info=Info(status=PENDING_ROLLBACK, first_deployed=current.info.first_deployed,
                  last_deployed=now(), notes=previous.info.notes,
                  description=f"Rollback to {wanted}"),
        apply_method=method_for(server_side),
    )
    result = ReleaseResult(target, dry_run="client" if opts.dry_run else "", notes=notes)
    if opts.dry_run:
        return result
    if server_side and not opts.force_conflicts:
        _preflight(cfg, target)
    cfg.debug("creating rolled back release", name=opts.name)
    cfg.storage.create(target, history_max=opts.history_max)
    try:
        _perform(cfg, opts, current, target, server_side, result)
    except KeyboardInterrupt:
        # Stopped by a signal (Helm's rollback has no handler and leaves the record pending):
        # recorded failed, so the next operation need not wait for --timeout to pass.
        target.info.status = FAILED
        target.info.description = f'Rollback "{target.name}" failed: {CANCELED}'
        cfg.storage.update(target)
        raise
    cfg.debug("updating status for rolled back release", name=opts.name)
    cfg.storage.update(target)
    return result


def _preflight(cfg: ActionConfig, target: Release) -> None:
    """Beyond Helm: every SSA conflict reported at once, before the record or any object changes."""
    cluster = cfg.require_cluster()
    resources = cluster.build(target.manifest, target.namespace)
    set_release_metadata(resources, target.name, target.namespace)
    preflight(cluster, resources, migrating_from_csa=True)


def _perform(cfg: ActionConfig, opts: RollbackOptions, current: Release, target: Release,
             server_side: bool, result: ReleaseResult) -> None:
    cfg.debug("performing rollback", name=target.name)
    cluster = cfg.require_cluster()
    old = cluster.build(current.manifest, current.namespace)
    new = cluster.build(target.manifest, target.namespace)
    if not opts.no_hooks:
        run_hooks(cluster, target, "pre-rollback", server_side=server_side, timeout=opts.timeout,
                  record=cfg.storage.update)
    set_release_metadata(new, target.name, target.namespace)
    try:
        applied = cluster.update(old, new, server_side=server_side, force=opts.force_conflicts,
                                 upgrade_csa_manager=server_side, three_way_for_custom=False)
    except RunnerError as err:
        message = f'Rollback "{target.name}" failed: {err}'
        current.info.status, target.info.status = SUPERSEDED, FAILED
        target.info.description = message
        cfg.storage.update(current)
        cfg.storage.update(target)
        raise RollbackError(str(err)) from err
    result.add(applied)
    if opts.wait:
        try:
            cluster.wait(new, opts.timeout, strategy=opts.wait_strategy, jobs=opts.wait_for_jobs)
        except RunnerError as err:
            target.info.status = FAILED
            target.info.description = f'Release "{target.name}" failed: {err}'
            cfg.storage.update(current)
            cfg.storage.update(target)
            raise RollbackError(f"release {target.name} failed: {err}") from err
    if not opts.no_hooks:
        run_hooks(cluster, target, "post-rollback", server_side=server_side, timeout=opts.timeout,
                  record=cfg.storage.update)
    for head in cfg.storage.heads(target.name):
        if head.status == DEPLOYED:
            cfg.debug("superseding previous deployment", version=head.version)
            record = cfg.storage.get(target.name, head.version)
            record.info.status = SUPERSEDED
            cfg.storage.update(record)
    target.info.status = DEPLOYED
