"""Structured results of release actions: what a report or the CLI prints from,
and the messages an action tells while it runs (actions never print)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runner.release.record import Release

if TYPE_CHECKING:
    from runner.kube.apply import ApplyResult

WARNING = "warning"  # a line Helm prints on stderr as it is (values coalescing, manifests)
WAIT = "wait"  # what a wait awaits (data: runner.kube.wait.WaitProgress); the CLI draws it on stderr
DEBUG = "debug"  # a step as Helm logs it with --debug (`level=DEBUG msg=...`), on stderr
NOTICE = "notice"  # a line Helm prints on stdout as it happens (`Release x has been cancelled.`)
PROGRESS = "progress"  # deploy-runner's own word on what it waits for (`--wait-for-lock`), on stderr


@dataclass(frozen=True)
class Message:
    """Something an action tells while it runs, in order: the CLI prints it at once,
    a report collects it (Journal.on_message / Journal.messages)."""

    kind: str  # WARNING, WAIT, DEBUG, NOTICE or PROGRESS
    text: str
    data: Any = None  # WAIT: the WaitProgress the text sums up


SUCCEEDED, FAILED = "succeeded", "failed"  # a hook's outcome


@dataclass
class HookLog:
    """One container's log of a hook pod, captured when the hook ended in a state its
    helm.sh/hook-output-log-policy lists; or (pod and container empty) a `note` that
    there was no pod to read. Lines are redacted and capped (the tail is kept)."""

    hook: str  # the hook's object name
    event: str  # pre-install, post-upgrade, test, ...
    path: str  # its template, e.g. mychart/templates/migrate.yaml
    kind: str  # Job or Pod
    outcome: str  # SUCCEEDED or FAILED
    pod: str = ""
    container: str = ""
    init: bool = False  # an init container (they come first, in the order they ran)
    lines: list[str] = field(default_factory=list)
    truncated: bool = False
    dropped: int = 0  # lines cut before the kept tail
    exit_code: int | None = None
    reason: str = ""  # Completed, Error, OOMKilled; or why it has no log (PodInitializing)
    note: str = ""


@dataclass
class ContainerEvidence:
    """A container of a failing object's pod: its state and (when it ran) its last lines."""

    pod: str
    container: str
    init: bool = False
    state: str = ""  # terminated, waiting, running
    reason: str = ""
    message: str = ""
    exit_code: int | None = None
    restarts: int = 0
    log_tail: list[str] = field(default_factory=list)


@dataclass
class Evidence:
    """Why an object failed, captured before anything removed it (a hook's delete
    policy, a rollback, the uninstall of a failed install)."""

    object: str  # Kind/name
    namespace: str
    context: str  # "pre-install hook mychart/templates/job.yaml", "waited on"
    status: str = ""  # kstatus' status and message
    conditions: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)  # the last ones naming it, oldest first
    containers: list[ContainerEvidence] = field(default_factory=list)


@dataclass
class ReleaseResult:
    release: Release
    created: list[str] = field(default_factory=list)  # Kind/name
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # helm.sh/resource-policy: keep
    dry_run: str = ""  # "", "client" or "server"
    notes: list[str] = field(default_factory=list)  # recovery, apply-method explanations
    hook_logs: list[HookLog] = field(default_factory=list)

    def add(self, applied: ApplyResult) -> None:
        self.created += [r.ref() for r in applied.created]
        self.updated += [r.ref() for r in applied.updated]
        self.deleted += [r.ref() for r in applied.deleted]
        self.kept += [r.ref() for r in applied.kept]


@dataclass
class UninstallResult:
    release: Release
    deleted: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    info: str = ""  # Helm's "These resources were kept due to the resource policy:" text
    errors: list[str] = field(default_factory=list)
    hook_logs: list[HookLog] = field(default_factory=list)


_SECRET_KIND = re.compile(r"^kind:\s*['\"]?Secret['\"]?\s*$", re.MULTILINE)


def without_secrets(manifest: str) -> str:
    """--hide-secret: the manifest without its Secret documents (dry runs print no secret data)."""
    blocks = manifest.split("---\n# Source: ")
    kept = [b for b in blocks[1:] if not _SECRET_KIND.search(b)]
    return blocks[0] + "".join(f"---\n# Source: {b}" for b in kept)
