"""The run's result as the report's input: `deploy-runner run`'s JSON result
(RunResult.to_json(), docs/run-json.md, schema deploy-runner/run-result/v1), already
redacted, read into runner.report.model.

Reading the documented JSON, not the dataclasses, keeps the report on the one form every
other reader has (`--output json`, the `result` output), redaction included.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from runner.report.model import (
    ADDED,
    CHANGED,
    FAILED,
    PLANNED,
    REMOVED,
    SKIPPED,
    SUCCEEDED,
    UNCHANGED,
    HookLog,
    ReleaseReport,
    ResourceChange,
    RunReport,
    Source,
    Unready,
)

# the run's release status -> (the report's outcome, Helm's release status after the run)
_STATUSES = {
    "planned": (PLANNED, ""), "deployed": (SUCCEEDED, "deployed"),
    "uninstalled": (SUCCEEDED, "uninstalled"), "unchanged": (UNCHANGED, "deployed"),
    "failed": (FAILED, "failed"), "skipped": (SKIPPED, ""), "not-selected": (SKIPPED, ""),
}
_CHANGES = {"add": ADDED, "modify": CHANGED, "remove": REMOVED}
_METHODS = {"ssa": "server-side", "csa": "client-side"}


def run_report(data: dict[str, Any], spec_dir: Path, *, result_path: str = "",
               preview_urls: dict[str, str] | None = None) -> RunReport:
    """`data`: the JSON result; `spec_dir`: the spec file's folder, which chart paths are
    relative to; `preview_urls`: release name -> its preview's URL."""
    urls = preview_urls or {}
    releases = tuple(_release(r, spec_dir, urls.get(r["name"], "")) for r in data["releases"])
    return RunReport(releases, plan=data.get("mode") == "plan", result_path=result_path,
                     warnings=tuple(data.get("warnings") or ()))


def _release(data: dict[str, Any], spec_dir: Path, preview_url: str) -> ReleaseReport:
    outcome, helm_status = _STATUSES.get(data["status"], (FAILED, ""))
    action = data.get("action") or "none"
    notes = [data["reason"]] if data.get("reason") else []
    notes += list(data.get("notes") or []) + list(data.get("messages") or [])
    error = data.get("error") or ""
    if data.get("evidence"):
        error += "\n" + "\n".join(data["evidence"])
    version = data.get("chart_version") or ""
    changes = tuple(_change(c) for c in (data.get("diff") or {}).get("changes") or [])
    hooks = _hooks_at_templates([_hook(h) for h in data.get("hook_logs") or []], changes)
    return ReleaseReport(
        name=data["name"], namespace=data["namespace"], outcome=outcome,
        action="" if action == "none" else action,
        chart=f"{data['chart']}{' ' + version if version else ''}",
        chart_dir=_chart_dir(data["chart"], spec_dir),
        revision=data.get("revision") if outcome != SKIPPED else None,
        previous_revision=data.get("previous_revision") if outcome != SKIPPED else None,
        status=helm_status, apply_method=_METHODS.get(data.get("apply_method") or "", ""),
        started=_time(data.get("started_at")), finished=_time(data.get("finished_at")),
        duration=(data.get("timings") or {}).get("total_seconds"),
        changes=changes, hooks=hooks,
        unready=_unready(data, changes, hooks) if outcome == FAILED else (),
        error=error.strip(), notes=tuple(notes), preview_url=preview_url)


def _chart_dir(chart: str, spec_dir: Path) -> Path | None:
    """A chart the spec names by a path to a directory; None for `repo/chart`, `oci://`
    and packaged charts, which have no template files in the repository."""
    if "://" in chart:
        return None
    candidate = (spec_dir / chart).resolve()
    return candidate if (candidate / "Chart.yaml").is_file() else None


def _change(data: dict[str, Any]) -> ResourceChange:
    diff = data.get("diff") or ""
    keys = data.get("secret_keys") or {}
    listed = "; ".join(f"{what} {', '.join(keys[what])}" for what in ("added", "changed", "removed")
                       if keys.get(what))
    if listed:
        diff = f"# Secret data keys: {listed} (values never shown)\n{diff}"
    if data.get("note"):
        diff = f"# {data['note']}\n{diff}"
    return ResourceChange(kind=data["kind"], name=data["name"], namespace=data.get("namespace") or "",
                          change=_CHANGES.get(data["change"], CHANGED), diff=diff.rstrip("\n"),
                          source=_source(data.get("source")),
                          changed_lines=tuple(s for s in map(_source, data.get("changed_lines")
                                                             or []) if s))


def _hook(data: dict[str, Any]) -> HookLog:
    lines = tuple((data.get("log") or "").splitlines())
    template = data.get("template") or data.get("source")
    source = _source(template) if isinstance(template, dict) else None
    if isinstance(template, str) and template:
        source = Source(template, int(data.get("line") or 1))
    outcome = "failed" if str(data.get("phase", "")).lower() == "failed" else "succeeded"
    dropped = int(data["dropped"]) if str(data.get("dropped", "")).isdigit() else 0
    return HookLog(hook=data["hook"], outcome=outcome, lines=lines, dropped=dropped,
                   source=source)


def _hooks_at_templates(hooks: list[HookLog], changes: tuple[ResourceChange, ...]
                        ) -> tuple[HookLog, ...]:
    """A hook log the result gives no template takes its hook's from the diff, when the
    hook is among the changes (a first install, a changed hook)."""
    where = {f"{c.kind}/{c.name}": c.source for c in changes if c.source is not None}
    return tuple(replace(h, source=where.get(h.hook)) if h.source is None else h for h in hooks)


# the resources a failed release's error names, in the words of Helm's waiters
# (runner.kube.wait): kstatus's `resource Kind/namespace/name not ready. status: ...`, the
# legacy waiter's `job is failed: namespace/name` and `job NAME failed: REASON` (in this
# order: the first is the second's form too)
_NAMED = (re.compile(r"resource (?P<kind>\w+)/(?:[^/\s]+/)?(?P<name>[^/\s]+) not ready"),
          re.compile(r"job is failed: (?:[^/\s]+/)?(?P<name>[^/\s]+)"),
          re.compile(r"job (?P<name>[^\s/]+) failed: "))


def _unready(data: dict[str, Any], changes: tuple[ResourceChange, ...],
             hooks: tuple[HookLog, ...]) -> tuple[Unready, ...]:
    """What failed the release: the evidence's objects (`not_ready`) with their reasons,
    else the resources its error names; each at its template (a hook's own, else the
    diff's for the resource). A failed hook whose log is annotated is not repeated."""
    sources = {(c.kind.lower(), c.name): c.source for c in changes}
    logged = {h.hook.lower() for h in hooks if h.outcome == "failed" and h.source is not None}

    def source(resource: str, template: str = "") -> Source | None:
        if template:
            return Source(template, 1)
        kind, _, name = resource.partition("/")
        return sources.get((kind.lower(), name))

    found: dict[str, Unready] = {}
    for item in data.get("not_ready") or []:
        if item["resource"].lower() not in logged and item["resource"] not in found:
            found[item["resource"]] = Unready(item["resource"], item.get("reason") or "",
                                              source(item["resource"], item.get("template") or ""))
    for resource, line in ([] if found else _named(data.get("error") or "")):
        if resource.lower() not in logged and resource not in found:
            found[resource] = Unready(resource, line, source(resource))
    return tuple(found.values())


def _named(error: str) -> list[tuple[str, str]]:
    """(Kind/name, the line) of each resource the error names in the waiters' words."""
    named = []
    for line in error.splitlines():
        for pattern in _NAMED:
            match = pattern.search(line)
            if match is not None:
                kind = match.groupdict().get("kind") or "Job"
                named.append((f"{kind}/{match['name']}", line.strip()))
                break
    return named


def _source(data: dict[str, Any] | None) -> Source | None:
    if not data or not data.get("path"):
        return None
    return Source(data["path"], int(data.get("line") or 1))


def _time(stamp: str | None) -> datetime | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
