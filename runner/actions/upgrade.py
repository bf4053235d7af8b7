"""`upgrade`: Helm 4.1.4's Upgrade.Run (and --install falling back to install).

The apply method follows --server-side: true/false, or auto = the latest
record's apply_method ("ssa" -> SSA, anything else -> client-side apply).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runner import engine
from runner.actions import apply_steps
from runner.actions.hooks import run_hooks
from runner.actions.install import InstallOptions, install
from runner.actions.release_config import (
    DEFAULT_TIMEOUT,
    ActionConfig,
    PendingError,
    RenderRequest,
    merge_labels,
    now,
    recover_stranded,
    render_release,
    validate_name,
)
from runner.actions.results import ReleaseResult, without_secrets
from runner.errors import RunnerError, UsageError
from runner.kube import operations
from runner.kube.apply import ApplyResult
from runner.kube.ownership import OwnershipError, existing_resources, set_release_metadata
from runner.kube.resources import build, difference
from runner.release.record import (
    CLIENT_SIDE_APPLY,
    DEPLOYED,
    FAILED,
    PENDING_STATUSES,
    PENDING_UPGRADE,
    SERVER_SIDE_APPLY,
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
    name: str
    chart: str
    values: dict[str, Any] = field(default_factory=dict)
    install: bool = False
    reuse_values: bool = False
    reset_values: bool = False
    reset_then_reuse_values: bool = False
    server_side: str = "auto"  # true | false | auto
    force_conflicts: bool = False
    cleanup_on_fail: bool = False
    history_max: int = DEFAULT_HISTORY_MAX
    dry_run: str = ""
    take_ownership: bool = False
    wait: bool = False
    wait_strategy: str = "watcher"  # watcher | legacy (Helm 4 --wait=...)
    wait_for_jobs: bool = False
    skip_schema_validation: bool = False
    render_subchart_notes: bool = False
    skip_crds: bool = False  # for --install falling back to an install (upgrade never applies crds/)
    timeout: float = DEFAULT_TIMEOUT
    no_hooks: bool = False
    description: str = ""
    create_namespace: bool = False
    release_history_max: int = 0
    include_history_values: bool = False
    wait_for_lock: float = 0.0
    rollback_on_failure: bool = False  # --rollback-on-failure (--atomic)
    force_replace: bool = False  # --force-replace (--force): PUT instead of patch
    hide_secret: bool = False
    labels: dict[str, str] = field(default_factory=dict)
    post_renderer: Any = None  # runner.postrender.PostRenderer (--post-renderer)


class UpgradeError(RunnerError):
    """Helm prefixes upgrade failures with UPGRADE FAILED at the CLI."""


def resolve_server_side(option: str, apply_method: str) -> bool:
    """getUpgradeServerSideValue."""
    if option == "auto":
        return apply_method == SERVER_SIDE_APPLY
    if option in ("true", "false"):
        return option == "true"
    raise UsageError(f"invalid/unknown release server-side apply method: {option}")


def upgrade(cfg: ActionConfig, opts: UpgradeOptions) -> ReleaseResult:
    validate_name(opts.name)
    if opts.force_replace and opts.force_conflicts:
        raise UsageError("invalid: --force-conflicts and --force-replace are mutually exclusive")
    if opts.hide_secret and not opts.dry_run:
        raise UsageError("hiding Kubernetes secrets requires a dry-run mode")
    if opts.install:
        state = _install_state(cfg, opts.name)
        if state:
            return install(cfg, _as_install(opts, replace=state == UNINSTALLED))
    if opts.dry_run:
        return _prepare_and_run(cfg, opts, None)
    with cfg.locked(opts.name, opts.wait_for_lock) as lock:
        return _prepare_and_run(cfg, opts, lock)


def _install_state(cfg: ActionConfig, name: str) -> str:
    """--install installs when there is no history ("none") or the last record is uninstalled."""
    heads = cfg.storage.heads(name)
    if not heads:
        return "none"
    return UNINSTALLED if heads[0].status == UNINSTALLED else ""


def _as_install(opts: UpgradeOptions, replace: bool) -> InstallOptions:
    return InstallOptions(replace=replace,
        name=opts.name, chart=opts.chart, values=opts.values, create_namespace=opts.create_namespace,
        server_side=opts.server_side != "false", force_conflicts=opts.force_conflicts,
        dry_run=opts.dry_run, take_ownership=opts.take_ownership, wait=opts.wait,
        wait_strategy=opts.wait_strategy, wait_for_jobs=opts.wait_for_jobs,
        skip_schema_validation=opts.skip_schema_validation, render_subchart_notes=opts.render_subchart_notes,
        skip_crds=opts.skip_crds, timeout=opts.timeout, no_hooks=opts.no_hooks, description=opts.description,
        release_history_max=opts.release_history_max,
        include_history_values=opts.include_history_values, wait_for_lock=opts.wait_for_lock,
        rollback_on_failure=opts.rollback_on_failure, labels=opts.labels,
        post_renderer=opts.post_renderer)


def _prepare_and_run(cfg: ActionConfig, opts: UpgradeOptions, lock: Any) -> ReleaseResult:
    from runner.actions.template import locate_chart

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
    current = _current_release(cfg, last)
    source = locate_chart(opts.chart)
    chart = engine.load_chart(source)
    values = _reuse_values(opts, chart, current)
    server_side = resolve_server_side(opts.server_side, last.apply_method)
    if opts.force_conflicts and not server_side:
        notes.append(csa_force_explanation(last.apply_method, "latest record's"))
    revision = last.version + 1
    rendered = render_release(cfg, chart, source, values, RenderRequest(
        opts.name, current.namespace, revision, True, opts.release_history_max,
        opts.include_history_values, offline=opts.dry_run == "client",
        skip_schema_validation=opts.skip_schema_validation,
        render_subchart_notes=opts.render_subchart_notes, post_renderer=opts.post_renderer))
    upgraded = Release(
        name=opts.name, namespace=current.namespace, version=revision, chart=rendered.chart_json,
        config=values, manifest=rendered.manifest, hooks=rendered.hooks,
        info=Info(status=PENDING_UPGRADE, first_deployed=current.info.first_deployed,
                  last_deployed=now(), description="Preparing upgrade", notes=rendered.notes),
        apply_method=SERVER_SIDE_APPLY if server_side else CLIENT_SIDE_APPLY,
        labels=merge_labels(last.labels, opts.labels),
    )
    result = ReleaseResult(upgraded, dry_run=opts.dry_run, notes=notes)
    _perform(cfg, opts, current, upgraded, server_side, result,
             upgrade_csa=last.apply_method != SERVER_SIDE_APPLY and server_side)
    return result


def _current_release(cfg: ActionConfig, last: Release) -> Release:
    if last.info.status == DEPLOYED:
        return last
    try:
        return cfg.storage.deployed(last.name)
    except ReleaseNotFoundError as err:
        if last.info.status in (FAILED, SUPERSEDED):
            return last
        raise UpgradeError(f'"{last.name}" has no deployed releases') from err


def _reuse_values(opts: UpgradeOptions, chart: Any, current: Release) -> dict[str, Any]:
    """reuseValues: --reset-values, --reuse-values, --reset-then-reuse-values, or copy when empty."""
    from runner.chart.values import Warnings, coalesce_tables, coalesce_values

    values = dict(opts.values)
    if opts.reset_values:
        return values
    if opts.reuse_values:
        if current.chart:
            chart.values = coalesce_values(stored_chart(current), dict(current.config), Warnings())
        return coalesce_tables(values, dict(current.config), Warnings())
    if opts.reset_then_reuse_values:
        return coalesce_tables(values, dict(current.config), Warnings())
    if not values and current.config:
        return dict(current.config)
    return values


def stored_chart(release: Release) -> Any:
    """The previous release's chart (metadata + values) for --reuse-values' old defaults."""
    from runner.chart.chartfile import decode_metadata
    from runner.chart.model import Chart

    data = release.chart or {}
    return Chart(metadata=decode_metadata(data.get("metadata") or {}, what="release chart"),
                 values=dict(data.get("values") or {}))


def csa_force_explanation(apply_method: str, whose: str) -> str:
    method = apply_method or "unset (a Helm 3 record)"
    return ("--force-conflicts has no effect here: --server-side=auto resolved to client-side "
            f"apply because the {whose} apply method is {method}; pass --server-side=true "
            "to switch this release to server-side apply (field managers are migrated).")


def _perform(cfg: ActionConfig, opts: UpgradeOptions, current: Release, upgraded: Release,
             server_side: bool, result: ReleaseResult, upgrade_csa: bool) -> None:
    if opts.hide_secret:
        upgraded.manifest = without_secrets(upgraded.manifest)
    if opts.dry_run == "client":
        upgraded.info.description = opts.description or "Dry run complete"
        return
    client = cfg.kube()
    old = build(client, current.manifest, current.namespace)
    target = build(client, upgraded.manifest, upgraded.namespace)
    set_release_metadata(target, upgraded.name, upgraded.namespace)
    try:
        adopted = existing_resources(client, difference(target, old), upgraded.name,
                                     upgraded.namespace, take_ownership=opts.take_ownership)
    except OwnershipError as err:
        raise UpgradeError(f"unable to continue with update: {err}") from err
    old += adopted
    if server_side and not opts.force_conflicts:
        apply_steps.preflight(client, target, migrating_from_csa=upgrade_csa)
    if opts.dry_run:
        upgraded.info.description = opts.description or "Dry run complete"
        result.updated = [r.ref() for r in target]
        return
    cfg.storage.create(upgraded, history_max=opts.history_max)
    applied = ApplyResult()  # fills as objects are written: --cleanup-on-fail sees partial work
    try:
        if not opts.no_hooks:
            run_hooks(client, upgraded, "pre-upgrade", server_side=server_side,
                      timeout=opts.timeout, record=cfg.storage.update)
        operations.update_all(client, old, target, server_side=server_side, force=opts.force_conflicts,
                              upgrade_csa_manager=upgrade_csa, result=applied,
                              replace=opts.force_replace)
        result.add(applied)
        if opts.wait or opts.rollback_on_failure:
            apply_steps.wait(client, target, opts.timeout, opts.wait_strategy, opts.wait_for_jobs)
        if not opts.no_hooks:
            run_hooks(client, upgraded, "post-upgrade", server_side=server_side,
                      timeout=opts.timeout, record=cfg.storage.update)
    except RunnerError as err:
        _fail(cfg, opts, upgraded, applied.created, err)
    except KeyboardInterrupt:
        # Helm's handleContext: an interrupted upgrade is recorded failed, not left pending.
        upgraded.info.status = FAILED
        upgraded.info.description = f'Upgrade "{upgraded.name}" failed: context canceled'
        cfg.storage.update(upgraded)
        raise
    current.info.status = SUPERSEDED
    cfg.storage.update(current)
    upgraded.info.status = DEPLOYED
    upgraded.info.description = opts.description or "Upgrade complete"
    cfg.storage.update(upgraded)


def _fail(cfg: ActionConfig, opts: UpgradeOptions, upgraded: Release, created: list[Any],
          err: RunnerError) -> None:
    upgraded.info.status = FAILED
    upgraded.info.description = f'Upgrade "{upgraded.name}" failed: {err}'
    cfg.storage.update(upgraded)
    if opts.cleanup_on_fail and created:
        _, errors = operations.delete_all(cfg.kube(), created)
        if errors:
            raise UpgradeError(f"an error occurred while cleaning up resources. original upgrade "
                               f"error: {err}: unable to cleanup resources: {', '.join(errors)}") from err
    if opts.rollback_on_failure:
        _roll_back_after(cfg, opts, upgraded, err)
    raise UpgradeError(str(err)) from err


def _roll_back_after(cfg: ActionConfig, opts: UpgradeOptions, failed: Release,
                     err: RunnerError) -> None:
    """--rollback-on-failure: back to the newest superseded/deployed revision (Helm's rule)."""
    from runner.actions.rollback import RollbackOptions, rollback

    good = [h for h in cfg.storage.heads(failed.name) if h.status in (SUPERSEDED, DEPLOYED)]
    if not good:
        raise UpgradeError("unable to find a previously successful release when attempting to "
                           f"rollback. original upgrade error: {err}") from err
    try:
        rollback(cfg, RollbackOptions(name=failed.name, revision=good[0].version,
                                      server_side=opts.server_side, force_conflicts=opts.force_conflicts,
                                      history_max=opts.history_max, wait=True, timeout=opts.timeout,
                                      no_hooks=opts.no_hooks))
    except RunnerError as rollback_err:
        raise UpgradeError(f"an error occurred while rolling back the release. original upgrade "
                           f"error: {err}: {rollback_err}") from err
    raise UpgradeError(f"release {failed.name} failed, and has been rolled back due to "
                       f"rollback-on-failure being set: {err}") from err
