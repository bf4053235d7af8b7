"""Hook output logs: `helm.sh/hook-output-log-policy`, as the hook output log proposal
(HIP draft "New annotations for displaying hook output") has it.

A hook Job or Pod annotated `hook-succeeded`, `hook-failed` or both (a comma list,
spaces allowed) has its containers' logs shown when it ends in a listed state; any
other value is ignored, as Helm ignores it (`lint` warns about it). Shown are every
pod of the hook (a Job's, oldest first: its failed tries included) and every
container of each (init containers first, in the order they ran, then the others):

    Logs for pod: <pod>, container: <container>
    [<n> earlier lines dropped: --hook-log-lines keeps the last <N>]
    <the log's lines>
    End of logs for pod: <pod>, container: <container> (hook <name>, <event>, <template>; exit code 1, Error)

- The logs are read when the hook ends, before its delete policy runs; a hook
  whose pods are already gone says so instead.
- On a terminal (Journal.live_hook_logs) the lines of a hook whose policy
  lists both outcomes are shown as they are written: each started container's log is
  followed by one stream (`Cluster.follow_log`). They are shown whatever the outcome,
  so only such hooks are followed live: a hook listing one outcome is shown when it
  ends (buffering its lines until then would show nothing sooner than the block does).
  Which containers have started is learnt from a watch of the hook's pods
  (`Cluster.watch_pods`): a Job's next try, or its next container, is followed as
  soon as the API server reports it, and nothing polls while the hook runs.
- Output goes through Journal.hook_output, the proposal's HookOutputFunc:
  (namespace, pod, container) -> a writer (`.write(text)`); a note about a hook
  without pods goes to (namespace, "", ""). None (--no-log-output) shows nothing.
- Every line passes through Journal.redactor; each container keeps its last
  Journal.hook_log_lines lines (0: all) and the mark says how many were cut.
- Every captured log is data: Journal.hook_logs (and each result's
  hook_logs), for a report to annotate the hook's template with.

A failing hook also leaves evidence (runner.actions.evidence), annotated or not.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from runner.actions import evidence as evidence_of
from runner.actions.results import FAILED, SUCCEEDED, HookLog
from runner.kube.cluster import Cluster, LogFollow, PodWatch
from runner.kube.resources import Resource
from runner.release.record import Hook

if TYPE_CHECKING:
    from runner.actions.journal import Journal

OUTPUT_LOG_POLICIES = {SUCCEEDED: "hook-succeeded", FAILED: "hook-failed"}
LOGGED_KINDS = ("Job", "Pod")
DEFAULT_LOG_LINES = 500
# A log stream that ended while its container still runs (a dropped connection, or the
# container's end not yet reported): after this long, still running, it is opened again.
REFOLLOW_SECONDS = 1.0
FULL_LOG_BYTES = 16 << 20  # a larger log is read as its tail only


def header(pod: str, container: str) -> str:
    """The proposal's header line of a container's log."""
    return f"Logs for pod: {pod}, container: {container}"


class HookObserver:
    """One action's view of its hooks as they run: their logs and, when one fails,
    the evidence. run_hooks tells it when each hook starts and how it ended."""

    def __init__(self, journal: Journal, cluster: Cluster) -> None:
        self.journal = journal
        self.cluster = cluster
        self._live: _LiveLogs | None = None
        self._shown: dict[tuple[str, str], int] = {}
        self._printer = _Printer(journal)

    def started(self, hook: Hook, event: str, resources: Sequence[Resource]) -> None:
        policies = set(hook.output_log_policies)
        if (self.journal.live_hook_logs and self.journal.hook_output is not None and hook.kind in LOGGED_KINDS
                and set(OUTPUT_LOG_POLICIES.values()) <= policies):
            self._live = _LiveLogs(self, hook, resources)
            self._shown = {}

    def stop_live(self) -> dict[tuple[str, str], int]:
        """Stop following the running hook (if it was); the lines shown, by (pod, container)."""
        live, self._live = self._live, None
        if live is not None:
            self._shown = live.stop()
        return self._shown

    def ended(self, hook: Hook, event: str, resources: Sequence[Resource], outcome: str) -> None:
        """Called as soon as the hook succeeded or failed, before its delete policy runs."""
        shown = self.stop_live()
        self._shown = {}
        if OUTPUT_LOG_POLICIES[outcome] in hook.output_log_policies and hook.kind in LOGGED_KINDS:
            logs = self._capture(hook, event, resources, outcome)
            self.journal.hook_logs.extend(logs)
            self._printer.blocks(logs, _namespace(resources), shown)
        if outcome == FAILED:
            self.journal.evidence.extend(evidence_of.capture(
                self.cluster, resources, f"{event} hook {hook.path}", self.journal.redactor, hooks=True))

    # -- reading ----------------------------------------------------------------------

    def pods(self, hook: Hook, resources: Sequence[Resource]) -> list[dict[str, Any]]:
        """The hook's pods, oldest first (a Job's failed tries included)."""
        resource = next((r for r in resources if r.kind == hook.kind), None)
        if resource is None:
            return []
        return evidence_of.pods_of(self.cluster, resource, self.cluster.live(resource))

    def _capture(self, hook: Hook, event: str, resources: Sequence[Resource], outcome: str) -> list[HookLog]:
        pods = self.pods(hook, resources)
        namespace = _namespace(resources)
        if not pods:
            note = (f"No logs for hook {hook.name} ({event}, {hook.path}): no pod of {hook.kind}/{hook.name} "
                    "is left to read them from (deleted before they could be read, or never started)")
            return [HookLog(hook.name, event, hook.path, hook.kind, outcome, note=note)]
        logs = []
        for pod in pods:
            name = (pod.get("metadata") or {}).get("name", "")
            for status, init in evidence_of.container_statuses(pod):
                log = HookLog(hook.name, event, hook.path, hook.kind, outcome, pod=name,
                              container=str(status.get("name", "")), init=init)
                _describe_state(log, status)
                self._read(log, namespace)
                logs.append(log)
        return logs

    def _read(self, log: HookLog, namespace: str) -> None:
        """The container's log, capped to its tail and redacted (a note when unreadable)."""
        status, text = self.cluster.container_log(namespace, log.pod, log.container, limit_bytes=FULL_LOG_BYTES)
        if status >= 400:
            log.note = self.journal.redactor.redact(text)
            return
        lines = text.splitlines()
        keep = self.journal.hook_log_lines
        if len(text) >= FULL_LOG_BYTES and keep:
            # Only the head came back: ask for the tail; the count dropped is a lower bound.
            status, tail = self.cluster.container_log(namespace, log.pod, log.container, tail_lines=keep)
            if status < 400:
                lines, log.dropped = tail.splitlines(), max(len(lines) - keep, 1)
        if keep and len(lines) > keep:
            log.dropped += len(lines) - keep
            lines = lines[-keep:]
        log.truncated = log.dropped > 0
        log.lines = self.journal.redactor.redact_lines(lines)


def _describe_state(log: HookLog, status: dict[str, Any]) -> None:
    state = status.get("state") or {}
    terminated = state.get("terminated") or (status.get("lastState") or {}).get("terminated")
    if terminated:
        log.exit_code = int(terminated.get("exitCode") or 0)
        log.reason = str(terminated.get("reason") or "")
    elif "waiting" in state:
        log.reason = str((state["waiting"] or {}).get("reason") or "")
    elif "running" in state:
        log.reason = "Running"


def _namespace(resources: Sequence[Resource]) -> str:
    return resources[0].namespace if resources else ""


def footer(log: HookLog) -> str:
    """Our additions after a container's lines: whose hook, and how the container ended."""
    kind = "init container" if log.init else "container"
    if log.exit_code is not None:
        ended = f"exit code {log.exit_code}" + (f", {log.reason}" if log.reason else "")
    elif log.reason == "Running":
        ended = "still running"
    else:
        ended = f"did not start ({log.reason or 'no status'})"
    return (f"End of logs for pod: {log.pod}, container: {log.container} "
            f"(hook {log.hook}, {log.event}, {log.path}; {kind} {ended})")


def cut_mark(log: HookLog, keep: int) -> str:
    return f"[{log.dropped} earlier lines dropped: --hook-log-lines keeps the last {keep}]"


class _Printer:
    """Writes log lines through the action's HookOutputFunc, a header again whenever
    another container's lines come next (live logs of two containers interleave)."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._last: tuple[str, str] | None = None
        self._lock = threading.Lock()

    def lines(self, namespace: str, pod: str, container: str, lines: Sequence[str]) -> None:
        if self.journal.hook_output is None or not lines:
            return
        with self._lock:
            writer = self._writer(namespace, pod, container)
            writer.write("".join(f"{line}\n" for line in lines))
            _flush(writer)

    def blocks(self, logs: Sequence[HookLog], namespace: str, shown: dict[tuple[str, str], int]) -> None:
        """The captured logs; for a container already shown live, the lines not shown yet."""
        output = self.journal.hook_output
        if output is None:
            return
        with self._lock:
            for log in logs:
                if not log.pod:
                    writer = output(namespace, "", "")
                    writer.write(f"{log.note}\n")
                    _flush(writer)
                    self._last = None
                    continue
                self._block(log, namespace, shown.get((log.pod, log.container)))

    def _block(self, log: HookLog, namespace: str, shown: int | None) -> None:
        key = (log.pod, log.container)
        if shown is None:
            self._last = None  # a block always starts with its header
            writer = self._writer(namespace, *key)
            if log.truncated:
                writer.write(cut_mark(log, self.journal.hook_log_lines) + "\n")
            lines = log.lines
        else:  # shown live: what came after the last poll
            writer = self._writer(namespace, *key)
            remaining = min(max(log.dropped + len(log.lines) - shown, 0), len(log.lines))
            lines = log.lines[len(log.lines) - remaining:]
        text = "".join(f"{line}\n" for line in lines)
        if log.note and not log.lines:
            text += f"({log.note})\n"
        writer.write(text + footer(log) + "\n")
        _flush(writer)
        self._last = None

    def _writer(self, namespace: str, pod: str, container: str) -> Any:
        assert self.journal.hook_output is not None
        writer = self.journal.hook_output(namespace, pod, container)
        if self._last != (pod, container):
            writer.write(header(pod, container) + "\n")
            self._last = (pod, container)
        return writer


def _flush(writer: Any) -> None:
    flush = getattr(writer, "flush", None)
    if flush is not None:
        flush()


class _LiveLogs:
    """Follows a hook's containers while it runs: one log stream per container that has
    started (GET .../log?follow=true), its lines written (redacted) as they come.

    The hook's pods are watched (`Cluster.watch_pods`: one list, then a watch) to find
    the containers that start (a Job's next try, the next init container) as the API
    server reports them; the lines themselves come as the container writes them. A
    stream that ends while its container still runs (a dropped connection) is opened
    again REFOLLOW_SECONDS later, and the lines already shown skipped."""

    def __init__(self, observer: HookObserver, hook: Hook, resources: Sequence[Resource]) -> None:
        self.observer, self.hook, self.resources = observer, hook, resources
        self.namespace = _namespace(resources)
        self.shown: dict[tuple[str, str], int] = {}  # lines written, by (pod, container)
        self._lock = threading.Lock()
        self._streams: dict[tuple[str, str], LogFollow | None] = {}  # followed now (None: opening)
        self._ended: set[tuple[str, str]] = set()  # followed to the end of their stream once
        self._states: dict[tuple[str, str], set[str]] = {}  # each container's state, as last reported
        self._followers: list[threading.Thread] = []
        self._pods: PodWatch | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"hook-logs-{hook.name}", daemon=True)
        self._thread.start()

    def stop(self) -> dict[tuple[str, str], int]:
        self._stop.set()
        with self._lock:
            streams = [stream for stream in self._streams.values() if stream is not None]
            pods = self._pods
        for closeable in [*streams, *([pods] if pods is not None else [])]:
            closeable.close()
        self._thread.join(timeout=30)
        for follower in self._followers:  # complete: the pod watcher has stopped
            follower.join(timeout=30)
        with self._lock:
            return dict(self.shown)

    def _run(self) -> None:
        # Live output is a courtesy: the capture at the end is what counts.
        with contextlib.suppress(Exception):
            watch, uid = self._watch_pods()
            if watch is None:
                return
            for pods in watch:
                with contextlib.suppress(Exception):
                    self._follow_new_containers(evidence_of.owned(pods, uid))

    def _watch_pods(self) -> tuple[PodWatch | None, str]:
        """The watch of the hook's pods, and the uid that must own them ("": any)."""
        resource = next((r for r in self.resources if r.kind == self.hook.kind), None)
        if resource is None:
            return None, ""
        cluster = self.observer.cluster
        if resource.kind == "Pod":
            watch, uid = cluster.watch_pods(self.namespace, name=resource.name), ""
        else:
            selector, uid = evidence_of.pod_selector(resource, cluster.live(resource))
            watch = cluster.watch_pods(self.namespace, selector=selector)
        with self._lock:
            if self._stop.is_set():  # stopped while it was being opened
                watch.close()
                return None, ""
            self._pods = watch
        return watch, uid

    def _follow_new_containers(self, pods: list[dict[str, Any]]) -> None:
        for pod in pods:
            name = (pod.get("metadata") or {}).get("name", "")
            for status, _init in evidence_of.container_statuses(pod):
                state = set(status.get("state") or {})
                key = (name, str(status.get("name", "")))
                with self._lock:
                    self._states[key] = state
                    if (self._stop.is_set() or not {"running", "terminated"} & state or key in self._streams
                            or (key in self._ended and "running" not in state)):
                        continue
                    self._streams[key] = None
                follower = threading.Thread(target=self._follow, args=(key,), daemon=True,
                                            name=f"hook-log-{name}-{key[1]}")
                self._followers.append(follower)
                follower.start()

    def _follow(self, key: tuple[str, str]) -> None:
        """Follow the container's log to its end; again while it is still reported running."""
        try:
            while True:
                with contextlib.suppress(Exception):  # not started after all, or gone: as below
                    self._follow_once(key)
                if self._stop.wait(REFOLLOW_SECONDS):
                    return
                with self._lock:
                    if "running" not in self._states.get(key, set()):
                        return
        finally:
            with self._lock:
                del self._streams[key]
                self._ended.add(key)

    def _follow_once(self, key: tuple[str, str]) -> None:
        stream = self.observer.cluster.follow_log(self.namespace, *key)
        with self._lock:
            if self._stop.is_set():
                stream.close()
                return
            self._streams[key] = stream
        try:
            self._write(key, stream)  # as above: the block at the end has every line
        finally:
            with self._lock:
                self._streams[key] = None

    def _write(self, key: tuple[str, str], stream: LogFollow) -> None:
        """The stream's complete lines as they come; a stream opened again starts at the
        log's first line, so the lines already shown are skipped."""
        read, pending = 0, ""
        for chunk in stream.chunks():
            complete, newline, pending = (pending + chunk).rpartition("\n")
            if newline:
                read = self._show(key, (complete + newline).splitlines(), read)
        if pending and not self._stop.is_set():  # the container ended on a line without a newline
            self._show(key, [pending], read)

    def _show(self, key: tuple[str, str], lines: list[str], read: int) -> int:
        """Write those of `lines` (the stream's lines from number `read` on) not shown yet."""
        fresh = lines[max(self.shown.get(key, 0) - read, 0):]
        if fresh:
            self.observer._printer.lines(self.namespace, *key, self.observer.journal.redactor.redact_lines(fresh))
            with self._lock:
                self.shown[key] = read + len(lines)
        return read + len(lines)
