"""Running a release's hooks for one event (Helm's execHook).

Hooks run in weight order (ties by name); each is deleted first when its
policy says before-hook-creation (the default), created (server-side apply
without force when the release uses SSA), and waited on as Helm 4's
WatchUntilReady does (Jobs complete, Pods succeed, kstatus messages). Its last run is recorded in the release record.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.errors import RunnerError
from runner.kube.cluster import Cluster
from runner.release.record import Hook, HookExecution, Release, go_time_now

BEFORE_HOOK_CREATION = "before-hook-creation"
HOOK_SUCCEEDED = "hook-succeeded"
HOOK_FAILED = "hook-failed"


class HookError(RunnerError):
    """A hook failed (its resource could not be created or did not complete)."""


def run_hooks(cluster: Cluster, release: Release, event: str, *, server_side: bool,
              timeout: float, record: Callable[[Release], None], strategy: str = "hookOnly") -> None:
    """`strategy` (Helm's --wait value) picks the waiter for the hooks' objects and deletions."""
    executing = sorted((h for h in release.hooks if event in h.events),
                       key=lambda h: (h.weight, h.name))
    for index, hook in enumerate(executing):
        if not hook.delete_policies:
            hook.delete_policies = [BEFORE_HOOK_CREATION]
        _delete_by_policy(cluster, release, hook, BEFORE_HOOK_CREATION, timeout, strategy)
        resources = cluster.build(hook.manifest, release.namespace)
        hook.last_run = HookExecution(started_at=go_time_now(), phase="Running")
        record(release)
        hook.last_run.phase = "Unknown"
        try:
            cluster.create_hook(resources, server_side=server_side)
        except RunnerError as err:
            hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Failed"
            raise HookError(f"warning: Hook {event} {hook.path} failed: {err}") from err
        try:
            cluster.watch_hook(resources, timeout, strategy=strategy)
        except RunnerError:
            hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Failed"
            for earlier in executing[:index]:
                _delete_by_policy(cluster, release, earlier, HOOK_SUCCEEDED, timeout, strategy)
            _delete_by_policy(cluster, release, hook, HOOK_FAILED, timeout, strategy)
            raise
        hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Succeeded"
    for hook in reversed(executing):
        _delete_by_policy(cluster, release, hook, HOOK_SUCCEEDED, timeout, strategy)


def _delete_by_policy(cluster: Cluster, release: Release, hook: Hook, policy: str,
                      timeout: float, strategy: str) -> None:
    if hook.kind == "CustomResourceDefinition" or policy not in hook.delete_policies:
        return
    deleted, errors = cluster.delete(cluster.build(hook.manifest, release.namespace))
    if errors:
        raise HookError("; ".join(errors))
    cluster.hook_deleted(deleted, timeout, strategy=strategy)
