"""Evidence first: why an object failed, captured before anything destroys it.

A failing hook is deleted by its delete policy, a failed upgrade is rolled back, a
failed first install is uninstalled (--rollback-on-failure): each takes the
answer with it. So when a hook fails or a wait gives up, this captures for each
failing object, before anything else runs:

- its status (kstatus' words) and status conditions;
- the last events that name it (and its pods);
- its pods' container states (exit codes, waiting reasons, restarts) and the last
  lines of the containers that failed or never became ready;

all passed through the action's redactor. The evidence is kept on the action
(Journal.evidence), printed after the error (`evidence_text`, the CLI's error
details), and summarised in the failed release record's description
(`evidence_summary`): the only place Helm's record format has for it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from runner.actions.results import ContainerEvidence, Evidence
from runner.errors import RunnerError
from runner.kube import kstatus
from runner.kube.cluster import Cluster
from runner.kube.resources import Resource
from runner.release.redact import Redactor

if TYPE_CHECKING:
    from runner.actions.journal import Journal

LOG_TAIL_LINES = 20  # of each failing container
MAX_PODS = 3  # the newest pods of an object
MAX_EVENTS = 5  # the newest events of an object (and of each pod)
SUMMARY_CHARACTERS = 480  # in the release record's description
HEADING = "Evidence (captured when it failed, before any clean-up or rollback):"
_WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "Pod"}


def capture(cluster: Cluster, resources: Sequence[Resource], context: str, redactor: Redactor, *,
            only_failing: bool = False, hooks: bool = False, jobs: bool = False) -> list[Evidence]:
    """Evidence of `resources` (with `only_failing`, of those kstatus does not call Current;
    `hooks` and `jobs` as kstatus.compute takes them)."""
    found = []
    for resource in resources:
        live = cluster.live(resource)
        status, message = kstatus.compute(resource.kind, live, hooks=hooks, jobs=jobs)
        if only_failing and status == kstatus.CURRENT:
            continue
        evidence = Evidence(f"{resource.kind}/{resource.name}", resource.namespace, context,
                            status=redactor.redact(f"{status}: {message}" if message else status))
        if live is not None:
            evidence.conditions = [redactor.redact(_condition(c)) for c in _conditions(live)]
            evidence.events = _events(cluster, resource.namespace, resource.kind, resource.name, redactor)
            evidence.containers = _containers(cluster, resource, live, redactor)
            for pod in dict.fromkeys(c.pod for c in evidence.containers if c.pod != resource.name):
                evidence.events += [f"pod {pod}: {event}"
                                    for event in _events(cluster, resource.namespace, "Pod", pod, redactor)]
        found.append(evidence)
    return found


def _conditions(live: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in (live.get("status") or {}).get("conditions") or [] if isinstance(c, dict)]


def _condition(condition: dict[str, Any]) -> str:
    text = f"{condition.get('type', '')}={condition.get('status', '')}"
    if condition.get("reason"):
        text += f" ({condition['reason']})"
    return text + (f": {condition['message']}" if condition.get("message") else "")


def _events(cluster: Cluster, namespace: str, kind: str, name: str, redactor: Redactor) -> list[str]:
    found = cluster.events(namespace, kind, name)[-MAX_EVENTS:]
    return [redactor.redact(_event(event)) for event in found]


def _event(event: dict[str, Any]) -> str:
    count = event.get("count") or (event.get("series") or {}).get("count") or 1
    times = f" (x{count})" if int(count) > 1 else ""
    return f"{event.get('type', 'Normal')} {event.get('reason', '')}{times}: {event.get('message') or event.get('note') or ''}"


def pods_of(cluster: Cluster, resource: Resource, live: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The object's pods, oldest first: a Job's (its own by uid: an earlier Job of the
    same name may leave pods for a moment; those of a Job already gone by its name), a
    Pod itself, a workload's by its selector's labels."""
    if resource.kind == "Pod":
        return [live] if live is not None else []
    selector, uid = pod_selector(resource, live)
    return owned(cluster.pods(resource.namespace, selector=selector), uid) if selector else []


def pod_selector(resource: Resource, live: dict[str, Any] | None) -> tuple[str, str]:
    """How a workload's pods are found: their label selector ("" when it has none) and,
    for a Job, its uid, which must own them (`owned`; "": any)."""
    if resource.kind not in _WORKLOADS or resource.kind == "Pod":
        return "", ""
    if resource.kind == "Job":
        return f"job-name={resource.name}", ((live or {}).get("metadata") or {}).get("uid", "")
    labels = (((live or {}).get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items())), ""


def owned(pods: list[dict[str, Any]], uid: str) -> list[dict[str, Any]]:
    """Those of `pods` that `uid` owns (all when uid is "")."""
    return [p for p in pods if not uid or _owned_by(p, uid)]


def _owned_by(pod: dict[str, Any], uid: str) -> bool:
    return any(ref.get("uid") == uid for ref in (pod.get("metadata") or {}).get("ownerReferences") or [])


def _containers(cluster: Cluster, resource: Resource, live: dict[str, Any],
                redactor: Redactor) -> list[ContainerEvidence]:
    found = []
    for pod in pods_of(cluster, resource, live)[-MAX_PODS:]:
        name = (pod.get("metadata") or {}).get("name", "")
        for status, init in container_statuses(pod):
            entry = _container(status, name, init)
            if not _unhealthy(entry):
                continue
            if entry.state == "terminated" or entry.restarts or entry.exit_code is not None:
                code, text = cluster.container_log(resource.namespace, name, entry.container,
                                                   tail_lines=LOG_TAIL_LINES)
                entry.log_tail = redactor.redact_lines(text.splitlines()) if code < 400 else []
            entry.message = redactor.redact(entry.message)
            found.append(entry)
    return found


def container_statuses(pod: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
    """(status, is init) of every container in run order: init containers first. A
    container without a status yet gets an empty one with its name."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    found = []
    for specs, statuses, init in ((spec.get("initContainers"), status.get("initContainerStatuses"), True),
                                  (spec.get("containers"), status.get("containerStatuses"), False)):
        by_name = {s.get("name"): s for s in statuses or [] if isinstance(s, dict)}
        found += [(by_name.get(c.get("name")) or {"name": c.get("name", "")}, init)
                  for c in specs or [] if isinstance(c, dict)]
    return found


def _container(status: dict[str, Any], pod: str, init: bool) -> ContainerEvidence:
    entry = ContainerEvidence(pod, str(status.get("name", "")), init=init,
                              restarts=int(status.get("restartCount") or 0))
    state = status.get("state") or {}
    for kind in ("terminated", "waiting", "running"):
        if kind in state:
            detail = state[kind] or {}
            entry.state, entry.reason = kind, str(detail.get("reason") or "")
            entry.message = str(detail.get("message") or "")
            if kind == "terminated":
                entry.exit_code = int(detail.get("exitCode") or 0)
    last = (status.get("lastState") or {}).get("terminated")
    if entry.state != "terminated" and last:
        entry.exit_code = int(last.get("exitCode") or 0)  # the run before a restart
    return entry


def _unhealthy(entry: ContainerEvidence) -> bool:
    if entry.state == "terminated":
        return entry.exit_code != 0
    if entry.state == "running":
        return entry.restarts > 0
    return True  # waiting, or no status at all


def wait_for(journal: Journal, cluster: Cluster, resources: Sequence[Resource], timeout: float, *,
             strategy: str, jobs: bool) -> None:
    """--wait (install, upgrade, rollback): when it gives up, the evidence of what was not
    ready is taken first, into `journal`, then its error raised."""
    try:
        cluster.wait(resources, timeout, strategy=strategy, jobs=jobs)
    except RunnerError:
        journal.evidence.extend(capture(cluster, resources, "waited on", journal.redactor, only_failing=True,
                                        jobs=jobs))
        raise


@contextmanager
def on_error(journal: Journal) -> Iterator[None]:
    """An error raised inside carries the evidence captured meanwhile as its details."""
    first = len(journal.evidence)
    try:
        yield
    except RunnerError as err:
        if not err.details:
            err.details = evidence_text(journal.evidence[first:], account=_wait_account(err))
        raise


def _wait_account(err: BaseException | None) -> list[str]:
    """The account of a wait that gave up (runner.kube.wait.WaitError), in `err` or
    what it was raised from."""
    from runner.kube.wait import WaitError

    while err is not None:
        if isinstance(err, WaitError):
            return err.account
        err = err.__cause__ or err.__context__
    return []


# -- text ------------------------------------------------------------------------------


def evidence_text(evidence: Sequence[Evidence], account: Sequence[str] = ()) -> str:
    """The evidence as printed after an error: first a wait's `account` (a line an object
    not ready, and why), then an object a paragraph, indented."""
    if not evidence and not account:
        return ""
    lines = [HEADING, *(f"  {line}" for line in account)]
    for item in evidence:
        lines.append(f"  {item.object} ({item.context}): {item.status}")
        lines += [f"    condition {condition}" for condition in item.conditions]
        lines += [f"    event {event}" for event in item.events]
        for container in item.containers:
            lines.append(f"    {_container_line(container)}")
            lines += [f"      | {line}" for line in container.log_tail]
    return "\n".join(lines)


def _container_line(entry: ContainerEvidence) -> str:
    what = f"pod {entry.pod}, {'init container' if entry.init else 'container'} {entry.container}: "
    if entry.state == "terminated":
        what += f"terminated, exit code {entry.exit_code}" + (f" ({entry.reason})" if entry.reason else "")
    else:
        what += (entry.state or "no status yet") + (f" ({entry.reason})" if entry.reason else "")
        if entry.restarts:
            what += f", restarts {entry.restarts}, last exit code {entry.exit_code}"
    return what + (f": {entry.message}" if entry.message else "")


def evidence_summary(evidence: Sequence[Evidence]) -> str:
    """One line for the failed record's description: each object's status, its first
    failing container and that container's last line; at most SUMMARY_CHARACTERS."""
    parts = []
    for item in evidence:
        part = f"{item.object} {item.status}"
        failing = next(iter(item.containers), None)
        if failing is not None:
            part += f" ({_container_line(failing)}"
            part += f'; last line: "{failing.log_tail[-1]}")' if failing.log_tail else ")"
        parts.append(part)
    text = "; ".join(parts)
    return text if len(text) <= SUMMARY_CHARACTERS else text[:SUMMARY_CHARACTERS - 3] + "..."
