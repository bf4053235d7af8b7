"""`test RELEASE` (Helm's ReleaseTesting): run the latest record's test hooks
(`helm.sh/hook: test`) in weight order, record their last runs, and read the
test Pods' logs for --logs."""

from __future__ import annotations

from dataclasses import dataclass, field

from runner.actions import evidence
from runner.actions.hook_logs import HookObserver
from runner.actions.hooks import run_hooks
from runner.actions.journal import Journal
from runner.actions.release_config import ActionConfig, validate_name
from runner.actions.results import HookLog
from runner.errors import RunnerError
from runner.release.record import Hook, Release

TEST_EVENT = "test"


@dataclass
class TestOptions:
    name: str
    timeout: float = 300.0
    include: list[str] = field(default_factory=list)  # --filter name=...
    exclude: list[str] = field(default_factory=list)  # --filter '!name=...'


@dataclass
class TestRun:
    release: Release
    error: RunnerError | None = None  # its details: the evidence of the failed test
    hook_logs: list[HookLog] = field(default_factory=list)


def run_tests(cfg: ActionConfig, journal: Journal, opts: TestOptions) -> TestRun:
    """The tests run; a failing one is returned with the release (Helm prints both)."""
    try:
        validate_name(opts.name)
    except RunnerError as err:
        raise RunnerError(f"releaseTest: Release name is invalid: {opts.name}") from err
    from runner.actions.query import get_release

    release = get_release(cfg, opts.name)
    skipped = [h for h in release.hooks if not _selected(h, opts)]
    release.hooks = [h for h in release.hooks if _selected(h, opts)]
    error: RunnerError | None = None
    cluster = cfg.require_cluster()
    journal.redactor.add_release(release)
    first_log = len(journal.hook_logs)
    try:
        with evidence.on_error(journal):
            # Helm's ReleaseTesting always waits with the status watcher, whatever --wait says.
            run_hooks(cluster, release, TEST_EVENT, server_side=release.apply_method == "ssa",
                      timeout=opts.timeout, record=cfg.storage.update, observer=HookObserver(journal, cluster),
                      strategy="watcher")
    except RunnerError as err:
        error = err
    finally:
        # Helm puts the skipped hooks first when it stores the record again.
        release.hooks = skipped + release.hooks
    cfg.storage.update(release)
    return TestRun(release, error, journal.hook_logs[first_log:])


def _selected(hook: Hook, opts: TestOptions) -> bool:
    if hook.name in opts.exclude:
        return False
    return not opts.include or hook.name in opts.include


def pod_logs(cfg: ActionConfig, journal: Journal, release: Release, opts: TestOptions) -> str:
    """GetPodLogs: `POD LOGS: <hook>` and the Pod's log, per test hook by weight. Ours:
    the log passes through the redactor (the release's Secrets), as hook output logs do."""
    cluster = cfg.require_cluster()
    journal.redactor.add_release(release)
    parts: list[str] = []
    for hook in sorted(release.hooks, key=lambda h: h.weight):
        if TEST_EVENT not in hook.events or not _selected(hook, opts):
            continue
        status, text = cluster.pod_log(release.namespace, hook.name)
        if status >= 400:
            raise RunnerError(f"unable to get pod logs for {hook.name}: {text}")
        parts.append(f"POD LOGS: {hook.name}\n{journal.redactor.redact(text)}\n")
    return "".join(parts)
