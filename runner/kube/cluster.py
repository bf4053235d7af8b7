"""The cluster as release actions see it: one Protocol, and its implementation over
a KubeClient (Helm's kube.Interface, narrowed to what our actions call).

Actions talk to a `Cluster`, never to module functions on a concrete client, so
unit tests can hand them a fake (tests/unit/fakes/cluster.py) and check how
install, upgrade, rollback and uninstall move records between statuses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from runner.kube.apply import ApplyResult
    from runner.kube.client import KubeClient
    from runner.kube.lease import PreviousHolder
    from runner.kube.preview import Preview
    from runner.kube.resources import Resource
    from runner.kube.wait import Log, Progress


class Lock(Protocol):
    """A release's lock while an operation holds it (runner.kube.lease.ReleaseLock)."""

    taken_over: PreviousHolder | None  # the holder whose expired lease we took over

    def release_lock(self) -> None: ...


class LogFollow(Protocol):
    """A container's log followed as it is written (runner.kube.observe.LogStream)."""

    def chunks(self) -> Iterator[str]:
        """The log's text from its first line, in pieces as they come; ends with the container."""
        ...

    def close(self) -> None:
        """End the stream now (safe from another thread)."""
        ...


class PodWatch(Protocol):
    """Pods as the API server reports them while they change (runner.kube.observe.PodWatch)."""

    def __iter__(self) -> Iterator[list[dict[str, Any]]]:
        """Every pod, oldest first: once listed, then again after each change; ends at close()."""
        ...

    def close(self) -> None:
        """End it now (safe from another thread)."""
        ...


class Cluster(Protocol):
    # -- discovery ------------------------------------------------------------
    def server_version(self) -> str:
        """gitVersion of the API server (also the reachability check)."""
        ...

    def api_versions(self) -> list[str]:
        """Served group/versions and group/version/Kinds (Capabilities.APIVersions)."""
        ...

    def lookup(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
        """Helm's `lookup` template function: the object (a name) or the list (no name) as
        unstructured content, {} when not found; a refusal raises RunnerError in Helm's words."""
        ...

    # -- objects of a release -------------------------------------------------
    def build(self, manifest: str, namespace: str, *, validate: bool = True) -> list[Resource]:
        """Helm's Build: the manifest's objects, mapped; namespaced ones default to `namespace`.
        A document without a kind, or of a kind the cluster does not serve, raises
        ManifestBuildError in Helm's words (`validate`: Build's OpenAPI validation)."""
        ...

    def existing(self, resources: Sequence[Resource], release: str, namespace: str, *,
                 take_ownership: bool) -> list[Resource]:
        """Those that already exist; one owned by another release raises OwnershipError
        unless `take_ownership`. Sets each resource's `exists` (and `live`)."""
        ...

    def preflight(self, resources: Sequence[Resource], *, ignore_manager: str = "") -> list[str]:
        """Helm's error for each object whose server-side apply would conflict (a dry run, force
        off; causes of `ignore_manager` left out); nothing written."""
        ...

    def create(self, resources: Sequence[Resource], *, server_side: bool, force: bool = False,
               result: ApplyResult | None = None) -> ApplyResult:
        """Create (or server-side apply) every object; `result` fills as objects are written."""
        ...

    def update(self, current: Sequence[Resource], target: Sequence[Resource], *, server_side: bool,
               force: bool = False, upgrade_csa_manager: bool = False,
               three_way_for_custom: bool = False, replace: bool = False,
               result: ApplyResult | None = None) -> ApplyResult:
        """Apply `target`; delete what `current` has and `target` lacks unless kept."""
        ...

    def delete(self, resources: Sequence[Resource], cascade: str = "background"
               ) -> tuple[list[Resource], list[str]]:
        """Delete in order; (deleted, errors): an object already gone is neither."""
        ...

    def preview(self, current: Sequence[Resource], target: Sequence[Resource], *, release: str,
                namespace: str, server_side: bool, force: bool = False,
                three_way_for_custom: bool = False, take_ownership: bool = False) -> Preview:
        """What updating `current` to `target` would do to each object (dry runs; nothing
        written): runner.kube.preview."""
        ...

    def wait(self, resources: Sequence[Resource], timeout: float, *, strategy: str = "watcher",
             jobs: bool = False) -> None:
        """--wait=<strategy>: every object ready (WaitError otherwise)."""
        ...

    def wait_deleted(self, resources: Sequence[Resource], timeout: float, *,
                     strategy: str = "watcher") -> None:
        """uninstall --wait: every object gone (WaitError naming those left)."""
        ...

    # -- hooks ------------------------------------------------------------------
    def create_hook(self, resources: Sequence[Resource], *, server_side: bool) -> None:
        """Write a hook's objects one by one, in order (SSA without force, or create)."""
        ...

    def watch_hook(self, resources: Sequence[Resource], timeout: float, *,
                   strategy: str = "hookOnly") -> None:
        """WatchUntilReady by the strategy's waiter: Jobs complete, Pods succeed (WaitError otherwise)."""
        ...

    def hook_deleted(self, resources: Sequence[Resource], timeout: float, *,
                     strategy: str = "hookOnly") -> None:
        """A deleted hook's objects gone, by the strategy's waiter (WaitError otherwise)."""
        ...

    def pod_log(self, namespace: str, pod: str) -> tuple[int, str]:
        """A Pod's log (HTTP status, text or the error's message)."""
        ...

    # -- what a workload left behind (hook logs, failure evidence) ---------------------
    def live(self, resource: Resource) -> dict[str, Any] | None:
        """The object as the API server has it now; None when it is gone."""
        ...

    def pods(self, namespace: str, *, selector: str = "", name: str = "") -> list[dict[str, Any]]:
        """The pods a label selector matches, or the one named; oldest first."""
        ...

    def container_log(self, namespace: str, pod: str, container: str, *, tail_lines: int | None = None,
                      limit_bytes: int | None = None) -> tuple[int, str]:
        """One container's log (HTTP status, text or the error's message)."""
        ...

    def watch_pods(self, namespace: str, *, selector: str = "", name: str = "") -> PodWatch:
        """The pods a label selector matches (or the one named): listed, then watched."""
        ...

    def follow_log(self, namespace: str, pod: str, container: str) -> LogFollow:
        """One container's log as it is written (GET .../log?follow=true); a container that
        has not started raises KubeError."""
        ...

    def events(self, namespace: str, kind: str, name: str) -> list[dict[str, Any]]:
        """The events naming an object, oldest first."""
        ...

    # -- set-up -------------------------------------------------------------------
    def install_crds(self, crds: Sequence[tuple[str, str]], *, server_side: bool, force: bool = False,
                     strategy: str = "hookOnly") -> list[str]:
        """A chart's crds/ files, (name, manifest) in order: server-side applied (an existing
        CRD brought to the chart's version) or created (an existing one left as it is),
        then, by the --wait strategy's waiter (hookOnly: none), waited for up to 60 s;
        the refs of those written."""
        ...

    def ensure_namespace(self, namespace: str, *, server_side: bool = True) -> None:
        """--create-namespace: Helm's Create of the namespace labelled `name: NAMESPACE`
        (server-side apply also labels an existing one; a create leaves it)."""
        ...

    def lock(self, namespace: str, release: str, wait_seconds: float,
             on_wait: Callable[[str], None] | None = None) -> Lock:
        """Take the release's Lease (waiting up to `wait_seconds` for a live holder;
        `on_wait` is told whom for, once and when the holder changes)."""
        ...


class KubeCluster:
    """The Cluster over a real API server: each operation is a runner.kube function.
    They are imported where used: status, history and get load this module and never
    apply, wait or delete anything. Every wait tells `on_progress` what it awaits;
    what Helm's waiters and lookup log at their default level goes to `on_log`."""

    def __init__(self, client: KubeClient, *, on_progress: Progress | None = None,
                 on_log: Log | None = None) -> None:
        self.client = client
        self.on_progress = on_progress
        self.on_log = on_log
        self._unwaited_crds: list[Resource] = []  # crds/ written without --wait, this run

    def server_version(self) -> str:
        return self.client.server_version()

    def api_versions(self) -> list[str]:
        return self.client.api_versions()

    def lookup(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
        from runner.kube.lookup import lookup

        return lookup(self.client, api_version, kind, namespace, name, log=self.on_log)

    def build(self, manifest: str, namespace: str, *, validate: bool = True) -> list[Resource]:
        from runner.kube.resources import ManifestBuildError, build

        try:
            return build(self.client, manifest, namespace, validate=validate)
        except ManifestBuildError:
            if not self._unwaited_crds:
                raise
        self._settle_new_crds()
        return build(self.client, manifest, namespace, validate=validate)

    def _settle_new_crds(self) -> None:
        """CRDs this run wrote without --wait (so not waited for, as Helm's are not), once a
        build could not map everything: waited for until Established, quietly and at most the
        60 s Helm gives them with --wait, before the build is tried again. The API server
        serves a new CRD within milliseconds, usually before the chart is even rendered;
        this closes the rare window in which Helm's Build, a moment too early, fails."""
        import contextlib

        from runner.kube import wait
        from runner.kube.crds import CRD_WAIT_SECONDS

        crds, self._unwaited_crds = self._unwaited_crds, []
        with contextlib.suppress(wait.WaitError):
            wait.watch_ready(self.client, crds, CRD_WAIT_SECONDS)

    def existing(self, resources: Sequence[Resource], release: str, namespace: str, *,
                 take_ownership: bool) -> list[Resource]:
        from runner.kube.ownership import existing_resources

        return existing_resources(self.client, resources, release, namespace,
                                  take_ownership=take_ownership)

    def preflight(self, resources: Sequence[Resource], *, ignore_manager: str = "") -> list[str]:
        from runner.kube.apply import preflight_conflicts

        return preflight_conflicts(self.client, resources, ignore_manager=ignore_manager)

    def create(self, resources: Sequence[Resource], *, server_side: bool, force: bool = False,
               result: ApplyResult | None = None) -> ApplyResult:
        from runner.kube import operations

        return operations.create_all(self.client, resources, server_side=server_side, force=force,
                                     result=result)

    def update(self, current: Sequence[Resource], target: Sequence[Resource], *, server_side: bool,
               force: bool = False, upgrade_csa_manager: bool = False,
               three_way_for_custom: bool = False, replace: bool = False,
               result: ApplyResult | None = None) -> ApplyResult:
        from runner.kube import operations

        return operations.update_all(self.client, current, target, server_side=server_side,
                                     force=force, upgrade_csa_manager=upgrade_csa_manager,
                                     three_way_for_custom=three_way_for_custom, replace=replace,
                                     result=result)

    def delete(self, resources: Sequence[Resource], cascade: str = "background"
               ) -> tuple[list[Resource], list[str]]:
        from runner.kube import operations

        return operations.delete_all(self.client, resources, cascade)

    def preview(self, current: Sequence[Resource], target: Sequence[Resource], *, release: str,
                namespace: str, server_side: bool, force: bool = False,
                three_way_for_custom: bool = False, take_ownership: bool = False) -> Preview:
        from runner.kube.preview import preview

        return preview(self.client, current, target, release=release, namespace=namespace,
                       server_side=server_side, force=force,
                       three_way_for_custom=three_way_for_custom, take_ownership=take_ownership)

    def wait(self, resources: Sequence[Resource], timeout: float, *, strategy: str = "watcher",
             jobs: bool = False) -> None:
        from runner.kube import wait

        wait.wait_for(strategy, self.client, resources, timeout, jobs=jobs, progress=self.on_progress)

    def wait_deleted(self, resources: Sequence[Resource], timeout: float, *,
                     strategy: str = "watcher") -> None:
        from runner.kube import wait

        wait.wait_deleted(strategy, self.client, resources, timeout, progress=self.on_progress)

    def create_hook(self, resources: Sequence[Resource], *, server_side: bool) -> None:
        from runner.kube.apply import create, server_side_apply
        from runner.kube.operations import debug_create_method, debug_object

        self.client.debug("creating resource(s)", resources=len(resources))  # as Helm's Create
        debug_create_method(self.client, server_side=server_side, force=False, dry_run=False)
        for resource in resources:
            if server_side:
                server_side_apply(self.client, resource, force=False)
                debug_object(self.client, "Created resource via patch", resource)
            else:
                create(self.client, resource)

    def watch_hook(self, resources: Sequence[Resource], timeout: float, *,
                   strategy: str = "hookOnly") -> None:
        from runner.kube import wait

        wait.wait_hook(strategy, self.client, resources, timeout, progress=self.on_progress, log=self.on_log)

    def hook_deleted(self, resources: Sequence[Resource], timeout: float, *,
                     strategy: str = "hookOnly") -> None:
        """Helm's hookOnly waiter does not wait for deleted hooks at all: its next create
        of a Pod hook still terminating then fails. We wait as the watcher does."""
        from runner.kube import wait

        if not resources:  # none deleted (already gone): nothing to wait for, nothing to log
            return
        wait.wait_deleted(strategy, self.client, resources, timeout, progress=self.on_progress)

    def pod_log(self, namespace: str, pod: str) -> tuple[int, str]:
        return self.client.text(f"/api/v1/namespaces/{namespace}/pods/{pod}/log")

    def live(self, resource: Resource) -> dict[str, Any] | None:
        from runner.kube import observe

        return observe.live(self.client, resource)

    def pods(self, namespace: str, *, selector: str = "", name: str = "") -> list[dict[str, Any]]:
        from runner.kube import observe

        return observe.pods(self.client, namespace, selector=selector, name=name)

    def container_log(self, namespace: str, pod: str, container: str, *, tail_lines: int | None = None,
                      limit_bytes: int | None = None) -> tuple[int, str]:
        from runner.kube import observe

        return observe.container_log(self.client, namespace, pod, container, tail_lines=tail_lines,
                                     limit_bytes=limit_bytes)

    def watch_pods(self, namespace: str, *, selector: str = "", name: str = "") -> PodWatch:
        from runner.kube import observe

        return observe.PodWatch(self.client, namespace, selector=selector, name=name)

    def follow_log(self, namespace: str, pod: str, container: str) -> LogFollow:
        from runner.kube import observe

        return observe.LogStream(self.client, namespace, pod, container)

    def events(self, namespace: str, kind: str, name: str) -> list[dict[str, Any]]:
        from runner.kube import observe

        return observe.events(self.client, namespace, kind, name)

    def install_crds(self, crds: Sequence[tuple[str, str]], *, server_side: bool, force: bool = False,
                     strategy: str = "hookOnly") -> list[str]:
        from runner.kube import wait
        from runner.kube.crds import CRD_WAIT_SECONDS, install_crds

        written = install_crds(self.client, crds, server_side=server_side, force=force)
        if written:
            wait.wait_for(strategy, self.client, written, CRD_WAIT_SECONDS, progress=self.on_progress)
            if strategy == "hookOnly":
                self._unwaited_crds = list(written)
        return [crd.ref() for crd in written]

    def ensure_namespace(self, namespace: str, *, server_side: bool = True) -> None:
        from runner.kube.client import KubeError
        from runner.kube.operations import create_all
        from runner.kube.resources import Resource

        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": {"name": namespace}}}
        try:
            create_all(self.client, [Resource(body, self.client.mapping("v1", "Namespace"))], server_side=server_side)
        except KubeError as err:
            if err.reason != "AlreadyExists":
                raise

    def lock(self, namespace: str, release: str, wait_seconds: float,
             on_wait: Callable[[str], None] | None = None) -> Lock:
        from runner.kube.lease import ReleaseLock

        return ReleaseLock(self.client, namespace, release).acquire(wait_seconds, on_wait)
