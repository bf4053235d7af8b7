"""`uninstall`: Helm 4.1.4's Uninstall.Run.

Resources are deleted in Helm's uninstall order, except those annotated
helm.sh/resource-policy: keep; records are purged unless --keep-history,
which leaves the last one as "uninstalled".
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.actions import evidence
from runner.actions.hook_logs import HookObserver
from runner.actions.hooks import run_hooks
from runner.actions.journal import Journal
from runner.actions.release_config import DEFAULT_TIMEOUT, ActionConfig, now, validate_name
from runner.actions.results import UninstallResult
from runner.errors import RunnerError
from runner.kube import operations, wait
from runner.kube.resources import uninstall_sorted
from runner.release.record import SERVER_SIDE_APPLY, UNINSTALLED, UNINSTALLING, Release
from runner.release.storage import ReleaseNotFoundError


@dataclass
class UninstallOptions:
    name: str
    keep_history: bool = False
    cascade: str = "background"
    no_hooks: bool = False
    dry_run: bool = False
    wait: bool = False
    wait_strategy: str = "watcher"  # watcher | legacy (Helm 4 --wait=...)
    timeout: float = DEFAULT_TIMEOUT
    ignore_not_found: bool = False
    description: str = ""
    wait_for_lock: float = 0.0


class UninstallError(RunnerError):
    pass


def uninstall(cfg: ActionConfig, journal: Journal, opts: UninstallOptions) -> UninstallResult | None:
    if opts.cascade not in operations.CASCADE_POLICIES:
        raise UninstallError(f'invalid cascade value ({opts.cascade}). Must be "background", '
                             '"foreground", or "orphan"')
    validate_name(opts.name)
    heads = cfg.storage.heads(opts.name)
    if not heads:
        if opts.ignore_not_found:
            return None
        raise UninstallError(f"uninstall: Release not loaded: {opts.name}: release: not found")
    release = cfg.storage.get(opts.name, heads[0].version)
    if opts.dry_run:
        return UninstallResult(release)
    with cfg.locked(opts.name, journal, opts.wait_for_lock):
        if release.info.status == UNINSTALLED:
            if opts.keep_history:
                raise UninstallError(f'the release named "{opts.name}" is already deleted')
            _purge(cfg, journal, opts.name)
            return UninstallResult(release)
        journal.redactor.add_release(release)
        with evidence.on_error(journal):
            return _perform(cfg, journal, opts, release)


def _perform(cfg: ActionConfig, journal: Journal, opts: UninstallOptions, release: Release) -> UninstallResult:
    journal.debug("uninstall: deleting release", name=release.name)
    cluster = cfg.require_cluster()
    release.info.status = UNINSTALLING
    release.info.deleted = now()
    release.info.description = "Deletion in progress (or silently failed)"
    result = UninstallResult(release)
    server_side = release.apply_method == SERVER_SIDE_APPLY
    observer, first_log = HookObserver(journal, cluster), len(journal.hook_logs)
    if not opts.no_hooks:
        run_hooks(cluster, release, "pre-delete", server_side=server_side, timeout=opts.timeout,
                  record=cfg.storage.update, observer=observer, strategy=wait.in_effect(opts.wait, opts.wait_strategy))
    cfg.storage.update(release)
    resources = uninstall_sorted(cluster.build(release.manifest, release.namespace, validate=False))
    doomed = []
    for resource in resources:
        if operations.has_keep_policy(resource, exact=False):
            result.kept.append(resource.ref())
        else:
            doomed.append(resource)
    if result.kept:
        result.info = ("These resources were kept due to the resource policy:\n"
                       + "".join(f"[{k.replace('/', '] ', 1)}\n" for k in result.kept))
    deleted, result.errors = cluster.delete(doomed, opts.cascade)
    result.deleted = [r.ref() for r in deleted]
    waited: wait.WaitError | None = None  # its account of what still exists goes with the error
    if opts.wait:
        try:
            cluster.wait_deleted(deleted, opts.timeout, strategy=opts.wait_strategy)
        except wait.WaitError as err:
            result.errors.append(str(err))
            waited = err
    if not opts.no_hooks:
        run_hooks(cluster, release, "post-delete", server_side=server_side, timeout=opts.timeout,
                  record=cfg.storage.update, observer=observer, strategy=wait.in_effect(opts.wait, opts.wait_strategy))
    result.hook_logs = journal.hook_logs[first_log:]
    release.info.status = UNINSTALLED
    release.info.description = opts.description or "Uninstallation complete"
    if opts.keep_history:
        cfg.storage.update(release)
    else:
        _purge(cfg, journal, release.name)
    if result.errors:
        raise UninstallError(f"uninstallation completed with {len(result.errors)} error(s): "
                             + "; ".join(result.errors)) from waited
    return result


def _purge(cfg: ActionConfig, journal: Journal, name: str) -> None:
    journal.debug("purge requested", release=name)
    for head in cfg.storage.heads(name):
        try:
            cfg.storage.delete(name, head.version)
        except ReleaseNotFoundError:
            continue
