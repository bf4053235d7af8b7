"""Waiting for a release's objects as Helm 4.1.4's waiters do, by watching them.

Helm picks a waiter by --wait strategy (pkg/kube/client.go GetWaiterWithOptions);
its hooks use the same one (pkg/action/hooks.go):

  strategy  objects (--wait)        hooks (WatchUntilReady)           deleted (hooks, uninstall)
  watcher   kstatus Current         Jobs complete, Pods succeed,      kstatus NotFound
                                    any other kind at once
  hookOnly  no wait                 as watcher                        no wait in Helm; we wait
                                                                      as watcher for hooks
  legacy    Helm 3's ReadyChecker   a Job until complete, a Pod       GET until gone
                                    until it succeeds, either until
                                    deleted; other kinds not at all

Helm's legacy waiter polls every 2 s; every wait here lists then watches instead
(runner.kube.watch.Observer): two requests per kind and namespace, and the event
that settles the last object ends the wait at once. A hook Job deleted the moment
it completes (ttlSecondsAfterFinished: 0) is seen complete first, as Helm sees it.

Errors are Helm's text (statusWaiter: one line per object not there, then
"context deadline exceeded"; legacy: its own words); they carry our account of
each object that is not ready (runner.kube.unready: replicas, pods and why), which
the CLI prints first in the evidence after Helm's error (runner.actions.evidence).
While it waits, a wait tells `progress` what it awaits (WaitProgress), at the
start, at each change and every TICK_SECONDS.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runner.errors import RunnerError
from runner.kube import kstatus
from runner.kube.client import KubeClient
from runner.kube.resources import Resource

if TYPE_CHECKING:
    from runner.kube.watch import News, Observer, Target

    Judge = Callable[[Resource, dict[str, Any] | None], tuple[str, str]]

DEFAULT_WATCHER_TIMEOUT = 30.0  # Helm's DefaultStatusWatcherTimeout, for a timeout of 0
TICK_SECONDS = 1.0  # how often a wait tells its progress when nothing changes
LONGEST_WATCH_SECONDS = 1800.0  # one watch request at most (a legacy wait of 0 has no end)
UNKNOWN = "Unknown"  # kstatus's status of an object not seen yet

# Helm's legacy waiter words for hooks (legacyWaiter.watchUntilReady, waitForJob, waitForPodSuccess)
COMPLETE, SUCCEEDED, DELETED, RUNNING = "Complete", "Succeeded", "Deleted", "Running"
READY, NOT_READY = "Ready", "NotReady"


class WaitError(RunnerError):
    """Objects did not become ready (or gone) in time, or failed. The text is Helm's;
    `account` says why in our words, a line an object; `unready` holds each object's
    last state as data."""

    def __init__(self, helm_text: str, account: Sequence[str] = (),
                 unready: Sequence[Awaited] = ()) -> None:
        super().__init__(helm_text)
        self.helm_text = helm_text
        self.account = list(account)  # printed first among the evidence (runner.actions.evidence)
        self.unready = list(unready)


@dataclass(frozen=True)
class Awaited:
    """One awaited object as the wait last saw it."""

    kind: str
    namespace: str
    name: str
    status: str  # kstatus's (Current, InProgress, Failed, ...) or the legacy waiter's
    message: str
    settled: bool  # needs no more waiting: there, gone or failed for good

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class WaitProgress:
    """What a wait tells while it runs. `stage`: start (first look done), change,
    tick (every TICK_SECONDS without change), end; `changed`: what this one changed."""

    purpose: str  # "ready" (--wait), "hook" (a hook's objects), "deleted"
    stage: str
    elapsed: float
    timeout: float  # 0: none (legacy)
    awaited: tuple[Awaited, ...]
    changed: tuple[Awaited, ...] = ()

    @property
    def pending(self) -> list[Awaited]:
        return [a for a in self.awaited if not a.settled]

    @property
    def goal(self) -> str:
        """What the awaited objects must become, in a word."""
        return {"hook": "complete", "deleted": "deleted"}.get(self.purpose, "ready")

    def summary(self, most: int = 3) -> str:
        """One line: how many are awaited and for how long, the first `most` with why."""
        total, pending = len(self.awaited), self.pending
        objects = f"object{'s' if total != 1 else ''}"
        if not pending:
            return f"{total} {objects} {self.goal} after {seconds(self.elapsed)}"
        if self.stage == "end":
            return f"{len(pending)} of {total} {objects} not {self.goal} after {seconds(self.elapsed)}"
        shown = ", ".join(f"{a.ref} ({a.message or a.status})" for a in pending[:most])
        more = f" and {len(pending) - most} more" if len(pending) > most else ""
        return (f"waiting for {len(pending)} of {total} {objects} to be {self.goal} "
                f"({seconds(self.elapsed)}): {shown}{more}")


def seconds(value: float) -> str:
    """A duration as people read it: 4.2s, 1m05s."""
    if value < 60:
        return f"{value:.1f}s"
    minutes, rest = divmod(int(value), 60)
    return f"{minutes}m{rest:02d}s"


Progress = Callable[[WaitProgress], None]
Log = Callable[[str], None]  # a line Helm's logger prints on stderr at its default level


@dataclass(frozen=True)
class _Rules:
    """How one kind of wait judges an object (None: deleted) and when it is settled."""

    purpose: str
    judge: Judge
    settled: Callable[[str], bool]
    desired: str = ""  # the statusWaiter's goal (Current, NotFound): --debug names who is awaited


@dataclass
class _Outcome:
    states: dict[str, Awaited]
    objects: dict[str, dict[str, Any]]  # last copy seen of each, by Resource.key
    expired: bool


# -- waiting, by strategy -------------------------------------------------------------------


def in_effect(wait: bool, strategy: str) -> str:
    """Helm's WaitStrategy from our options: hookOnly unless waiting (--rollback-on-failure
    waits too, raising hookOnly to watcher). It also picks the hooks' waiter."""
    return strategy if wait else "hookOnly"


def wait_for(strategy: str, client: KubeClient, resources: Sequence[Resource], timeout: float,
             *, jobs: bool = False, progress: Progress | None = None) -> None:
    """--wait=<strategy>: watcher (kstatus), legacy (ReadyChecker), hookOnly (no wait)."""
    if strategy == "legacy":
        legacy_ready(client, resources, timeout, jobs=jobs, progress=progress)
    elif strategy != "hookOnly":
        watch_ready(client, resources, timeout, jobs=jobs, progress=progress)


def wait_hook(strategy: str, client: KubeClient, resources: Sequence[Resource], timeout: float,
              progress: Progress | None = None, log: Log | None = None) -> None:
    """A hook's objects, by the waiter the strategy picks (Helm's WatchUntilReady)."""
    if strategy == "legacy":
        legacy_hook(client, resources, timeout, progress=progress, log=log)
    else:
        watch_ready(client, resources, timeout, hooks=True, progress=progress)


def wait_deleted(strategy: str, client: KubeClient, resources: Sequence[Resource], timeout: float,
                 progress: Progress | None = None) -> None:
    """Objects gone (Helm's WaitForDelete): legacy's words, or the statusWaiter's."""
    if strategy == "legacy":
        legacy_deleted(client, resources, timeout, progress=progress)
    else:
        watch_deleted(client, resources, timeout, progress=progress)


def watch_ready(client: KubeClient, resources: Sequence[Resource], timeout: float, *,
                jobs: bool = False, hooks: bool = False, progress: Progress | None = None) -> None:
    """Helm's statusWaiter.Wait (WaitWithJobs with `jobs`, WatchUntilReady for hook
    objects with `hooks`): every object Current; a Failed one needs no more waiting."""
    def judge(resource: Resource, obj: dict[str, Any] | None) -> tuple[str, str]:
        return kstatus.compute(resource.kind, obj, jobs=jobs, hooks=hooks)

    rules = _Rules("hook" if hooks else "ready", judge,
                   lambda status: status in (kstatus.CURRENT, kstatus.FAILED), kstatus.CURRENT)
    timeout = timeout or DEFAULT_WATCHER_TIMEOUT
    client.debug("waiting for resources", count=len(resources), timeout=go_duration(timeout))
    awaited = [r for r in resources if not _paused(r)]
    outcome = _observe(client, awaited, timeout, rules, progress)
    lines = [f"resource {r.kind}/{r.namespace}/{r.name} not ready. status: {state.status}, "
             f"message: {state.message}"
             for r in awaited if (state := outcome.states[r.key]).status != kstatus.CURRENT]
    if outcome.expired:
        lines.append("context deadline exceeded")
    if lines:
        _fail(client, lines, awaited, outcome)
    client.debug("all resources achieved desired status", desiredStatus=kstatus.CURRENT,
                 resourceCount=len(resources))


def watch_deleted(client: KubeClient, resources: Sequence[Resource], timeout: float, *,
                  progress: Progress | None = None) -> None:
    """Helm's statusWaiter.WaitForDelete: every object gone, or one line per object
    still there ("... still exists. status: ..., message: ...") and the deadline."""
    rules = _Rules("deleted", lambda r, obj: kstatus.compute(r.kind, obj),
                   lambda status: status in (kstatus.NOT_FOUND, UNKNOWN), kstatus.NOT_FOUND)
    timeout = timeout or DEFAULT_WATCHER_TIMEOUT
    client.debug("waiting for resources to be deleted", count=len(resources), timeout=go_duration(timeout))
    outcome = _observe(client, resources, timeout, rules, progress)
    lines = [f"resource {r.kind}/{r.namespace}/{r.name} still exists. status: {state.status}, "
             f"message: {state.message}"
             for r in resources if not (state := outcome.states[r.key]).settled]
    if outcome.expired:
        lines.append("context deadline exceeded")
    if lines:
        _fail(client, lines, resources, outcome, deletion=True)
    # Helm counts none: objects gone before the watch began are dropped, and so are the deleted
    client.debug("all resources achieved desired status", desiredStatus=kstatus.NOT_FOUND, resourceCount=0)


def legacy_ready(client: KubeClient, resources: Sequence[Resource], timeout: float, *,
                 jobs: bool = False, progress: Progress | None = None) -> None:
    """Helm 3's waitForResources (ReadyChecker): each object ready by its kind's rule; a
    failed Job (with `jobs`) ends the wait with Helm's "job is failed: ns/name"."""
    def judge(resource: Resource, obj: dict[str, Any] | None) -> tuple[str, str]:
        if obj is None:
            return kstatus.NOT_FOUND, "not found"
        ready, why = ready_state(resource.kind, obj, jobs=jobs)
        return (READY, "") if ready else (NOT_READY, why)

    client.debug("beginning wait for resources", count=len(resources), timeout=go_duration(timeout))
    outcome = _observe(client, resources, timeout, _Rules("ready", judge, lambda s: s == READY), progress)
    if not all(state.settled for state in outcome.states.values()):
        _fail(client, ["context deadline exceeded"], resources, outcome)


def legacy_hook(client: KubeClient, resources: Sequence[Resource], timeout: float, *,
                progress: Progress | None = None, log: Log | None = None) -> None:
    """Helm's legacyWaiter.WatchUntilReady: a Job until it completes, a Pod until it
    succeeds, either until it is deleted; any other kind is not waited for. Each
    failure or timeout is one line, as Helm joins them; a failure is also logged at
    ERROR level as Helm's waiter logs it (`level=ERROR msg="job failed" job=x reason=y`)."""
    awaited = [r for r in resources if r.kind in ("Job", "Pod")]
    rules = _Rules("hook", _legacy_hook_state, lambda s: s in (COMPLETE, SUCCEEDED, DELETED, kstatus.FAILED))
    outcome = _observe(client, awaited, timeout, rules, progress)
    failed = [r for r in awaited if outcome.states[r.key].status == kstatus.FAILED]
    for resource in failed if log is not None else ():
        log(_failure_log(resource, outcome.objects[resource.key]))
    lines = [outcome.states[r.key].message for r in failed]
    lines += ["timed out waiting for the condition" for r in awaited if not outcome.states[r.key].settled]
    if lines:
        _fail(client, lines, awaited, outcome)


def legacy_deleted(client: KubeClient, resources: Sequence[Resource], timeout: float, *,
                   progress: Progress | None = None) -> None:
    """Helm's legacyWaiter.WaitForDelete: every object gone, else "context deadline exceeded"."""
    def judge(resource: Resource, obj: dict[str, Any] | None) -> tuple[str, str]:
        return kstatus.compute(resource.kind, obj)

    rules = _Rules("deleted", judge, lambda s: s in (kstatus.NOT_FOUND, UNKNOWN))
    client.debug("beginning wait for resources to be deleted", count=len(resources), timeout=go_duration(timeout))
    begun = time.monotonic()
    outcome = _observe(client, resources, timeout, rules, progress)
    elapsed = go_duration(round(time.monotonic() - begun))
    if not all(state.settled for state in outcome.states.values()):
        client.debug("wait for resources failed", elapsed=elapsed, error="context deadline exceeded")
        _fail(client, ["context deadline exceeded"], resources, outcome, deletion=True)
    client.debug("wait for resources succeeded", elapsed=elapsed)


def _legacy_hook_state(resource: Resource, obj: dict[str, Any] | None) -> tuple[str, str]:
    if obj is None:
        return DELETED, ""
    status = obj.get("status") or {}
    if resource.kind == "Pod":
        phase = str(status.get("phase", ""))
        if phase == "Succeeded":
            return SUCCEEDED, ""
        if phase == "Failed":
            return kstatus.FAILED, f"pod {resource.name} failed"
        return phase or "Pending", f"pod {phase.lower() or 'pending'}"
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Complete" and condition.get("status") == "True":
            return COMPLETE, ""
        if condition.get("type") == "Failed" and condition.get("status") == "True":
            return kstatus.FAILED, f"job {resource.name} failed: {condition.get('reason', '')}"
    return RUNNING, (f"active: {status.get('active', 0)}, failed: {status.get('failed', 0)}, "
                     f"succeeded: {status.get('succeeded', 0)}")


def _failure_log(resource: Resource, obj: dict[str, Any]) -> str:
    """slog's text line for legacyWaiter's `job failed` / `pod failed` errors."""
    from runner.golang.slog import text_line

    if resource.kind == "Pod":
        return text_line("ERROR", "pod failed", {"pod": resource.name})
    reason = next((str(c.get("reason", "")) for c in (obj.get("status") or {}).get("conditions") or []
                   if c.get("type") == "Failed" and c.get("status") == "True"), "")
    return text_line("ERROR", "job failed", {"job": resource.name, "reason": reason})


def _fail(client: KubeClient, helm_lines: list[str], resources: Sequence[Resource],
          outcome: _Outcome, *, deletion: bool = False) -> None:
    """Raise WaitError: Helm's lines, then ours for each object not settled or failed."""
    from runner.kube import unready

    troubled = [r for r in resources if _troubled(outcome.states[r.key])]
    account = unready.explain(client, troubled, outcome.objects, outcome.states, deletion=deletion)
    raise WaitError("\n".join(helm_lines), account, [outcome.states[r.key] for r in troubled])


def _troubled(state: Awaited) -> bool:
    return not state.settled or state.status == kstatus.FAILED


def _paused(resource: Resource) -> bool:
    return resource.kind == "Deployment" and bool((resource.obj.get("spec") or {}).get("paused"))


# -- the watch loop ---------------------------------------------------------------------------


def _observe(client: KubeClient, resources: Sequence[Resource], timeout: float, rules: _Rules,
             progress: Progress | None) -> _Outcome:
    """Watch `resources` until each is settled by `rules` or `timeout` (0: none) passes."""
    from runner.kube.watch import Observer

    begun = time.monotonic()
    deadline = begun + timeout if timeout else math.inf
    targets = _targets(client, resources)
    # Not seen yet: Unknown. Absent from the first list, it stays so (settled for a deletion).
    states = {r.key: Awaited(r.kind, r.namespace, r.name, UNKNOWN, "", rules.settled(UNKNOWN)) for r in resources}
    outcome = _Outcome(states, {}, expired=False)
    if not resources:
        return outcome
    listed: set[Target] = set()
    told, debugged = _Teller(rules.purpose, begun, timeout, progress), ""
    with Observer(client, list(targets), deadline) as observer, told:
        while True:
            news = observer.next(min(TICK_SECONDS, deadline - time.monotonic()))
            changed = _apply(news, observer, targets, rules, outcome, listed) if news is not None else []
            synced = len(listed) == len(targets)
            done = synced and all(s.settled for s in states.values())
            outcome.expired = not done and time.monotonic() >= deadline
            if synced and (told.started or not done):  # nothing to tell when all was there at once
                told.tell(states, changed)
            if synced and not done and rules.desired:
                debugged = _debug_waiting(client, resources, states, rules.desired, debugged)
            if done or outcome.expired:
                break
    return outcome


def _debug_waiting(client: KubeClient, resources: Sequence[Resource], states: dict[str, Awaited],
                   desired: str, told: str) -> str:
    """Helm's statusObserver line: the first (by name) of those not there yet, and its
    status; said again only when that changes. Returns what was said."""
    first = min((states[r.key] for r in resources if not states[r.key].settled), key=lambda a: a.name)
    line = f"{first.ref}={first.status}"
    if line != told:
        client.debug("waiting for resource", namespace=first.namespace, name=first.name, kind=first.kind,
                     expectedStatus=desired, actualStatus=first.status)
    return line


def go_duration(seconds: float) -> str:
    """A timeout as Go prints a time.Duration (5m0s), as Helm's log shows it."""
    from runner.golang.time import duration_string

    return duration_string(round(seconds * 1e9))


def _targets(client: KubeClient, resources: Sequence[Resource]) -> dict[Target, list[Resource]]:
    """One target per kind and namespace (narrowed to the name when it holds one object),
    read at the group's preferred version, as kstatus' watcher maps a kind (so a
    deprecated version the chart uses is not asked for again, nor warned of)."""
    from runner.kube.watch import Target

    groups: dict[str, list[Resource]] = {}
    for resource in resources:
        mapping = client.preferred_mapping(resource.mapping)
        groups.setdefault(mapping.collection_path(resource.namespace), []).append(resource)
    return {Target(path, f"metadata.name={members[0].name}" if len(members) == 1 else ""): members
            for path, members in groups.items()}


def _apply(news: News, observer: Observer, targets: dict[Target, list[Resource]], rules: _Rules,
           outcome: _Outcome, listed: set[Target]) -> list[Awaited]:
    """Judge again the objects `news` speaks of; the states that changed. After a list,
    the target is watched only if some of its objects are not settled yet."""
    if news.kind == "failed" and news.error is not None:
        raise news.error
    members = targets[news.target]
    if news.kind == "listed":
        listed.add(news.target)
        present = {str((o.get("metadata") or {}).get("name", "")): o for o in news.objects}
        found = [(r, present.get(r.name)) for r in members
                 if r.name in present or r.key in outcome.objects]  # gone since seen: deleted
    else:
        obj = news.objects[0]
        name = str((obj.get("metadata") or {}).get("name", ""))
        found = [(r, None if news.kind == "DELETED" else obj) for r in members if r.name == name]
    changed = []
    for resource, obj in found:
        if obj is not None:
            obj = {**obj, "apiVersion": resource.api_version, "kind": resource.kind}  # list items carry neither
            outcome.objects[resource.key] = obj
        status, message = rules.judge(resource, obj)
        state = Awaited(resource.kind, resource.namespace, resource.name, status, message,
                        rules.settled(status))
        if state != outcome.states[resource.key]:
            outcome.states[resource.key] = state
            changed.append(state)
    if news.kind == "listed":
        observer.decide(news.target, watch=not all(outcome.states[r.key].settled for r in members))
    return changed


class _Teller:
    """Tells `progress` what a wait awaits: once the first look is done, at each change,
    every TICK_SECONDS without one, and at the end (when it told anything before)."""

    def __init__(self, purpose: str, begun: float, timeout: float, progress: Progress | None) -> None:
        self.purpose, self.begun, self.timeout, self.progress = purpose, begun, timeout, progress
        self.started = False
        self.last = begun
        self.states: dict[str, Awaited] = {}

    def __enter__(self) -> _Teller:
        return self

    def __exit__(self, *exc: object) -> None:
        """The end is told however the wait ended (a timeout, an error, an interrupt)."""
        if self.started:
            self._send("end", self.states, ())

    def tell(self, states: dict[str, Awaited], changed: list[Awaited]) -> None:
        self.states = states
        now = time.monotonic()
        if not self.started:
            self._send("start", states, ())
            self.started = True
        elif changed:
            self._send("change", states, changed)
        elif now - self.last >= TICK_SECONDS:
            self._send("tick", states, ())
        else:
            return
        self.last = now

    def _send(self, stage: str, states: dict[str, Awaited], changed: Sequence[Awaited]) -> None:
        if self.progress is not None:
            self.progress(WaitProgress(self.purpose, stage, time.monotonic() - self.begun, self.timeout,
                                       tuple(states.values()), tuple(changed)))


# -- Helm 3's ReadyChecker (the legacy waiter), kind by kind ------------------------------------


def ready_state(kind: str, obj: dict[str, Any], *, jobs: bool = False) -> tuple[bool, str]:
    """(ready, why-not) for one live object, as Helm's ReadyChecker (PausedAsReady: true;
    CheckJobs: `jobs`) decides it; kinds it does not check are ready once they exist."""
    if kind == "Job" and not jobs:
        return True, ""
    check = _CHECKS.get(kind)
    return check(obj) if check else (True, "")


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _generation_seen(obj: dict[str, Any]) -> bool:
    status = obj.get("status") or {}
    return _int(status.get("observedGeneration")) == _int((obj.get("metadata") or {}).get("generation"))


def _deployment(obj: dict[str, Any]) -> tuple[bool, str]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    if spec.get("paused"):
        return True, ""
    want = _int(spec.get("replicas", 1), 1)
    if not _generation_seen(obj):
        return False, "rollout not observed yet"
    if _int(status.get("updatedReplicas")) < want or _int(status.get("availableReplicas")) < want:
        return False, f"{_int(status.get('availableReplicas'))}/{want} replicas available"
    return True, ""


def _statefulset(obj: dict[str, Any]) -> tuple[bool, str]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    if not _generation_seen(obj):
        return False, "rollout not observed yet"
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return True, ""
    partition = _int((strategy.get("rollingUpdate") or {}).get("partition"))
    replicas = _int(spec.get("replicas", 1), 1)
    if _int(status.get("updatedReplicas")) < replicas - partition:
        return False, f"{_int(status.get('updatedReplicas'))}/{replicas - partition} replicas updated"
    if _int(status.get("readyReplicas")) != replicas:
        return False, f"{_int(status.get('readyReplicas'))}/{replicas} replicas ready"
    if partition == 0 and status.get("currentRevision") != status.get("updateRevision"):
        return False, "current revision is not the update revision yet"
    return True, ""


def _daemonset(obj: dict[str, Any]) -> tuple[bool, str]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    if not _generation_seen(obj):
        return False, "rollout not observed yet"
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return True, ""
    want = _int(status.get("desiredNumberScheduled"))
    if _int(status.get("updatedNumberScheduled")) != want:
        return False, f"{_int(status.get('updatedNumberScheduled'))}/{want} pods scheduled"
    unavailable = _scaled((strategy.get("rollingUpdate") or {}).get("maxUnavailable", 1), want)
    if _int(status.get("numberReady")) < want - unavailable:
        return False, f"{_int(status.get('numberReady'))}/{want - unavailable} pods ready"
    return True, ""


def _scaled(value: Any, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent, rounding up; an invalid value counts as `total`."""
    if isinstance(value, str):
        if not value.endswith("%") or not value[:-1].isdigit():
            return total
        return math.ceil(int(value[:-1]) * total / 100)
    return _int(value, total)


def _pvc(obj: dict[str, Any]) -> tuple[bool, str]:
    phase = (obj.get("status") or {}).get("phase", "")
    return phase == "Bound", f"phase {phase or 'Pending'}"


def _job(obj: dict[str, Any]) -> tuple[bool, str]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    if _int(status.get("failed")) > _int(spec.get("backoffLimit", 6), 6):
        meta = obj.get("metadata") or {}
        raise WaitError(f"job is failed: {meta.get('namespace', '')}/{meta.get('name', '')}")
    completions = spec.get("completions")
    if completions is not None and _int(status.get("succeeded")) < _int(completions):
        return False, f"{_int(status.get('succeeded'))}/{_int(completions)} completions"
    return True, ""


def _pod(obj: dict[str, Any]) -> tuple[bool, str]:
    status = obj.get("status") or {}
    ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                for c in status.get("conditions") or [])
    return ready, f"phase {status.get('phase') or 'Pending'}, not ready"


def _service(obj: dict[str, Any]) -> tuple[bool, str]:
    """serviceReady: a cluster IP; a LoadBalancer also needs external IPs or an ingress."""
    spec = obj.get("spec") or {}
    if spec.get("type") == "ExternalName":
        return True, ""
    if not spec.get("clusterIP"):
        return False, "no cluster IP yet"
    if spec.get("type") != "LoadBalancer" or spec.get("externalIPs"):
        return True, ""
    ingress = ((obj.get("status") or {}).get("loadBalancer") or {}).get("ingress")
    return ingress is not None, "no load balancer ingress yet"


def _crd(obj: dict[str, Any]) -> tuple[bool, str]:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Established" and condition.get("status") == "True":
            return True, ""
        if condition.get("type") == "NamesAccepted" and condition.get("status") == "False":
            return True, ""  # a naming conflict is not the wait's to report (Helm's words)
    return False, "not established yet"


def _replicas(obj: dict[str, Any]) -> tuple[bool, str]:
    """ReplicaSet / ReplicationController: generation seen and every replica ready (Helm
    asks each selected pod; the controller's readyReplicas counts the same pods)."""
    if not _generation_seen(obj):
        return False, "not observed yet"
    want = _int((obj.get("spec") or {}).get("replicas", 1), 1)
    ready = _int((obj.get("status") or {}).get("readyReplicas"))
    return ready >= want, f"{ready}/{want} replicas ready"


_CHECKS: dict[str, Callable[[dict[str, Any]], tuple[bool, str]]] = {
    "Deployment": _deployment, "StatefulSet": _statefulset, "DaemonSet": _daemonset,
    "PersistentVolumeClaim": _pvc, "Job": _job, "Pod": _pod, "Service": _service,
    "CustomResourceDefinition": _crd, "ReplicaSet": _replicas, "ReplicationController": _replicas,
}
