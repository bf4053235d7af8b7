"""Check-run annotations from a release: each changed resource at the template line that
produced it (its diff in raw_details), each failed hook at its template with the log
tail, each resource that did not become ready with its reason.

An annotation needs a file of the repository: a chart from a repository or a registry,
or a template that is not a file under the workspace (a packaged subchart), gets none;
its resources are still in the check run's summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runner.report import limits
from runner.report.markdown import LOG_TAIL_LINES
from runner.report.model import FAILED, PLANNED, ReleaseReport, Source

NOTICE, WARNING, FAILURE = "notice", "warning", "failure"


def annotations(release: ReleaseReport, workspace: Path) -> list[dict[str, Any]]:
    notes = []
    for change in release.changes:
        verb = change.change if release.outcome != PLANNED else f"would be {change.change}"
        notes.append(_at(release, workspace, change.where, NOTICE,
                         f"{change.ref} {verb} (release {release.name})",
                         f"{change.ref}: {change.change}", change.diff))
    for hook in release.hooks:
        if hook.outcome != "failed":
            continue
        tail = "\n".join(hook.lines[-LOG_TAIL_LINES:]) or "(the hook printed nothing)"
        notes.append(_at(release, workspace, hook.source, FAILURE,
                         f"hook {hook.hook} failed; its log ends:\n{tail}",
                         f"hook {hook.hook} failed", "\n".join(hook.lines), keep="tail"))
    level = FAILURE if release.outcome == FAILED else WARNING
    for unready in release.unready:
        notes.append(_at(release, workspace, unready.source, level,
                         f"{unready.resource} did not become ready: {unready.reason}",
                         f"{unready.resource} not ready", ""))
    return [note for note in notes if note]


def repository_path(chart_dir: Path | None, template: str, workspace: Path) -> str | None:
    """The template's file relative to the repository root (GITHUB_WORKSPACE), or None when
    it is not a file there. Helm names templates from the chart's name down
    (`web/charts/db/templates/a.yaml`): the first part is the chart directory itself."""
    if chart_dir is None:
        return None
    _, _, inside = template.partition("/")
    file = (chart_dir / inside).resolve()
    try:
        relative = file.relative_to(workspace.resolve())
    except ValueError:
        return None
    return relative.as_posix() if file.is_file() else None


def _at(release: ReleaseReport, workspace: Path, source: Source | None, level: str,
        message: str, title: str, details: str, keep: str = "head") -> dict[str, Any]:
    """One annotation, or {} without a repository file to put it on. `keep` says which
    end of a text too long survives (a log's tail, a diff's head)."""
    if source is None:
        return {}
    path = repository_path(release.chart_dir, source.template, workspace)
    if path is None:
        return {}
    note: dict[str, Any] = {
        "path": path, "start_line": max(source.line, 1), "end_line": max(source.line, 1),
        "annotation_level": level,
        "message": limits.cut_bytes(message, limits.ANNOTATION_BYTES, keep=keep),
        "title": limits.cut_chars(title, limits.ANNOTATION_TITLE_CHARS, where="the summary"),
    }
    if details:
        note["raw_details"] = limits.cut_bytes(details, limits.ANNOTATION_BYTES, keep=keep)
    return note
