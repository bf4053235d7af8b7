"""A run's result as GitHub-flavoured markdown: one check run's title, summary and text
per release, the job summary and the pull request's plan comment, each cut to its limit
with a marker (runner.report.limits). The terminal renders the same text (demo)."""

from __future__ import annotations

import re

from runner.report import limits
from runner.report.model import (
    ADDED,
    FAILED,
    PLANNED,
    REMOVED,
    SKIPPED,
    SUCCEEDED,
    UNCHANGED,
    ReleaseReport,
    ResourceChange,
    RunReport,
)

SIGN = {ADDED: "+", REMOVED: "-"}
DIFF_CHARS = 20_000  # one resource's diff in a summary; the annotation has up to 64 KB
LOG_TAIL_LINES = 30


def title(release: ReleaseReport) -> str:
    """One line saying what happened: the check run's title."""
    changes = len(release.changes)
    counted = f"{changes} resource{'s' if changes != 1 else ''}"
    if release.outcome == FAILED:
        first = release.error.strip().splitlines()[0] if release.error.strip() else "failed"
        return f"{release.name}: {release.action or 'deploy'} failed: {first}"[:200]
    if release.outcome == SKIPPED:
        return f"{release.name}: skipped{': ' + release.notes[0] if release.notes else ''}"[:200]
    if release.outcome == PLANNED:
        return f"{release.name}: {counted} would change" if changes else \
            f"{release.name}: no changes"
    if release.outcome == UNCHANGED:
        return f"{release.name}: no changes (revision {release.revision} is current)"
    verb = {"install": "installed", "upgrade": "upgraded", "uninstall": "uninstalled"}.get(
        release.action, "deployed")
    revision = f" as revision {release.revision}" if release.revision else ""
    return f"{release.name}: {verb}{revision}, {counted} changed"


def summary(release: ReleaseReport, limit: int = limits.CHECK_TEXT_CHARS) -> str:
    """The check run's summary: the facts table, the error, a collapsible diff per resource."""
    head = _facts(release)
    if release.error:
        head += "\n**Error**\n\n" + _fenced(release.error.strip()) + "\n"
    if release.preview_url:
        head += f"\nPreview: {release.preview_url}\n"
    if not release.changes:
        return limits.cut_chars(head, limit)
    head += f"\n### Changes ({len(release.changes)})\n\n"
    return _fit_blocks(head, [_change_block(c) for c in release.changes], limit,
                       "more resources' diffs")


def text(release: ReleaseReport, limit: int = limits.CHECK_TEXT_CHARS) -> str:
    """The check run's text: hook logs, resources not ready, notes."""
    parts = []
    for hook in release.hooks:
        dropped = f" ({hook.dropped} earlier lines not kept)" if hook.dropped else ""
        parts.append(f"### Hook {hook.hook}: {hook.outcome}{dropped}\n\n"
                     + _fenced("\n".join(hook.lines) or "(no log)"))
    if release.unready:
        parts.append("### Not ready\n\n" + "\n".join(
            f"- `{u.resource}`: {_inline(u.reason)}" for u in release.unready))
    if release.notes:
        parts.append("### Notes\n\n" + "\n".join(f"- {_inline(n)}" for n in release.notes))
    return limits.cut_chars("\n\n".join(parts), limit)


def run_summary(report: RunReport, limit: int = limits.STEP_SUMMARY_BYTES) -> str:
    """The job summary: a line per release, then each release's summary and text."""
    lines = ["## deploy-runner" + (" plan" if report.plan else ""), "",
             "| release | namespace | outcome | revision | status |",
             "| --- | --- | --- | --- | --- |"]
    lines += [f"| {_cell(r.name)} | {_cell(r.namespace)} | {_icon(r)} {r.outcome} | "
              f"{r.revision or ''} | {_cell(r.status)} |" for r in report.releases]
    blocks = []
    for release in report.releases:
        if release.outcome == SKIPPED:
            continue
        details = text(release)
        blocks.append(f"\n### {_icon(release)} {title(release)}\n\n{summary(release)}"
                      + (f"\n{details}\n" if details else ""))
    for warning in report.warnings:
        lines.append(f"\n> [!WARNING]\n> {_inline(warning)}")
    return _fit_blocks("\n".join(lines) + "\n", blocks, limit, "more releases", in_bytes=True)


def plan_comment(report: RunReport, marker: str, limit: int = limits.COMMENT_CHARS) -> str:
    """The sticky pull-request comment: `marker` (hidden) first, then the plan. The
    comment's limit is in characters; a byte budget of the same number is within it."""
    head = f"{marker}\n"
    return head + run_summary(report, limit - len(head.encode()))


def _facts(release: ReleaseReport) -> str:
    seconds = f"{release.seconds:.1f} s" if release.seconds is not None else ""
    action = release.action or ("plan" if release.outcome == PLANNED else "none")
    return ("| release | namespace | chart | action | revision | status | apply method | time |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- |\n"
            f"| {_cell(release.name)} | {_cell(release.namespace)} | {_cell(release.chart)} | "
            f"{action} | {release.revision or ''} | {_cell(release.status)} | "
            f"{_cell(release.apply_method)} | {seconds} |\n")


def _change_block(change: ResourceChange) -> str:
    where = f" — `{change.where}`" if change.where else ""
    sign = SIGN.get(change.change, "~")
    body = limits.cut_chars(change.diff, DIFF_CHARS) if change.diff else "(no diff)"
    return (f"<details><summary><code>{sign} {_html(change.ref)}</code> {change.change}"
            f"{where}</summary>\n\n{_fenced(body, 'diff')}\n</details>\n")


def _fit_blocks(head: str, blocks: list[str], limit: int, what: str, *,
                in_bytes: bool = False) -> str:
    """`head` and as many whole `blocks` as fit in `limit` (characters, or UTF-8 bytes),
    then a marker naming the blocks left out."""
    def measure(value: str) -> int:
        return len(value.encode()) if in_bytes else len(value)

    out, size = [head], measure(head)
    for index, block in enumerate(blocks):
        marker = _blocks_cut(len(blocks) - index, what)
        last = index == len(blocks) - 1
        if size + measure(block) + (0 if last else measure(marker)) > limit:
            out.append(marker)
            break
        out.append(block)
        size += measure(block)
    whole = "".join(out)
    return limits.cut_bytes(whole, limit) if in_bytes else limits.cut_chars(whole, limit)


def _blocks_cut(count: int, what: str) -> str:
    return f"\n… {count} {what} cut here ({limits.ELSEWHERE})\n"


def _fenced(body: str, language: str = "") -> str:
    """A code block whose fence no run of backticks inside can close."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def _icon(release: ReleaseReport) -> str:
    return {SUCCEEDED: "✅", UNCHANGED: "✅", PLANNED: "📝", FAILED: "❌", SKIPPED: "⏭️"}.get(
        release.outcome, "")


def _cell(value: str) -> str:
    return _inline(value).replace("|", "\\|")


def _inline(value: str) -> str:
    return " ".join(value.split())


def _html(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
