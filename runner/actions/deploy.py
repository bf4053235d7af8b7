"""The deploy pipeline that install and upgrade (and a spec's `run`) share:

    build -> ownership -> record -> pre-hooks -> apply -> wait
          -> post-hooks -> deployed | failed

install and upgrade each prepare a Plan (runner.actions.prepare: the new pending record,
the release it replaces, the apply method, what to do on failure) and hand it to `deploy`
with their DeployRequest.
Dry runs take the same path and stop before the record is written: with
--dry-run=client before anything talks to the cluster, with =server after the
ownership check and the conflict preflight (every server-side apply sent with
dryRun=All). A real run sends no preflight: as in Helm, a server-side apply
conflict is the apply's own answer (409), and the release is recorded failed.

Cancellation (SIGINT, SIGTERM: a KeyboardInterrupt here, runner.deepstack passes
it on) ends as Helm's does: `Release x has been cancelled.` told at once, the
release recorded failed with `context canceled` (and undone as for any failure
when asked), the error `context canceled`; the lock is released on the way out.
A spec run's deadline (runner.errors.DeadlineReached) ends the same way, with
`context deadline exceeded: ...` as the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from runner.actions import evidence
from runner.actions.apply_steps import build, preflight
from runner.actions.hook_logs import HookObserver
from runner.actions.hooks import HookError, run_hooks
from runner.actions.journal import Journal
from runner.actions.prepare import DeployError, DeployRequest, Plan
from runner.actions.release_config import ActionConfig
from runner.actions.results import NOTICE, ReleaseResult, without_secrets
from runner.actions.template import BUILD_FAILED, BUILD_FAILED_FROM
from runner.errors import RunnerError, interrupted
from runner.kube.apply import ApplyResult
from runner.kube.cluster import Cluster
from runner.kube.ownership import OwnershipError, set_release_metadata
from runner.kube.resources import Resource, difference
from runner.release.record import DEPLOYED, FAILED, SUPERSEDED, Release
from runner.release.storage import ReleaseNotFoundError

DRY_RUN_COMPLETE = "Dry run complete"


def deploy(cfg: ActionConfig, journal: Journal, request: DeployRequest, plan: Plan) -> ReleaseResult:
    """Run a prepared install or upgrade (a dry run stops before the record)."""
    release = plan.release
    if request.hide_secret:
        release.manifest = without_secrets(release.manifest)
    result = ReleaseResult(release, dry_run=request.dry_run, notes=plan.notes)
    if request.dry_run == "client":
        release.info.description = request.description or DRY_RUN_COMPLETE
        return result
    cluster = cfg.require_cluster()
    current, target = _objects(cluster, request, plan)
    if request.dry_run:
        release.info.description = request.description or DRY_RUN_COMPLETE
        refs = [r.ref() for r in target]
        if plan.installing:
            result.created = refs
        else:
            result.updated = refs
        return result
    if plan.replace:
        _supersede_last(cfg, release)
    journal.redactor.add_values(plan.secret_values)
    journal.redactor.add_release(release)
    if plan.previous is not None:
        journal.redactor.add_release(plan.previous)
    first_log = len(journal.hook_logs)
    cfg.storage.create(release, history_max=plan.history_max)
    with evidence.on_error(journal):
        result.add(_apply(cfg, journal, cluster, request, plan, current, target))
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


def _objects(cluster: Cluster, request: DeployRequest, plan: Plan
             ) -> tuple[list[Resource], list[Resource]]:
    """(current, target): the live release's objects plus those the new one adopts,
    and the new one's objects, stamped with the release's metadata and checked."""
    release, previous = plan.release, plan.previous
    validate = not request.disable_openapi_validation
    # Helm's install wraps its Build's error; upgrade's first Build (validateManifest) does not.
    target = build(cluster, release.manifest, release.namespace, validate=validate,
                   context=BUILD_FAILED if plan.installing else "")
    current = build(cluster, previous.manifest, previous.namespace,
                    context=f"{BUILD_FAILED_FROM} current release manifest") if previous else []
    set_release_metadata(target, release.name, release.namespace)
    try:
        current += cluster.existing(difference(target, current), release.name, release.namespace,
                                    take_ownership=request.take_ownership)
    except OwnershipError as err:
        doing = "install" if plan.installing else "update"
        raise plan.error(f"unable to continue with {doing}: {err}") from err
    if request.dry_run and plan.server_side and not request.force_conflicts:
        preflight(cluster, target, migrating_from_csa=plan.migrating_from_csa)
    return current, target


def _apply(cfg: ActionConfig, journal: Journal, cluster: Cluster, request: DeployRequest, plan: Plan,
           current: list[Resource], target: list[Resource]) -> ApplyResult:
    applied = ApplyResult()  # fills as objects are written: a failure handler sees partial work
    observer = HookObserver(journal, cluster)
    first_evidence = len(journal.evidence)
    try:
        if not request.no_hooks:
            _hooks(cfg, cluster, plan, request, "pre", observer)
        if plan.installing and not current:
            # Helm's install creates without forcing: nothing exists yet to conflict with.
            cluster.create(target, server_side=plan.server_side, force=False, result=applied)
        else:
            cluster.update(current, target, server_side=plan.server_side,
                           force=request.force_conflicts, upgrade_csa_manager=plan.migrating_from_csa,
                           three_way_for_custom=plan.three_way_for_custom,
                           replace=plan.force_replace, result=applied)
        if request.wait or request.rollback_on_failure:
            evidence.wait_for(journal, cluster, target, request.timeout, strategy=request.wait_strategy,
                              jobs=request.wait_for_jobs)
        if not request.no_hooks:
            _hooks(cfg, cluster, plan, request, "post", observer)
        _mark_deployed(cfg, request, plan)  # inside: an interrupt here must not leave it pending
    except RunnerError as err:
        _fail(cfg, journal, plan, err, applied, first_evidence)
    except KeyboardInterrupt as interrupt:
        # Helm's handleContext: an interrupted operation is recorded failed, not left pending.
        _tell_cancelled(journal, plan.release.name)
        stopped = interrupted(interrupt)
        stopped.__cause__ = interrupt
        _fail(cfg, journal, plan, stopped, applied, first_evidence)
    return applied


def _strategy(request: DeployRequest) -> str:
    from runner.kube.wait import in_effect

    return in_effect(request.wait or request.rollback_on_failure, request.wait_strategy)


def _hooks(cfg: ActionConfig, cluster: Cluster, plan: Plan, request: DeployRequest, when: str,
           observer: HookObserver) -> None:
    """The pre- or post- hooks; a failure reads as Helm words it (install: `failed
    pre-install: ...`, upgrade: `pre-upgrade hooks failed: ...`)."""
    event = f"{when}-{'install' if plan.installing else 'upgrade'}"
    try:
        run_hooks(cluster, plan.release, event, server_side=plan.server_side, timeout=request.timeout,
                  record=cfg.storage.update, observer=observer, strategy=_strategy(request))
    except RunnerError as err:
        raise HookError(f"failed {event}: {err}" if plan.installing else f"{event} hooks failed: {err}") from err


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


def _mark_deployed(cfg: ActionConfig, request: DeployRequest, plan: Plan) -> None:
    if plan.previous is not None:
        plan.previous.info.status = SUPERSEDED
        cfg.storage.update(plan.previous)
    release = plan.release
    release.info.status = DEPLOYED
    release.info.description = request.description or (
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
