"""A fake of runner.kube.cluster.Cluster: objects in a dict, failures on request.

It keeps what a user would look at — which objects exist, with what content and
metadata — and answers the way the API server does where actions depend on it:
server-side apply creates or updates, client-side create refuses an existing
object, deleting a missing object is no error, ownership follows Helm's
labels and annotations. Tests arrange trouble with `fail`, `never_ready`,
`interrupt`, `conflict`, `hold_lock` and `expire_lock`.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from runner.kube.apply import ApplyResult, FieldConflict, conflict_message, conflict_text
from runner.kube.client import KubeError, NoKindMatchError, RestMapping
from runner.kube.lease import LockHeldError, PreviousHolder
from runner.kube.operations import has_keep_policy
from runner.kube.ownership import OwnershipError, ownership_problem
from runner.kube.preview import ObjectPreview, Preview
from runner.kube.resources import Resource, build, difference, parse_documents
from runner.kube.wait import WaitError

KINDS = [
    RestMapping("", "v1", "ConfigMap", "configmaps", True),
    RestMapping("", "v1", "Secret", "secrets", True),
    RestMapping("", "v1", "Service", "services", True),
    RestMapping("", "v1", "Pod", "pods", True),
    RestMapping("", "v1", "ServiceAccount", "serviceaccounts", True),
    RestMapping("", "v1", "Namespace", "namespaces", False),
    RestMapping("apps", "v1", "Deployment", "deployments", True),
    RestMapping("batch", "v1", "Job", "jobs", True),
    RestMapping("apiextensions.k8s.io", "v1", "CustomResourceDefinition",
                "customresourcedefinitions", False),
]


@dataclass
class FakeLock:
    release: str
    log: list[str]
    held: dict[str, str]
    taken_over: PreviousHolder | None = None

    def release_lock(self) -> None:
        self.log.append(f"release {self.release}")
        del self.held[self.release]


@dataclass
class FakeCluster:
    version: str = "v1.35.0"
    objects: dict[str, dict] = field(default_factory=dict)  # by API path
    namespaces: set[str] = field(default_factory=set)
    logs: dict[str, str] = field(default_factory=dict)  # pod name -> log text
    container_logs: dict[tuple[str, str], str] = field(default_factory=dict)  # (pod, container) -> log text
    event_list: list[dict] = field(default_factory=list)
    log_requests: list[tuple] = field(default_factory=list)  # (pod, container, tail_lines), in order
    follows: list[tuple[str, str]] = field(default_factory=list)  # (pod, container) of each log followed
    pod_lists: int = 0  # calls of pods(): what a list of pods would cost the API server
    pod_watches: list[tuple[str, str, str]] = field(default_factory=list)  # (namespace, selector, name)
    # Kind/name of a hook -> the pods it makes when created: runner.kube's "runs" of a Job or Pod
    runs: dict[str, list[dict]] = field(default_factory=dict)
    lock_log: list[str] = field(default_factory=list)  # "acquire x" / "release x", in order
    waiters: list[tuple[str, str]] = field(default_factory=list)  # (wait, --wait strategy), in order
    _kinds: dict[tuple[str, str], RestMapping] = field(default_factory=dict)
    _failures: dict[tuple[str, str], str] = field(default_factory=dict)
    _interrupts: set[tuple[str, str]] = field(default_factory=set)
    _never_ready: set[str] = field(default_factory=set)
    _conflicts: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    _locks: dict[str, str] = field(default_factory=dict)  # release -> holder
    _expired: dict[str, PreviousHolder] = field(default_factory=dict)
    _uids: int = 0
    _log_written: threading.Condition = field(default_factory=threading.Condition)  # and any pod change
    _pods_version: int = 0  # moves at each change of a pod (what a watch of pods would report)

    def __post_init__(self) -> None:
        for mapping in KINDS:
            self._kinds[(mapping.api_version, mapping.kind)] = mapping

    # -- arranging trouble (tests) -----------------------------------------------
    def fail(self, operation: str, ref: str, message: str = "the server said no") -> None:
        """`operation` ("apply", "delete", "create-hook", "hook" (its watch: the hook ran and
        failed), "wait") on Kind/name fails with `message`."""
        self._failures[(operation, ref)] = message

    def interrupt(self, operation: str, ref: str) -> None:
        """Ctrl-C while `operation` runs on Kind/name."""
        self._interrupts.add((operation, ref))

    def never_ready(self, ref: str) -> None:
        self._never_ready.add(ref)

    def conflict(self, ref: str, field_path: str, manager: str) -> None:
        """Another field manager owns `field_path` of Kind/name (server-side apply)."""
        self._conflicts.setdefault(ref, []).append((field_path, manager))

    def hold_lock(self, release: str, holder: str = "another-run") -> None:
        self._locks[release] = holder

    def expire_lock(self, release: str, holder: str = "killed-run") -> None:
        """The release's lease was held by `holder`, which stopped renewing it."""
        self._expired[release] = PreviousHolder(holder, "2026-01-01T00:00:00.000000Z")

    def put(self, obj: dict, namespace: str = "ns") -> None:
        """An object that exists before the action runs (made by someone else)."""
        resource = build(self, _yaml(obj), namespace)[0]
        self.objects[resource.path] = copy.deepcopy(resource.obj)

    def add_pod(self, name: str, containers: Sequence[tuple[str, dict, str]], *, namespace: str = "ns",
                labels: dict | None = None, owner_uid: str = "", init: Sequence[tuple[str, dict, str]] = (),
                created: str = "2026-01-01T00:00:00Z") -> dict:
        """A pod that exists: its containers as (name, state, log), e.g.
        ("main", {"terminated": {"exitCode": 1, "reason": "Error"}}, "line\n")."""
        meta: dict = {"name": name, "namespace": namespace, "labels": dict(labels or {}),
                      "creationTimestamp": created}
        if owner_uid:
            meta["ownerReferences"] = [{"kind": "Job", "uid": owner_uid}]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
               "spec": {"initContainers": [{"name": c[0]} for c in init],
                        "containers": [{"name": c[0]} for c in containers]},
               "status": {"initContainerStatuses": [{"name": c[0], "state": c[1]} for c in init],
                          "containerStatuses": [{"name": c[0], "state": c[1]} for c in containers]}}
        with self._log_written:
            self.objects[f"/api/v1/namespaces/{namespace}/pods/{name}"] = pod
            for container, _state, log in [*init, *containers]:
                self.container_logs[(name, container)] = log
            self._pods_changed()
        return pod

    def _pods_changed(self) -> None:
        """(holding _log_written) A pod was added, changed or deleted: watches see it."""
        self._pods_version += 1
        self._log_written.notify_all()

    def write_log(self, pod: str, container: str, text: str) -> None:
        """The running container prints `text` (a follower sees it at once)."""
        with self._log_written:
            self.container_logs[(pod, container)] = self.container_logs.get((pod, container), "") + text
            self._log_written.notify_all()

    def end_container(self, pod: str, container: str, state: dict, namespace: str = "ns") -> None:
        """The container ends in `state` (e.g. terminated, exit code 0): its followers end."""
        with self._log_written:
            status = self._container_status(namespace, pod, container)
            assert status is not None, f"no container {container} in pod {pod}"
            status["state"] = state
            self._pods_changed()

    def _container_status(self, namespace: str, pod: str, container: str) -> dict | None:
        live = self.objects.get(f"/api/v1/namespaces/{namespace}/pods/{pod}")
        if live is None:
            return None
        statuses = [*live["status"]["initContainerStatuses"], *live["status"]["containerStatuses"]]
        return next(s for s in statuses if s["name"] == container)

    def get(self, kind: str, name: str, namespace: str = "ns") -> dict | None:
        mapping = next(m for m in self._kinds.values() if m.kind == kind)
        return self.objects.get(mapping.object_path(name, namespace if mapping.namespaced else ""))

    def names(self, kind: str) -> list[str]:
        return sorted(obj["metadata"]["name"] for obj in self.objects.values() if obj["kind"] == kind)

    # -- what runner.kube.resources.build asks of a client -------------------------
    def mapping(self, api_version: str, kind: str) -> RestMapping:
        found = self._kinds.get((api_version, kind))
        if found is None:
            raise NoKindMatchError(f'no matches for kind "{kind}" in version "{api_version}"')
        return found

    # -- the Cluster Protocol ------------------------------------------------------------
    def server_version(self) -> str:
        return self.version

    def api_versions(self) -> list[str]:
        versions = {m.api_version for m in self._kinds.values()}
        return sorted(versions) + sorted(f"{m.api_version}/{m.kind}" for m in self._kinds.values())

    def lookup(self, api_version: str, kind: str, namespace: str, name: str) -> dict:
        """The object (or a list of the kind's objects) as stored; {} for what is not there."""
        mapping = self._kinds.get((api_version, kind))
        if mapping is None:
            return {}
        where = namespace if mapping.namespaced else ""
        if name:
            return copy.deepcopy(self.objects.get(mapping.object_path(name, where), {}))
        items = [copy.deepcopy(obj) for _, obj in sorted(self.objects.items())
                 if (obj.get("apiVersion"), obj.get("kind")) == (api_version, kind)
                 and (not where or (obj.get("metadata") or {}).get("namespace") == where)]
        return {"apiVersion": api_version, "kind": f"{kind}List", "metadata": {}, "items": items}

    def build(self, manifest: str, namespace: str, *, validate: bool = True) -> list[Resource]:
        return build(self, manifest, namespace, validate=validate)

    def existing(self, resources: Sequence[Resource], release: str, namespace: str, *,
                 take_ownership: bool) -> list[Resource]:
        found = []
        for resource in resources:
            live = self.objects.get(resource.path)
            resource.exists = live is not None
            if live is None:
                continue
            problem = "" if take_ownership else ownership_problem(live, release, namespace)
            if problem:
                raise OwnershipError(f"{resource.describe()} exists and cannot be imported into "
                                     f"the current release: {problem}")
            resource.live = copy.deepcopy(live)
            found.append(resource)
        return found

    def preflight(self, resources: Sequence[Resource], *, ignore_manager: str = "") -> list[str]:
        found = []
        for resource in resources:
            causes = [FieldConflict(resource.describe(), path, manager, f'conflict with "{manager}"')
                      for path, manager in self._conflicts.get(resource.ref(), []) if manager != ignore_manager]
            if causes:
                found.append(conflict_text(resource, conflict_message(causes)))
        return found

    def create(self, resources: Sequence[Resource], *, server_side: bool, force: bool = False,
               result: ApplyResult | None = None) -> ApplyResult:
        result = result if result is not None else ApplyResult()
        for resource in resources:
            if not server_side and resource.path in self.objects:
                raise KubeError(f"failed to create {resource.describe()}: already exists", 409)
            created = self._write("apply", resource, force=force)
            (result.created if created else result.updated).append(resource)
        return result

    def update(self, current: Sequence[Resource], target: Sequence[Resource], *, server_side: bool,
               force: bool = False, upgrade_csa_manager: bool = False,
               three_way_for_custom: bool = False, replace: bool = False,
               result: ApplyResult | None = None) -> ApplyResult:
        result = result if result is not None else ApplyResult()
        for resource in target:
            created = self._write("apply", resource, force=force or not server_side)
            (result.created if created else result.updated).append(resource)
        for resource in difference(current, target):
            if has_keep_policy(resource, exact=True):
                result.kept.append(resource)
            elif self.objects.pop(resource.path, None) is not None:
                result.deleted.append(resource)
        return result

    def delete(self, resources: Sequence[Resource], cascade: str = "background"
               ) -> tuple[list[Resource], list[str]]:
        deleted, errors = [], []
        for resource in resources:
            message = self._failures.get(("delete", resource.ref()))
            if message:
                errors.append(f"failed to delete {resource.describe()}: {message}")
            elif (gone := self.objects.pop(resource.path, None)) is not None:
                deleted.append(resource)
                self._collect_garbage(gone["metadata"].get("uid"))
        return deleted, errors

    def preview(self, current: Sequence[Resource], target: Sequence[Resource], *, release: str,
                namespace: str, server_side: bool, force: bool = False,
                three_way_for_custom: bool = False, take_ownership: bool = False) -> Preview:
        """As an apply would go: the rendered object replaces the live one (no defaulting);
        conflicts and foreign owners noted; nothing written."""
        changes = []
        for resource in target:
            live = self.objects.get(resource.path)
            note = ""
            if live is not None and self._conflicts.get(resource.ref()) and server_side and not force:
                note = "the apply conflicts with other field managers"
            changes.append(ObjectPreview(resource, copy.deepcopy(live), copy.deepcopy(resource.obj),
                                         note))
        removals = [ObjectPreview(r, copy.deepcopy(self.objects[r.path]), None)
                    for r in difference(current, target)
                    if r.path in self.objects and not has_keep_policy(r, exact=True)]
        return Preview(changes, removals)

    def _collect_garbage(self, uid: str | None) -> None:
        """What the owner's deletion takes with it (a Job's pods)."""
        with self._log_written:
            for path, obj in list(self.objects.items()):
                if uid and any(ref.get("uid") == uid for ref in obj["metadata"].get("ownerReferences") or []):
                    del self.objects[path]
            self._pods_changed()

    def wait(self, resources: Sequence[Resource], timeout: float, *, strategy: str = "watcher",
             jobs: bool = False) -> None:
        self.waiters.append(("wait", strategy))
        self._check_ready("wait", resources)

    def wait_deleted(self, resources: Sequence[Resource], timeout: float, *,
                     strategy: str = "watcher") -> None:
        self.waiters.append(("deleted", strategy))
        left = [r for r in resources if r.path in self.objects]
        if left:
            raise WaitError("\n".join([*(f"resource {r.kind}/{r.namespace}/{r.name} still exists"
                                         for r in left), "context deadline exceeded"]))

    def run_hook(self, ref: str, *pods: dict) -> None:
        """Creating hook `ref` (Kind/name) makes these pods: dicts of add_pod's arguments
        (name, containers, init); a Job's carry its job-name label and its uid."""
        self.runs[ref] = list(pods)

    def create_hook(self, resources: Sequence[Resource], *, server_side: bool) -> None:
        for resource in resources:
            if not server_side and resource.path in self.objects:
                raise KubeError(f"failed to create {resource.describe()}: already exists", 409)
            self._write("create-hook", resource, force=False)
            uid = self.objects[resource.path]["metadata"]["uid"]
            for pod in self.runs.get(resource.ref(), []):
                if resource.kind == "Job":
                    self.add_pod(namespace=resource.namespace, labels={"job-name": resource.name},
                                 owner_uid=uid, **pod)
                else:
                    self.add_pod(namespace=resource.namespace, **pod)

    def watch_hook(self, resources: Sequence[Resource], timeout: float, *,
                   strategy: str = "hookOnly") -> None:
        self.waiters.append(("hook", strategy))
        self._check_ready("hook", resources)

    def hook_deleted(self, resources: Sequence[Resource], timeout: float, *,
                     strategy: str = "hookOnly") -> None:
        self.waiters.append(("hook deleted", strategy))
        left = [r for r in resources if r.path in self.objects]
        if left:
            raise WaitError("\n".join([*(f"resource {r.kind}/{r.namespace}/{r.name} still exists"
                                         for r in left), "context deadline exceeded"]))

    def pod_log(self, namespace: str, pod: str) -> tuple[int, str]:
        if pod not in self.logs:
            return 404, f'pods "{pod}" not found'
        return 200, self.logs[pod]

    def live(self, resource: Resource) -> dict | None:
        return copy.deepcopy(self.objects.get(resource.path))

    def pods(self, namespace: str, *, selector: str = "", name: str = "") -> list[dict]:
        self.pod_lists += 1
        return self._matching_pods(namespace, selector, name)

    def _matching_pods(self, namespace: str, selector: str, name: str) -> list[dict]:
        wanted = dict(part.split("=", 1) for part in selector.split(",") if part)
        found = [obj for obj in self.objects.values() if obj.get("kind") == "Pod"
                 and obj["metadata"].get("namespace") == namespace
                 and (not name or obj["metadata"]["name"] == name)
                 and all((obj["metadata"].get("labels") or {}).get(k) == v for k, v in wanted.items())]
        return sorted(copy.deepcopy(found), key=lambda p: (p["metadata"].get("creationTimestamp", ""),
                                                           p["metadata"]["name"]))

    def container_log(self, namespace: str, pod: str, container: str, *, tail_lines: int | None = None,
                      limit_bytes: int | None = None) -> tuple[int, str]:
        self.log_requests.append((pod, container, tail_lines))
        refused = self._log_refused(namespace, pod, container)
        if refused is not None:
            return refused
        lines = self.container_logs.get((pod, container), "").splitlines(keepends=True)
        text = "".join(lines[-tail_lines:] if tail_lines else lines)
        return 200, text[:limit_bytes] if limit_bytes is not None else text

    def _log_refused(self, namespace: str, pod: str, container: str) -> tuple[int, str] | None:
        status = self._container_status(namespace, pod, container)
        if status is None:
            return 404, f'pods "{pod}" not found'
        if "waiting" in status["state"] and not status.get("lastState"):  # the kubelet's rule
            return 400, (f'container "{container}" in pod "{pod}" is waiting to start: '
                         f'{status["state"]["waiting"]["reason"]}')
        return None

    def watch_pods(self, namespace: str, *, selector: str = "", name: str = "") -> FakePodWatch:
        self.pod_watches.append((namespace, selector, name))
        return FakePodWatch(self, namespace, selector, name)

    def follow_log(self, namespace: str, pod: str, container: str) -> FakeLogFollow:
        refused = self._log_refused(namespace, pod, container)
        if refused is not None:
            raise KubeError(f"log of {pod}/{container}: {refused[1]}", refused[0])
        self.follows.append((pod, container))
        return FakeLogFollow(self, namespace, pod, container)

    def events(self, namespace: str, kind: str, name: str) -> list[dict]:
        return [e for e in self.event_list if e["involvedObject"] == {"kind": kind, "name": name}]

    def install_crds(self, crds: Sequence[tuple[str, str]], *, server_side: bool, force: bool = False,
                     strategy: str = "hookOnly") -> list[str]:
        written = []
        for _, manifest in crds:
            for obj in parse_documents(manifest):
                crd = build(self, _yaml(obj), "")[0]
                if crd.path in self.objects and not server_side:
                    continue  # AlreadyExists: client-side create leaves it as it is
                self.objects[crd.path] = copy.deepcopy(crd.obj)
                self._serve(crd.obj)
                written.append(crd.ref())
        return written

    def ensure_namespace(self, namespace: str, *, server_side: bool = True) -> None:
        self.namespaces.add(namespace)

    def lock(self, namespace: str, release: str, wait_seconds: float,
             on_wait: Callable[[str], None] | None = None) -> FakeLock:
        if release in self._locks:
            raise LockHeldError(self._locks[release], "2026-01-01T00:01:00.000000Z")
        self._locks[release] = "this-run"
        self.lock_log.append(f"acquire {release}")
        return FakeLock(release, self.lock_log, self._locks, self._expired.pop(release, None))

    # -- inside ---------------------------------------------------------------------------
    def _write(self, operation: str, resource: Resource, *, force: bool) -> bool:
        ref = resource.ref()
        if (operation, ref) in self._interrupts:
            raise KeyboardInterrupt
        message = self._failures.get((operation, ref))
        if message:
            raise KubeError(message, 500)  # the server's text, as Helm shows it
        if self._conflicts.get(ref) and not force:
            causes = [FieldConflict(resource.describe(), path, manager, f'conflict with "{manager}"')
                      for path, manager in self._conflicts[ref]]
            raise KubeError(conflict_text(resource, conflict_message(causes)), 409, "Conflict")
        created = resource.path not in self.objects
        self.objects[resource.path] = copy.deepcopy(resource.obj)
        self._uids += 1
        self.objects[resource.path].setdefault("metadata", {})["uid"] = f"uid-{self._uids}"
        resource.live = copy.deepcopy(resource.obj)
        return created

    def _check_ready(self, operation: str, resources: Sequence[Resource]) -> None:
        for resource in resources:
            if (operation, resource.ref()) in self._interrupts:
                raise KeyboardInterrupt
            message = self._failures.get((operation, resource.ref()))
            if message:
                raise WaitError(message)
        waiting = [r for r in resources if r.ref() in self._never_ready]
        if waiting:
            raise WaitError("\n".join([*(f"resource {r.kind}/{r.namespace}/{r.name} not ready. "
                                         "status: InProgress, message: waiting" for r in waiting),
                                       "context deadline exceeded"]))

    def _serve(self, crd: dict) -> None:
        """A created CRD makes its kind mappable (the API server starts serving it)."""
        spec = crd.get("spec") or {}
        for version in spec.get("versions") or []:
            mapping = RestMapping(spec["group"], version["name"], spec["names"]["kind"],
                                  spec["names"]["plural"], spec.get("scope") == "Namespaced")
            self._kinds[(mapping.api_version, mapping.kind)] = mapping


class FakeLogFollow:
    """A followed log: what the container printed so far, then each write_log as it
    comes, until end_container (or close)."""

    def __init__(self, fake: FakeCluster, namespace: str, pod: str, container: str) -> None:
        self.fake, self.namespace, self.key = fake, namespace, (pod, container)
        self.closed = False

    def chunks(self) -> Iterator[str]:
        sent, written = 0, self.fake._log_written
        while True:
            with written:
                text = self.fake.container_logs.get(self.key, "")
                if len(text) == sent:
                    if self.closed or not self._running():
                        return
                    written.wait(0.05)
                    continue
            yield text[sent:]
            sent = len(text)

    def _running(self) -> bool:
        status = self.fake._container_status(self.namespace, *self.key)
        return status is not None and "running" in status["state"]

    def close(self) -> None:
        with self.fake._log_written:
            self.closed = True
            self.fake._log_written.notify_all()


class FakePodWatch:
    """The matching pods at once, then again at each change of a pod (add_pod,
    end_container, a Job's deletion), until close."""

    def __init__(self, fake: FakeCluster, namespace: str, selector: str, name: str) -> None:
        self.fake, self.query = fake, (namespace, selector, name)
        self.closed = False

    def __iter__(self) -> Iterator[list[dict]]:
        seen, changed = -1, self.fake._log_written
        while True:
            with changed:
                while not self.closed and self.fake._pods_version == seen:
                    changed.wait()
                if self.closed:
                    return
                seen = self.fake._pods_version
                pods = self.fake._matching_pods(*self.query)
            yield pods

    def close(self) -> None:
        with self.fake._log_written:
            self.closed = True
            self.fake._log_written.notify_all()


def _yaml(obj: dict) -> str:
    import json

    return json.dumps(obj)  # JSON is YAML
