"""The deploy pipeline that install and upgrade (and a spec's `run`) share:

    build -> ownership -> preflight -> record -> pre-hooks -> apply -> wait
          -> post-hooks -> deployed | failed

install and upgrade each prepare a Plan (the new pending record, the release it
replaces, the apply method, what to do on failure) and hand it to `deploy`.
Dry runs take the same path and stop before the record is written: with
--dry-run=client before anything talks to the cluster, with =server after the
ownership check and the conflict preflight.

Cancellation (SIGINT, SIGTERM: a KeyboardInterrupt here, runner.deepstack passes
it on) ends as Helm's does: `Release x has been cancelled.` told at once, the
release recorded failed with `context canceled` (and undone as for any failure
when asked), the error `context canceled`; the lock is released on the way out.
A spec run's deadline (runner.errors.DeadlineReached) ends the same way, with
`context deadline exceeded: ...` as the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from runner.actions import evidence
from runner.actions.apply_steps import build, preflight
from runner.actions.hook_logs import HookObserver
from runner.actions.hooks import HookError, run_hooks
from runner.actions.journal import Journal
from runner.actions.release_config import (
    DEFAULT_TIMEOUT,
    ActionConfig,
    RenderedRelease,
    RenderRequest,
    render_release,
)
from runner.actions.results import NOTICE, ReleaseResult, without_secrets
from runner.actions.template import BUILD_FAILED, BUILD_FAILED_FROM
from runner.errors import RunnerError, interrupted
from runner.kube.apply import ApplyResult
from runner.kube.cluster import Cluster
from runner.kube.ownership import OwnershipError, set_release_metadata
from runner.kube.resources import Resource, difference
from runner.release.record import DEPLOYED, FAILED, SUPERSEDED, Release
from runner.release.storage import ReleaseNotFoundError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

DRY_RUN_COMPLETE = "Dry run complete"


@dataclass
class DeployOptions:
    """The flags install and upgrade share (each command's own: InstallOptions,
    UpgradeOptions)."""

    name: str
    chart: str
    values: dict[str, Any] = field(default_factory=dict)
    # What the user marked secret (--secret-values files, --set-file contents): values
    # trees or strings, hidden from hook logs and evidence (runner.release.redact).
    secret_values: list[Any] = field(default_factory=list)
    server_side: str = "auto"  # true | false | auto (a new release: server-side apply)
    force_conflicts: bool = False
    dry_run: str = ""  # "", "client", "server"
    hide_secret: bool = False  # dry runs only: Secret documents left out of the manifest
    take_ownership: bool = False
    create_namespace: bool = False
    skip_crds: bool = False  # install only applies crds/ (so upgrade --install too)
    no_hooks: bool = False
    wait: bool = False
    wait_strategy: str = "watcher"  # watcher | legacy (Helm 4 --wait=...)
    wait_for_jobs: bool = False
    timeout: float = DEFAULT_TIMEOUT
    rollback_on_failure: bool = False  # --rollback-on-failure (--atomic); implies waiting
    description: str = ""
    labels: dict[str, str] = field(default_factory=dict)  # --labels: on the stored record
    skip_schema_validation: bool = False
    disable_openapi_validation: bool = False  # Build checks documents only as far as decoding
    render_subchart_notes: bool = False
    post_renderer: Any = None  # runner.postrender.PostRenderer (--post-renderer)
    release_history_max: int = 0  # HIP-0029 .Release.History depth
    include_history_values: bool = False
    wait_for_lock: float = 0.0


class DeployError(RunnerError):
    """An install or upgrade failed (the CLI prefixes INSTALLATION / UPGRADE FAILED)."""


@dataclass
class Plan:
    """One install or upgrade, prepared: the record it writes and how it applies."""

    release: Release  # the new revision, pending-install or pending-upgrade
    server_side: bool
    error: type[DeployError]  # what a failure raises: InstallError or UpgradeError
    previous: Release | None = None  # upgrade: the release whose objects are live now
    # SSA over objects client-side apply may have written (a CSA release upgraded, objects an
    # install adopts): our own `helm` Update entries are folded into the Apply entry first
    migrating_from_csa: bool = False
    three_way_for_custom: bool = False  # CSA take-over merges custom resources three-way
    force_replace: bool = False  # PUT changed objects instead of patching them
    replace: bool = False  # install --replace (or a retry): supersede the last record first
    history_max: int = 0  # revisions kept when the record is stored (0: all)
    notes: list[str] = field(default_factory=list)  # told with the result
    # Called after the record is marked failed; may raise its own error (cleanup, undo).
    on_failure: Callable[[RunnerError, ApplyResult], None] | None = None

    @property
    def installing(self) -> bool:
        return self.previous is None


def render(cfg: ActionConfig, journal: Journal, opts: DeployOptions, chart: Any, source: str,
           values: dict[str, Any], *, namespace: str, revision: int,
           upgrade: bool, before_render: Callable[[Any], None] | None = None) -> RenderedRelease:
    """The chart rendered for release `opts.name` at `revision` (offline for --dry-run=client).
    An install sees no history (HIP-0029: "no deployed release"), also over records kept by
    `uninstall --keep-history` or a failed install (--replace, upgrade --install)."""
    return render_release(cfg, journal, chart, source, values, RenderRequest(
        opts.name, namespace, revision, upgrade, opts.release_history_max if upgrade else 0,
        opts.include_history_values, offline=opts.dry_run == "client",
        skip_schema_validation=opts.skip_schema_validation,
        render_subchart_notes=opts.render_subchart_notes, post_renderer=opts.post_renderer,
        before_render=before_render))


def debug_dependencies(journal: Journal, chart: Any) -> None:
    """The line Helm logs once the chart is loaded."""
    journal.debug("number of dependencies in the chart", chart=chart.name(),
              dependencies=len(chart.metadata.dependencies))


def deploy(cfg: ActionConfig, journal: Journal, opts: DeployOptions, plan: Plan) -> ReleaseResult:
    """Run a prepared install or upgrade (a dry run stops before the record)."""
    release = plan.release
    if opts.hide_secret:
        release.manifest = without_secrets(release.manifest)
    result = ReleaseResult(release, dry_run=opts.dry_run, notes=plan.notes)
    if opts.dry_run == "client":
        release.info.description = opts.description or DRY_RUN_COMPLETE
        return result
    cluster = cfg.require_cluster()
    current, target = _objects(cluster, opts, plan)
    if opts.dry_run:
        release.info.description = opts.description or DRY_RUN_COMPLETE
        refs = [r.ref() for r in target]
        if plan.installing:
            result.created = refs
        else:
            result.updated = refs
        return result
    if plan.replace:
        _supersede_last(cfg, release)
    journal.redactor.add_values(opts.secret_values)
    journal.redactor.add_release(release)
    if plan.previous is not None:
        journal.redactor.add_release(plan.previous)
    first_log = len(journal.hook_logs)
    cfg.storage.create(release, history_max=plan.history_max)
    with evidence.on_error(journal):
        result.add(_apply(cfg, journal, cluster, opts, plan, current, target))
    result.hook_logs = journal.hook_logs[first_log:]
    return result


@contextmanager
def cancellable(journal: Journal, name: str, error: type[DeployError]) -> Iterator[None]:
    """An install or upgrade stopped by a signal before or after its record's pending
    stretch (rendering, waiting for the lock): Helm's words, nothing to record."""
    try:
        yield
    except KeyboardInterrupt as interrupt:
        _tell_cancelled(journal, name)
        raise error(str(interrupted(interrupt))) from interrupt


def _tell_cancelled(journal: Journal, name: str) -> None:
    """What Helm's signal handler prints (on stdout) as the signal arrives."""
    journal.tell(NOTICE, f"Release {name} has been cancelled.")


def _objects(cluster: Cluster, opts: DeployOptions, plan: Plan
             ) -> tuple[list[Resource], list[Resource]]:
    """(current, target): the live release's objects plus those the new one adopts,
    and the new one's objects, stamped with the release's metadata and checked."""
    release, previous = plan.release, plan.previous
    validate = not opts.disable_openapi_validation
    # Helm's install wraps its Build's error; upgrade's first Build (validateManifest) does not.
    target = build(cluster, release.manifest, release.namespace, validate=validate,
                   context=BUILD_FAILED if plan.installing else "")
    current = build(cluster, previous.manifest, previous.namespace,
                    context=f"{BUILD_FAILED_FROM} current release manifest") if previous else []
    set_release_metadata(target, release.name, release.namespace)
    try:
        current += cluster.existing(difference(target, current), release.name, release.namespace,
                                    take_ownership=opts.take_ownership)
    except OwnershipError as err:
        doing = "install" if plan.installing else "update"
        raise plan.error(f"unable to continue with {doing}: {err}") from err
    if plan.server_side and not opts.force_conflicts:
        preflight(cluster, target, migrating_from_csa=plan.migrating_from_csa)
    return current, target


def _apply(cfg: ActionConfig, journal: Journal, cluster: Cluster, opts: DeployOptions, plan: Plan,
           current: list[Resource], target: list[Resource]) -> ApplyResult:
    applied = ApplyResult()  # fills as objects are written: a failure handler sees partial work
    observer = HookObserver(journal, cluster)
    first_evidence = len(journal.evidence)
    try:
        if not opts.no_hooks:
            _hooks(cfg, cluster, plan, opts, "pre", observer)
        if plan.installing and not current:
            # Helm's install creates without forcing: nothing exists yet to conflict with.
            cluster.create(target, server_side=plan.server_side, force=False, result=applied)
        else:
            cluster.update(current, target, server_side=plan.server_side,
                           force=opts.force_conflicts, upgrade_csa_manager=plan.migrating_from_csa,
                           three_way_for_custom=plan.three_way_for_custom,
                           replace=plan.force_replace, result=applied)
        if opts.wait or opts.rollback_on_failure:
            _wait(journal, cluster, opts, target)
        if not opts.no_hooks:
            _hooks(cfg, cluster, plan, opts, "post", observer)
        _mark_deployed(cfg, opts, plan)  # inside: an interrupt here must not leave it pending
    except RunnerError as err:
        _fail(cfg, journal, plan, err, applied, first_evidence)
    except KeyboardInterrupt as interrupt:
        # Helm's handleContext: an interrupted operation is recorded failed, not left pending.
        _tell_cancelled(journal, plan.release.name)
        stopped = interrupted(interrupt)
        stopped.__cause__ = interrupt
        _fail(cfg, journal, plan, stopped, applied, first_evidence)
    return applied


def _strategy(opts: DeployOptions) -> str:
    from runner.kube.wait import in_effect

    return in_effect(opts.wait or opts.rollback_on_failure, opts.wait_strategy)


def _hooks(cfg: ActionConfig, cluster: Cluster, plan: Plan, opts: DeployOptions, when: str,
           observer: HookObserver) -> None:
    """The pre- or post- hooks; a failure reads as Helm words it (install: `failed
    pre-install: ...`, upgrade: `pre-upgrade hooks failed: ...`)."""
    event = f"{when}-{'install' if plan.installing else 'upgrade'}"
    try:
        run_hooks(cluster, plan.release, event, server_side=plan.server_side, timeout=opts.timeout,
                  record=cfg.storage.update, observer=observer, strategy=_strategy(opts))
    except RunnerError as err:
        raise HookError(f"failed {event}: {err}" if plan.installing else f"{event} hooks failed: {err}") from err


def _wait(journal: Journal, cluster: Cluster, opts: DeployOptions, target: list[Resource]) -> None:
    """--wait; when it gives up, the evidence of what was not ready is taken first."""
    try:
        cluster.wait(target, opts.timeout, strategy=opts.wait_strategy, jobs=opts.wait_for_jobs)
    except RunnerError:
        journal.evidence.extend(evidence.capture(cluster, target, "waited on", journal.redactor, only_failing=True,
                                             jobs=opts.wait_for_jobs))
        raise


def _fail(cfg: ActionConfig, journal: Journal, plan: Plan, err: RunnerError, applied: ApplyResult,
          first_evidence: int) -> None:
    """Helm's failRelease: the record failed with the reason (and ours: a summary of the
    evidence taken since first_evidence), then --rollback-on-failure or --cleanup-on-fail
    (plan.on_failure, which may raise its own error); raises."""
    _mark_failed(cfg, journal, plan, str(err), evidence.evidence_summary(journal.evidence[first_evidence:]))
    if plan.on_failure is not None:
        plan.on_failure(err, applied)
    raise plan.error(str(err)) from err


def _mark_failed(cfg: ActionConfig, journal: Journal, plan: Plan, reason: str, summary: str = "") -> None:
    """The failed record: Helm's description, then (ours) a summary of the evidence."""
    from runner.golang.slog import text_line

    release = plan.release
    if not plan.installing:  # Upgrade.failRelease logs it
        journal.warn(text_line("WARN", "upgrade failed", {"name": release.name, "error": reason}))
    who = "Release" if plan.installing else "Upgrade"
    release.info.status = FAILED
    release.info.description = f'{who} "{release.name}" failed: {reason}'
    if summary:
        release.info.description += f" (evidence: {summary})"
    cfg.storage.update(release)


def _mark_deployed(cfg: ActionConfig, opts: DeployOptions, plan: Plan) -> None:
    if plan.previous is not None:
        plan.previous.info.status = SUPERSEDED
        cfg.storage.update(plan.previous)
    release = plan.release
    release.info.status = DEPLOYED
    release.info.description = opts.description or (
        "Install complete" if plan.installing else "Upgrade complete")
    cfg.storage.update(release)


def _supersede_last(cfg: ActionConfig, release: Release) -> None:
    """replaceRelease: take the next revision; a non-failed last record becomes superseded
    (SetStatus: with Helm's description)."""
    try:
        last = cfg.storage.last(release.name)
    except ReleaseNotFoundError:
        return
    release.version = last.version + 1
    if last.info.status != FAILED:
        last.info.status = SUPERSEDED
        last.info.description = "superseded by new release"
        cfg.storage.update(last)
