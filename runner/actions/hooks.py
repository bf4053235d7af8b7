"""Running a release's hooks for one event (Helm's execHook).

Hooks run in weight order (ties by name); each is deleted first when its
policy says before-hook-creation (the default), created (server-side apply
without force when the release uses SSA), and waited on as Helm 4's
WatchUntilReady does (Jobs complete, Pods succeed, kstatus messages). Its last run is recorded in the release record.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.errors import RunnerError
from runner.kube import operations, wait
from runner.kube.apply import create, server_side_apply
from runner.kube.client import KubeClient
from runner.kube.resources import Resource, build
from runner.release.record import Hook, HookExecution, Release, go_time_now

BEFORE_HOOK_CREATION = "before-hook-creation"
HOOK_SUCCEEDED = "hook-succeeded"
HOOK_FAILED = "hook-failed"


class HookError(RunnerError):
    """A hook failed (its resource could not be created or did not complete)."""


def run_hooks(client: KubeClient, release: Release, event: str, *, server_side: bool,
              timeout: float, record: Callable[[Release], None]) -> None:
    executing = sorted((h for h in release.hooks if event in h.events),
                       key=lambda h: (h.weight, h.name))
    for index, hook in enumerate(executing):
        if not hook.delete_policies:
            hook.delete_policies = [BEFORE_HOOK_CREATION]
        _delete_by_policy(client, release, hook, BEFORE_HOOK_CREATION, timeout)
        resources = build(client, hook.manifest, release.namespace)
        hook.last_run = HookExecution(started_at=go_time_now(), phase="Running")
        record(release)
        hook.last_run.phase = "Unknown"
        try:
            for resource in resources:
                if server_side:
                    server_side_apply(client, resource, force=False)
                else:
                    create(client, resource)
        except RunnerError as err:
            hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Failed"
            raise HookError(f"warning: Hook {event} {hook.path} failed: {err}") from err
        try:
            wait.watch_ready(client, resources, timeout, hooks=True)
        except RunnerError:
            hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Failed"
            for earlier in executing[:index]:
                _delete_by_policy(client, release, earlier, HOOK_SUCCEEDED, timeout)
            _delete_by_policy(client, release, hook, HOOK_FAILED, timeout)
            raise
        hook.last_run.completed_at, hook.last_run.phase = go_time_now(), "Succeeded"
    for hook in reversed(executing):
        _delete_by_policy(client, release, hook, HOOK_SUCCEEDED, timeout)


def _delete_by_policy(client: KubeClient, release: Release, hook: Hook, policy: str,
                      timeout: float) -> None:
    if hook.kind == "CustomResourceDefinition" or policy not in hook.delete_policies:
        return
    resources: list[Resource] = build(client, hook.manifest, release.namespace)
    deleted, errors = operations.delete_all(client, resources)
    if errors:
        raise HookError("; ".join(errors))
    left = operations.wait_for_delete(client, deleted, timeout)
    if left:
        raise HookError(f"timed out waiting for the hook resources to be deleted: {', '.join(left)}")
