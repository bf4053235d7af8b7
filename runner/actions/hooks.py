"""Running a release's hooks for one event (Helm's execHook).

Hooks run in weight order (ties by name); each is deleted first when its
policy says before-hook-creation (the default), created (server-side apply
without force when the release uses SSA), and waited on by the waiter
of the --wait strategy, as Helm 4's WatchUntilReady does (runner.kube.wait). Its last run is recorded in the release record.
An observer (runner.actions.hook_logs.HookObserver) is told when each hook starts and
how it ended, before any delete policy runs: it reads the hook's logs and, when the
hook failed, the evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from runner.actions import results
from runner.actions.apply_steps import build
from runner.errors import RunnerError
from runner.kube.cluster import Cluster
from runner.release.record import Hook, HookExecution, Release, go_time_now

if TYPE_CHECKING:
    from runner.actions.hook_logs import HookObserver

BEFORE_HOOK_CREATION = "before-hook-creation"
HOOK_SUCCEEDED = "hook-succeeded"
HOOK_FAILED = "hook-failed"


class HookError(RunnerError):
    """A hook failed (its resource could not be created or did not complete)."""


def run_hooks(cluster: Cluster, release: Release, event: str, *, server_side: bool,
              timeout: float, record: Callable[[Release], None],
              observer: HookObserver | None = None, strategy: str = "hookOnly") -> None:
    """`strategy` (Helm's --wait value) picks the waiter for the hooks' objects and deletions."""
    executing = sorted((h for h in release.hooks if event in h.events),
                       key=lambda h: (h.weight, h.name))
    for index, hook in enumerate(executing):
        if not hook.delete_policies:
            hook.delete_policies = [BEFORE_HOOK_CREATION]
        _delete_by_policy(cluster, release, hook, BEFORE_HOOK_CREATION, timeout, strategy)
        resources = build(cluster, hook.manifest, release.namespace, validate=True,
                          context=f"unable to build kubernetes object for {event} hook {hook.path}")
        hook.last_run = HookExecution(started_at=go_time_now(), phase="Running")
        record(release)
        hook.last_run.phase = "Unknown"
        try:
            cluster.create_hook(resources, server_side=server_side)
        except RunnerError as err:
            hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Failed"
            raise HookError(f"warning: Hook {event} {hook.path} failed: {err}") from err
        if observer is not None:
            observer.started(hook, event, resources)
        try:
            cluster.watch_hook(resources, timeout, strategy=strategy)
        except RunnerError:
            hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Failed"
            if observer is not None:
                observer.ended(hook, event, resources, results.FAILED)
            for earlier in executing[:index]:
                _delete_by_policy(cluster, release, earlier, HOOK_SUCCEEDED, timeout, strategy)
            _delete_by_policy(cluster, release, hook, HOOK_FAILED, timeout, strategy)
            raise
        finally:
            if observer is not None:
                observer.stop_live()  # an interrupted watch leaves no follower behind
        hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Succeeded"
        if observer is not None:
            observer.ended(hook, event, resources, results.SUCCEEDED)
    for hook in reversed(executing):
        _delete_by_policy(cluster, release, hook, HOOK_SUCCEEDED, timeout, strategy)


def _delete_by_policy(cluster: Cluster, release: Release, hook: Hook, policy: str,
                      timeout: float, strategy: str) -> None:
    if hook.kind == "CustomResourceDefinition" or policy not in hook.delete_policies:
        return
    deleted, errors = cluster.delete(build(cluster, hook.manifest, release.namespace,
                                           context=f"unable to build kubernetes object for deleting hook {hook.path}"))
    if errors:
        raise HookError("; ".join(errors))
    cluster.hook_deleted(deleted, timeout, strategy=strategy)
