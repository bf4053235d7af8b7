"""Running a spec: select the releases the event concerns, order them by `needs`, plan
each (runner.actions.diff) and deploy what changed, independent releases at once.

- Selection: `--release` names, and each release's `when` (branches and changed
  paths) when the run has an event; a local run selects every release.
- Order: a release starts when every selected release it needs has succeeded;
  up to `concurrency` run at once. A failed release skips the releases that
  need it (reported `skipped`), never the others.
- Each release: planned (its diff), then installed or upgraded through the deploy
  pipeline with all its settings, or uninstalled (`installed: false`). One whose
  chart and values are those of its deployed revision and whose diff is empty
  gets no new revision (helmfile's `apply`); `sync` upgrades every one anyway.
- `plan` writes nothing: the diffs and what would be installed, upgraded or
  uninstalled.
- A deadline (the Lambda's remaining time): waits, hooks and the lock wait end
  FAILURE_SECONDS before it (a wait that runs out fails as Helm's timeout does: the
  revision recorded failed, the lock released); a release with no time left to deploy
  fails without writing; one still running at the deadline is interrupted as a signal
  interrupts it (recorded failed: `context deadline exceeded`).
- forward_only (a chart push): a release whose new chart version is older than its
  deployed revision's is skipped, never rolled back.

The outcome is one RunResult (runner.spec.result); nothing here prints.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from runner.actions.diff import (
    INSTALL,
    NONE,
    UNINSTALL,
    UPGRADE,
    DiffOptions,
    ReleasePlan,
    plan_release,
)
from runner.actions.journal import Journal
from runner.actions.prepare import ChartInput, DeployRequest, UpgradeOptions, chart_input
from runner.actions.release_config import ActionConfig
from runner.actions.results import DEBUG, Message
from runner.actions.template import RenderOptions
from runner.errors import RunnerError
from runner.release.redact import Redactor
from runner.spec.context import RunContext, matches_any
from runner.spec.load import LoadedSpec
from runner.spec.resolve import ReleaseSpec
from runner.spec.result import (
    DEPLOYED,
    FAILED,
    NOT_SELECTED,
    PLANNED,
    SKIPPED,
    UNCHANGED,
    UNINSTALLED,
    ReleaseOutcome,
    RunResult,
)

DEFAULT_CONCURRENCY = 4
# Before a run's deadline, the time a failing deploy keeps for its failure: the evidence of
# what was not ready, the failed record, the lock's release.
FAILURE_SECONDS = 5.0
_SERVER_SIDE = {"ssa": "true", "csa": "false", "auto": "auto"}
_SUCCEEDED = (DEPLOYED, UNINSTALLED, UNCHANGED, PLANNED)


@dataclass
class RunOptions:
    plan: bool = False  # write nothing: diffs and what would happen
    sync: bool = False  # upgrade every selected release, changed or not
    concurrency: int = DEFAULT_CONCURRENCY
    releases: list[str] = field(default_factory=list)  # --release NAME or NAMESPACE/NAME
    diff: DiffOptions = field(default_factory=DiffOptions)
    wait_for_lock: float = 0.0
    # What hides secret values in every output (runner.release.redact), shared by the run's
    # releases: the caller fills it from the spec (add_secret_values), each release adds what
    # its deploy marks secret and what its last revision held at its secret paths (so a
    # diff's old side is hidden too); the releases' names and their objects' identifiers
    # are public (a secret inside one is shown there: Redactor.add_public).
    redactor: Redactor = field(default_factory=Redactor)
    # A time.monotonic() by which every release has stopped (see the module's docstring).
    deadline: float | None = None
    # Skip a release whose chart version is older than its deployed revision's.
    forward_only: bool = False
    # Releases the caller leaves out, by key, with why (the Lambda: not the pushed chart).
    not_selected: dict[str, str] = field(default_factory=dict)


# The ActionConfig of a namespace (clients shared, storage per namespace).
Connect = Callable[[str], ActionConfig]


def run_spec(spec: LoadedSpec, context: RunContext, connect: Connect,
             options: RunOptions | None = None,
             on_message: Callable[[str, Message], None] | None = None) -> RunResult:
    """Run (or plan) every selected release of `spec`; `on_message(release, message)` hears
    what each deploy tells as it happens."""
    options = options or RunOptions()
    # the spec names its releases and namespaces in every report: public, never masked
    options.redactor.add_public(word for r in spec.releases for word in (r.name, r.namespace))
    started = time.monotonic()
    result = RunResult(spec.source, context.environment,
                       "plan" if options.plan else ("sync" if options.sync else "run"),
                       context.event, started_at=_now(), warnings=list(spec.warnings))
    outcomes = {r.key: _outcome(r, spec) for r in spec.releases}
    selected = _select(spec.releases, options.releases, context, outcomes, options.not_selected)
    _Scheduler(selected, outcomes, connect, options, on_message, spec.source).run()
    result.releases = [outcomes[r.key] for r in spec.releases]
    result.finished_at = _now()
    result.duration_seconds = time.monotonic() - started
    return result


def _outcome(release: ReleaseSpec, spec: LoadedSpec) -> ReleaseOutcome:
    chart = release.chart
    shown = chart.describe() if chart.kind != "path" else _relative(chart.ref, spec.base_dir)
    return ReleaseOutcome(release.name, release.namespace, shown, needs=list(release.needs),
                          spec_line=release.line)


def _relative(path: str, base: str) -> str:
    import os

    relative = os.path.relpath(path, base)
    return relative if not relative.startswith("..") else path


def _select(releases: list[ReleaseSpec], names: list[str], context: RunContext,
            outcomes: dict[str, ReleaseOutcome], left_out: dict[str, str] | None = None) -> list[ReleaseSpec]:
    """The releases this run concerns; the others are marked not selected, with why."""
    unknown = [n for n in names if not any(n in (r.name, r.key) for r in releases)]
    if unknown:
        raise RunnerError(f"--release {unknown[0]}: no release of the spec is named so "
                          f"(releases: {', '.join(r.key for r in releases)})")
    chosen = []
    for release in releases:
        reason = (left_out or {}).get(release.key) or _not_selected(release, names, context)
        if reason:
            outcomes[release.key].status, outcomes[release.key].reason = NOT_SELECTED, reason
        else:
            chosen.append(release)
    return chosen


def _not_selected(release: ReleaseSpec, names: list[str], context: RunContext) -> str:
    if names and release.name not in names and release.key not in names:
        return "not named by --release"
    if context.event is None:
        return ""
    if release.when_branches:
        branch = context.branch
        if branch is None or not matches_any(branch, release.when_branches):
            return f"branch {branch or '(none)'} is not one of {', '.join(release.when_branches)}"
    if release.when_paths:
        changed = context.changed_paths()
        if changed is not None and not any(matches_any(p, release.when_paths) for p in changed):
            return f"no changed path matches {', '.join(release.when_paths)}"
    return ""


def waits(releases: list[ReleaseSpec]) -> dict[str, list[str]]:
    """Whom each release waits for: the releases it needs; but a release being uninstalled
    (installed: false) goes after the releases that need it, as helmfile deletes in
    reverse order. Needs outside `releases` (not selected) are not waited for."""
    by_key = {r.key: r for r in releases}
    found: dict[str, list[str]] = {r.key: [] for r in releases}
    for release in releases:
        for need in release.needs:
            if need not in by_key:
                continue
            if by_key[need].installed:
                found[release.key].append(need)
            else:
                found[need].append(release.key)
    return found


class _Scheduler:
    """Starts each release once the releases it needs succeeded, `concurrency` at a time."""

    def __init__(self, releases: list[ReleaseSpec], outcomes: dict[str, ReleaseOutcome],
                 connect: Connect, options: RunOptions,
                 on_message: Callable[[str, Message], None] | None, source: str = "") -> None:
        self.source = source
        self.releases = releases
        self.outcomes = outcomes
        self.connect = connect
        self.options = options
        self.on_message = on_message
        self.needs = waits(releases)
        # The threads inside a release's work, which an interrupt may reach; those starting
        # or reporting (queue and clock bookkeeping) are left alone: an exception landing
        # inside a lock's bookkeeping would leave the lock held.
        self._guard = threading.Lock()
        self._working: set[int] = set()

    def run(self) -> None:
        """Start ready releases (up to the bound), each on a deep-stack thread of its own, and
        wait for one to finish before looking again. An interrupt (Ctrl-C, SIGTERM) starts
        nothing more and is passed on to the running releases, which record their failure."""
        from runner.deepstack import interrupt_work, start_deep_thread
        from runner.errors import DeadlineReached

        pending = {r.key: r for r in self.releases}
        finished: queue.Queue[str] = queue.Queue()
        running: dict[str, int] = {}  # key -> thread ident
        try:
            while pending or running:
                for key in self._ready(pending)[:max(1, self.options.concurrency) - len(running)]:
                    release = pending.pop(key)
                    running[key] = start_deep_thread(lambda r=release: self._one(r, finished))
                if not running:
                    break
                try:
                    running.pop(finished.get(timeout=self._until_deadline()))
                except queue.Empty:  # the deadline: what still runs is stopped, and recorded
                    raise DeadlineReached() from None
        except BaseException as interrupt:
            with self._guard:  # only threads inside a release's work: never the bookkeeping
                for ident in running.values():
                    if ident in self._working:
                        interrupt_work(ident, type(interrupt))
            self._wait_for(running, finished, interrupt)
            if not isinstance(interrupt, DeadlineReached):
                raise
            for key in pending:  # never started: they fail, with why
                self.outcomes[key].status = FAILED
                self.outcomes[key].error = "not started: the run's deadline passed"

    def _wait_for(self, running: dict[str, int], finished: queue.Queue[str], interrupt: BaseException) -> None:
        """Wait for the interrupted releases to finish. An interrupt lands between any two
        Python steps, also before a release's thread reports (or after its last report):
        a thread that ended without reporting is taken as finished, its release failed."""
        import sys

        from runner.errors import DeadlineReached, interrupted

        while running:
            try:
                running.pop(finished.get(timeout=0.2))
                continue
            except queue.Empty:
                pass
            alive = sys._current_frames()  # noqa: SLF001 - the threads still running
            for key, ident in list(running.items()):
                if ident not in alive:
                    del running[key]
                    outcome = self.outcomes[key]
                    if not outcome.status:
                        outcome.status = FAILED
                        outcome.error = (str(interrupted(interrupt)) if isinstance(interrupt, DeadlineReached)
                                         else "interrupted")

    def _work(self, work: Callable[[], None]) -> None:
        """`work()`, the time an interrupt may reach this thread."""
        ident = threading.get_ident()
        with self._guard:
            self._working.add(ident)
        try:
            work()
        finally:
            with self._guard:
                self._working.discard(ident)

    def _until_deadline(self) -> float | None:
        if self.options.deadline is None:
            return None
        return max(0.0, self.options.deadline - time.monotonic())

    def _ready(self, pending: dict[str, ReleaseSpec]) -> list[str]:
        """Pending releases whose needs all finished well; those with a failed or skipped
        need are skipped (now, so their dependants are too)."""
        ready = []
        changed = True
        while changed:
            changed = False
            for key in list(pending):
                needs = [self.outcomes[n] for n in self.needs[key]]
                bad = [n for n in needs if n.status in (FAILED, SKIPPED)]
                if bad:
                    outcome = self.outcomes[key]
                    outcome.status = SKIPPED
                    outcome.reason = f"it needs {bad[0].key}, which {bad[0].status}"
                    del pending[key]
                    changed = True
                elif key not in ready and all(n.status in _SUCCEEDED for n in needs):
                    ready.append(key)
        return ready

    def _one(self, release: ReleaseSpec, finished: queue.Queue[str]) -> None:
        outcome = self.outcomes[release.key]
        try:
            outcome.started_at = _now()
            self._work(lambda: _ReleaseRun(release, outcome, self).run())
        except RunnerError as err:
            outcome.status, outcome.error = FAILED, str(err)
        except BaseException as err:  # noqa: BLE001 - a bug, or an interrupt: this release failed
            from runner.errors import DeadlineReached, internal_error, interrupted

            outcome.status = FAILED
            if isinstance(err, DeadlineReached):
                outcome.error = str(interrupted(err))
            else:
                outcome.error = "interrupted" if isinstance(err, KeyboardInterrupt) else str(internal_error(err))
        finally:
            outcome.finished_at = _now()
            finished.put(release.key)


class _ReleaseRun:
    """One release: connect, plan, then deploy (or not)."""

    def __init__(self, release: ReleaseSpec, outcome: ReleaseOutcome, scheduler: _Scheduler) -> None:
        self.release = release
        self.outcome = outcome
        self.options = scheduler.options
        self.source = scheduler.source
        self.cfg = scheduler.connect(release.namespace)
        tell = scheduler.on_message
        # the release's own journal, its messages named by the release; one redactor for the run
        self.journal = Journal(on_message=None if tell is None else lambda message: tell(release.key, message),
                               redactor=self.options.redactor)

    def run(self) -> None:
        outcome, release = self.outcome, self.release
        step = time.monotonic()
        try:
            request = release_request(release, self.options.wait_for_lock, self.source)
            # once: the plan and the deploy use the same; what fetching the chart says is the release's
            given = chart_input(request, self.journal.tell, secrets=False)
            self._time_left("started")
            plan = plan_release(self.cfg, self.journal, request, given, installed=release.installed,
                                options=self.options.diff)
        finally:
            outcome.plan_seconds = time.monotonic() - step
            self._messages()
        self._record_plan(plan)
        if release.secret_values and plan.current is not None:
            add_previous_secrets(self.options.redactor, release, plan.current.config)
        older = _older_than_deployed(plan) if self.options.forward_only else ""
        if older:
            outcome.status, outcome.reason = SKIPPED, older
            outcome.revision = plan.current.version if plan.current else None
            return
        if plan.action == NONE or (plan.unchanged and not self.options.sync):
            outcome.action, outcome.status, outcome.reason = NONE, UNCHANGED, _unchanged_reason(plan)
            outcome.revision = plan.current.version if plan.current else None
            return
        if self.options.plan:
            outcome.status = PLANNED
            return
        step = time.monotonic()
        try:
            left = self._time_left("deployed")
            if left is not None:  # waits, hooks and the lock wait end before the deadline
                request.timeout = min(request.timeout, left)
                request.wait_for_lock = min(request.wait_for_lock, left)
            self._deploy(plan, request, given)
        except RunnerError as err:
            outcome.status, outcome.error = FAILED, str(err)
            outcome.evidence = self._evidence(err)
        finally:
            outcome.deploy_seconds = time.monotonic() - step
            outcome.hook_logs = _hook_logs(self.journal.hook_logs, release)  # a failure's too
            outcome.not_ready = _not_ready(self.journal.evidence) if outcome.status == FAILED else []
            self._messages()

    def _time_left(self, doing: str) -> float | None:
        """Seconds this release may still spend before its failure must start (None: no
        deadline); none left fails it before it writes anything."""
        if self.options.deadline is None:
            return None
        left = self.options.deadline - FAILURE_SECONDS - time.monotonic()
        if left <= 0:
            raise RunnerError(f"not {doing}: the run's deadline leaves no time to deploy it")
        return left

    def _record_plan(self, plan: ReleasePlan) -> None:
        outcome = self.outcome
        outcome.action = plan.action
        outcome.diff = plan.diff
        outcome.notes += plan.notes
        outcome.apply_method = plan.apply_method
        outcome.previous_revision = plan.current.version if plan.current else None
        outcome.revision = plan.revision or None
        outcome.chart_version = plan.chart_version
        outcome.revision_differs = plan.current is not None and (plan.chart_changed or plan.values_changed)

    def _deploy(self, plan: ReleasePlan, request: DeployRequest, given: ChartInput) -> None:
        outcome = self.outcome
        if plan.action == UNINSTALL:
            from runner.actions.uninstall import UninstallOptions, uninstall

            done = uninstall(self.cfg, self.journal, UninstallOptions(
                name=self.release.name, wait=request.wait, timeout=request.timeout,
                wait_for_lock=request.wait_for_lock))
            outcome.status = UNINSTALLED
            outcome.revision = done.release.version if done is not None else None
            return
        from runner.actions.upgrade import upgrade

        deployed = upgrade(self.cfg, self.journal, request, given)  # --install: creates the namespace when asked
        outcome.status = DEPLOYED
        outcome.action = INSTALL if deployed.release.version == 1 or plan.action == INSTALL else UPGRADE
        outcome.revision = deployed.release.version
        outcome.apply_method = deployed.release.apply_method
        outcome.notes += deployed.notes

    def _evidence(self, err: RunnerError) -> list[str]:
        """What the cluster says after a failure: the release's newest record."""
        found = []
        try:
            last = self.cfg.storage.last(self.release.name)
            found.append(f"revision {last.version}: {last.info.status}: {last.info.description}")
        except RunnerError:
            pass
        return found

    def _messages(self) -> None:
        # Helm's --debug log lines are the CLI's to show or not, not the result's messages
        self.outcome.messages = [m.text for m in self.journal.messages if m.kind != DEBUG]


def release_request(release: ReleaseSpec, wait_for_lock: float = 0.0, source: str = "") -> DeployRequest:
    """A release's settings as the request the deploy pipeline takes (upgrade --install)."""
    from runner.actions.spec_sources import chart_source, release_values

    chart, chart_from = chart_source(release.chart)
    values, inline = release_values(release, source)
    return DeployRequest(
        name=release.name, chart=chart, source=chart_from, values=values, inline_values=inline,
        render=RenderOptions(skip_schema_validation=release.skip_schema_validation,
                             release_history_max=release.history_depth,
                             include_history_values=release.include_history_values),
        upgrade=UpgradeOptions(install=True, cleanup_on_fail=release.cleanup_on_fail,
                               history_max=release.history_max, force_replace=release.force_replace),
        server_side=_SERVER_SIDE[release.apply_method], force_conflicts=release.force_conflicts,
        take_ownership=release.take_ownership, create_namespace=release.create_namespace,
        skip_crds=release.skip_crds, wait=release.wait in ("watcher", "legacy"),
        wait_strategy="legacy" if release.wait == "legacy" else "watcher",
        wait_for_jobs=release.wait_for_jobs, timeout=release.timeout,
        rollback_on_failure=release.rollback_on_failure, description=release.description,
        labels=dict(release.labels), wait_for_lock=wait_for_lock)


def _older_than_deployed(plan: ReleasePlan) -> str:
    """Why a chart older than the deployed revision's is not deployed ("" when it is not)."""
    from runner.golang import semver

    if plan.current is None or not plan.chart_version:
        return ""
    deployed = str(((plan.current.chart or {}).get("metadata") or {}).get("version") or "")
    try:
        older = semver.compare(semver.new_version(plan.chart_version), semver.new_version(deployed)) < 0
    except semver.SemverError:
        return ""
    if not older:
        return ""
    return (f"chart version {plan.chart_version} is older than {deployed}, deployed at revision "
            f"{plan.current.version}: a push never rolls a release back")


def _unchanged_reason(plan: ReleasePlan) -> str:
    if plan.action == NONE:
        return "not installed, and installed: false"
    return f"chart, values and objects are those of revision {plan.current.version}" \
        if plan.current else "nothing to change"


def _hook_logs(captured: list[Any], release: ReleaseSpec) -> list[Any]:
    """The hook logs the deploy captured (runner.actions.results.HookLog, one per container,
    already redacted and capped by --hook-log-lines), as the result keeps them: the spec's
    `hookLogs.cap` on top (0 keeps them all), none when the spec hides them."""
    if not release.hook_logs_show:
        return []
    from runner.actions.results import FAILED as HOOK_FAILED
    from runner.spec.result import HookLog

    logs = []
    for item in captured:
        lines = list(item.lines) or ([item.note] if item.note else [])
        kept = lines[-release.hook_logs_cap:] if release.hook_logs_cap else lines  # 0: all, as --hook-log-lines 0
        logs.append(HookLog(f"{item.kind}/{item.hook}", item.pod,
                            "Failed" if item.outcome == HOOK_FAILED else "Succeeded",
                            "\n".join(kept), truncated=item.truncated or len(kept) < len(lines),
                            container=item.container, template=item.path))
    return logs


def _not_ready(evidence: list[Any]) -> list[Any]:
    """The deploy's evidence (runner.actions.results.Evidence, already redacted) as the
    result keeps it: one entry an object, its paragraph of the CLI's error details."""
    from runner.actions.evidence import evidence_text
    from runner.spec.result import NotReady

    found = []
    for item in evidence:
        paragraph = evidence_text([item]).splitlines()[1:]  # without the heading
        reason = "\n".join(line[2:] if line.startswith("  ") else line for line in paragraph)
        # a hook's context is "<event> hook <template>" (runner.actions.hook_logs)
        _, hook, template = item.context.partition(" hook ")
        found.append(NotReady(item.object, item.namespace, item.context, reason,
                              template if hook else ""))
    return found


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def add_secret_values(redactor: Redactor, releases: list[ReleaseSpec]) -> None:
    """Every leaf of the releases' secretValues files, hidden by `redactor` (with the forms
    it hides of each: base64, JSON-escaped, ...)."""
    for release in releases:
        for _, value in _secret_leaves(release):
            redactor.add(value)


def add_previous_secrets(redactor: Redactor, release: ReleaseSpec, config: dict[str, Any] | None) -> None:
    """What the release's last values hold where its secretValues files have leaves: the old
    secrets a diff shows being replaced."""
    for path, _ in _secret_leaves(release):
        value: Any = config or {}
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if not isinstance(value, dict | list):
            redactor.add(value)


def _secret_leaves(release: ReleaseSpec) -> list[tuple[tuple[str, ...], Any]]:
    from runner.chart.uservalues import read_values_file
    from runner.encoding import goyaml

    leaves: list[tuple[tuple[str, ...], Any]] = []

    def walk(value: Any, path: tuple[str, ...]) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, str(key)))
        elif isinstance(value, list):
            for item in value:
                walk(item, path)
        elif value is not None and not isinstance(value, bool):
            leaves.append((path, value))

    for file in release.secret_values:
        try:
            walk(goyaml.load(read_values_file(file)), ())
        except (RunnerError, ValueError):
            continue  # the release's own values reading reports it
    return leaves
