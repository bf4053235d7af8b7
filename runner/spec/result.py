"""The result of running a spec: one RunResult, one ReleaseOutcome per release, as plain
data. `to_json()` is the documented, stable form (docs/run-json.md): `--output json`
prints it, the text and markdown reports (runner.report.run) and the GitHub report
are made from it, after the run's redactor (runner.release.redact.Redactor.redact_data)
has passed over every string in it.

Statuses: `planned` (--plan: it would change), `deployed`, `uninstalled`,
`unchanged` (nothing to do: no new revision), `failed`, `skipped` (a release it
needs failed or was skipped), `not-selected` (`--release` or `when` left it out).
Actions: `install`, `upgrade`, `uninstall`, `none`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runner.diff.model import ReleaseDiff

SCHEMA = "deploy-runner/run-result/v1"
PLANNED, DEPLOYED, UNINSTALLED, UNCHANGED = "planned", "deployed", "uninstalled", "unchanged"
FAILED, SKIPPED, NOT_SELECTED = "failed", "skipped", "not-selected"
STATUSES = (PLANNED, DEPLOYED, UNINSTALLED, UNCHANGED, FAILED, SKIPPED, NOT_SELECTED)


@dataclass
class HookLog:
    """A hook Pod's log kept by its helm.sh/hook-output-log-policy (capped to its last lines)."""

    hook: str  # Kind/name of the hook
    pod: str
    phase: str  # the hook's outcome: Succeeded | Failed
    log: str
    truncated: bool = False
    container: str = ""
    template: str = ""  # the hook's template, chart-relative (mychart/templates/migrate.yaml)


@dataclass
class NotReady:
    """An object that failed or did not become ready, as the deploy's evidence found it."""

    resource: str  # Kind/name
    namespace: str
    context: str  # "pre-install hook web/templates/migrate.yaml", "waited on"
    reason: str  # its status, conditions, events, containers and their last lines
    template: str = ""  # a hook's template (chart-relative); "" when the evidence has none


@dataclass
class ReleaseOutcome:
    """What the run did (or, with --plan, would do) to one release."""

    name: str
    namespace: str
    chart: str  # the chart as the spec names it (path relative to the spec, REPO/chart, oci://...)
    chart_version: str = ""  # the version deployed (or that would be)
    action: str = "none"  # install | upgrade | uninstall | none
    status: str = ""  # one of STATUSES once the run is over ("" while it is not)
    reason: str = ""  # why skipped, not selected or unchanged
    revision: int | None = None  # the revision written (with --plan: the one that would be)
    previous_revision: int | None = None  # the revision live before
    apply_method: str = ""  # ssa | csa
    needs: list[str] = field(default_factory=list)  # NAMESPACE/NAME of releases deployed first
    started_at: str = ""
    finished_at: str = ""
    plan_seconds: float = 0.0  # rendering and diffing
    deploy_seconds: float = 0.0  # the install, upgrade or uninstall itself
    diff: ReleaseDiff = field(default_factory=ReleaseDiff)
    hook_logs: list[HookLog] = field(default_factory=list)
    error: str = ""
    evidence: list[str] = field(default_factory=list)  # what was found after a failure
    not_ready: list[NotReady] = field(default_factory=list)  # the objects that failed it
    notes: list[str] = field(default_factory=list)  # what the deploy told (recoveries, methods)
    messages: list[str] = field(default_factory=list)  # warnings while rendering and deploying
    spec_line: int = 0  # where the spec writes the release
    # the plan's chart or values are not those of the deployed revision (drift reads it)
    revision_differs: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def changed(self) -> bool:
        """Whether it changed (or, planned, would change) anything in the cluster."""
        return self.status in (PLANNED, DEPLOYED, UNINSTALLED) and self.action != "none"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "namespace": self.namespace, "chart": self.chart,
            "chart_version": self.chart_version or None, "action": self.action,
            "status": self.status, "reason": self.reason or None, "revision": self.revision,
            "previous_revision": self.previous_revision, "apply_method": self.apply_method or None,
            "needs": list(self.needs), "spec_line": self.spec_line or None,
            "started_at": self.started_at or None, "finished_at": self.finished_at or None,
            "timings": {"plan_seconds": round(self.plan_seconds, 3),
                        "deploy_seconds": round(self.deploy_seconds, 3),
                        "total_seconds": round(self.plan_seconds + self.deploy_seconds, 3)},
            "diff": self.diff.to_json(),
            "hook_logs": [vars(log).copy() for log in self.hook_logs],
            "error": self.error or None, "evidence": list(self.evidence),
            "not_ready": [vars(item).copy() for item in self.not_ready],
            "notes": list(self.notes), "messages": list(self.messages),
        }


@dataclass
class RunResult:
    """A whole run: the spec, the mode, and every release's outcome in the spec's order."""

    spec: str  # the spec's name as errors name it (deploy-runner.yaml, <stdin>, event payload)
    environment: str = "default"
    mode: str = "run"  # run | plan | sync
    event: str | None = None  # the GitHub event that ran it (None: a local run)
    started_at: str = ""
    finished_at: str = ""
    duration_seconds: float = 0.0
    releases: list[ReleaseOutcome] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # about the spec (ignored helmfile keys)

    @property
    def failed(self) -> bool:
        return any(r.status == FAILED for r in self.releases)

    @property
    def changed(self) -> bool:
        return any(r.changed for r in self.releases)

    def counts(self) -> dict[str, int]:
        found = dict.fromkeys(STATUSES, 0)
        for release in self.releases:
            found[release.status] += 1
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA, "spec": self.spec, "environment": self.environment, "mode": self.mode,
            "event": self.event, "started_at": self.started_at or None,
            "finished_at": self.finished_at or None,
            "duration_seconds": round(self.duration_seconds, 3),
            "outcome": "failed" if self.failed else ("changed" if self.changed else "unchanged"),
            "counts": self.counts(), "warnings": list(self.warnings),
            "releases": [r.to_json() for r in self.releases],
        }

