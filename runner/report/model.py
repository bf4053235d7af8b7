"""What a report is made from: a run's releases as plain data.

This is the report's own input, narrow on purpose: every channel (check runs, annotations,
the job summary, outputs, the sticky comment, the terminal) reads these records and nothing
else, so the run's result (runner.actions.run) reaches the report through one adapter
(`runner.report.adapt`) and a test can build a report from data alone.

Text in these records is already redacted (runner's redaction layer runs before a report
is built): the report cuts and formats it, it never looks for secrets itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

# What happened to a release in this run (ReleaseReport.outcome).
SUCCEEDED = "succeeded"  # deployed (installed, upgraded, uninstalled)
UNCHANGED = "unchanged"  # deployed revision already matches: no new revision
PLANNED = "planned"  # --plan or a pull request: nothing written, changes shown
FAILED = "failed"
SKIPPED = "skipped"  # not selected by the event, or a release it needs failed
OUTCOMES = (SUCCEEDED, UNCHANGED, PLANNED, FAILED, SKIPPED)

# How a resource differs (ResourceChange.change).
ADDED, CHANGED, REMOVED = "added", "changed", "removed"


@dataclass(frozen=True)
class Source:
    """The template that produced a document: Helm's template name (`web/templates/a.yaml`,
    a subchart's `web/charts/db/templates/b.yaml`) and the line in it."""

    template: str
    line: int

    def __str__(self) -> str:
        return f"{self.template}:{self.line}"


@dataclass(frozen=True)
class ResourceChange:
    kind: str
    name: str
    namespace: str
    change: str  # ADDED | CHANGED | REMOVED
    diff: str = ""  # unified diff, redacted (Secret data shown as keys only)
    source: Source | None = None  # the template line that starts the document
    changed_lines: tuple[Source, ...] = ()  # the template lines behind its changed lines

    @property
    def where(self) -> Source | None:
        """Where a reader should look: the first changed line, else the document's start."""
        return self.changed_lines[0] if self.changed_lines else self.source

    @property
    def ref(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"


@dataclass(frozen=True)
class HookLog:
    """A hook's captured log: the tail of every container, in order."""

    hook: str  # Kind/name
    outcome: str  # "succeeded" | "failed"
    lines: tuple[str, ...] = ()
    dropped: int = 0  # lines cut from the head by the cap
    source: Source | None = None


@dataclass(frozen=True)
class Unready:
    """A resource that did not become ready, with the reason a reader needs."""

    resource: str  # Kind/name
    reason: str
    source: Source | None = None


@dataclass(frozen=True)
class ReleaseReport:
    name: str
    namespace: str
    outcome: str  # one of OUTCOMES
    action: str = ""  # install | upgrade | uninstall | "" (nothing done)
    chart: str = ""  # name-version
    chart_dir: Path | None = None  # the chart on disk; None for a repository/registry chart
    revision: int | None = None
    previous_revision: int | None = None  # the revision live before the run (a rollback's target)
    status: str = ""  # Helm's release status after the run (deployed, failed, ...)
    apply_method: str = ""  # "server-side" | "client-side"
    started: datetime | None = None
    finished: datetime | None = None
    duration: float | None = None  # seconds, when measured (else finished - started)
    changes: tuple[ResourceChange, ...] = ()
    hooks: tuple[HookLog, ...] = ()
    unready: tuple[Unready, ...] = ()
    error: str = ""
    notes: tuple[str, ...] = ()
    preview_url: str = ""  # a pull request's preview: where it can be seen

    @property
    def seconds(self) -> float | None:
        if self.duration is not None:
            return self.duration
        if self.started is None or self.finished is None:
            return None
        return (self.finished - self.started).total_seconds()


@dataclass(frozen=True)
class RunReport:
    releases: tuple[ReleaseReport, ...]
    plan: bool = False  # nothing was written (--plan, or a pull request's plan)
    result_path: str = ""  # the JSON result file, for the `result` output
    warnings: tuple[str, ...] = field(default=())

    @property
    def failed(self) -> bool:
        return any(r.outcome == FAILED for r in self.releases)

    @property
    def changed(self) -> bool:
        """Something was (or, in a plan, would be) changed in a cluster."""
        return any(r.changes or (r.outcome == SUCCEEDED and r.action) for r in self.releases
                   if r.outcome != SKIPPED)
