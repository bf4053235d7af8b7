"""A run's result (runner.spec.result, its to_json() form, already redacted) as text for a
terminal and as markdown (the body the GitHub report posts).

Both list every release in the spec's order with its action and status, then each
changed object the way helm-diff names it (`NAMESPACE, NAME, KIND (GROUP) has
changed:`), the template line it comes from, and its diff; failures with their
evidence and the objects that failed them (`not_ready`); hook logs (whose pod,
container and template); a closing count.
"""

from __future__ import annotations

from typing import Any

_HEADINGS = {"add": "has been added:", "modify": "has changed:", "remove": "has been removed:"}
_SIGNS = {"add": "+", "modify": "~", "remove": "-"}


def text(data: dict[str, Any]) -> str:
    """The terminal report."""
    lines = [f"{_title(data)}"]
    lines += [f"warning: {w}" for w in data.get("warnings") or []]
    for release in data["releases"]:
        lines.append("")
        lines.append(f"{release['namespace']}/{release['name']}: {_state(release)}")
        lines += _release_lines(release)
    lines.append("")
    lines.append(_closing(data))
    return "\n".join(lines) + "\n"


def _title(data: dict[str, Any]) -> str:
    what = {"plan": "plan", "sync": "sync", "run": "run"}[data["mode"]]
    env = data.get("environment") or "default"
    return f"deploy-runner {what} of {data['spec']} (environment {env})"


def _state(release: dict[str, Any]) -> str:
    status, action = release["status"], release["action"]
    if status in ("unchanged", "skipped", "not-selected"):
        return f"{status} ({release['reason']})" if release.get("reason") else status
    parts = [action]
    if release.get("revision") is not None and action != "uninstall":
        before = release.get("previous_revision")
        parts.append(f"revision {before} -> {release['revision']}" if before and action == "upgrade"
                     else f"revision {release['revision']}")
    if release.get("apply_method") and action != "uninstall":
        parts.append(release["apply_method"])
    return f"{', '.join(parts)}: {status}"


def _release_lines(release: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    diff = release["diff"]
    if diff.get("live_unavailable") and release["status"] not in ("not-selected", "skipped"):
        lines.append(f"  (compared with the last stored manifest: the live view failed: "
                     f"{diff['live_unavailable']})")
    lines += changes_text(diff, indent="  ")
    if release.get("error"):
        lines.append(f"  error: {release['error']}")
        lines += [f"  evidence: {item}" for item in release.get("evidence") or []]
    for item in release.get("not_ready") or []:
        lines.append(f"  not ready: {_not_ready_title(item)}")
        lines += [f"    {line}" for line in item["reason"].splitlines()]
    lines += [f"  note: {note}" for note in release.get("notes") or []]
    for log in release.get("hook_logs") or []:
        template = f"  [{log['template']}]" if log.get("template") else ""
        lines.append(f"  hook {_hook_log_title(log)}{template}")
        if log["truncated"]:
            lines.append(f"    {_CUT}")
        lines += [f"    {line}" for line in log["log"].splitlines()]
    return lines


# Both are already capped in the result: a hook log to the spec's hookLogs.cap lines, an
# object's reason to what the evidence keeps (its newest pods, events and log lines).
_CUT = "[earlier lines cut: the spec's hookLogs.cap keeps the last ones]"


def _not_ready_title(item: dict[str, Any]) -> str:
    """`Job/migrate in shop (pre-install hook api/templates/job.yaml)`."""
    where = f" in {item['namespace']}" if item.get("namespace") else ""
    return f"{item['resource']}{where} ({item['context']})"


def _hook_log_title(log: dict[str, Any]) -> str:
    """`Job/migrate (Failed), pod migrate-x1, container main`; a hook whose pods were gone
    has no pod (its log is the note saying so)."""
    parts = [f"{log['hook']} ({log['phase']})"]
    if log.get("pod"):
        parts += [f"pod {log['pod']}", *([f"container {log['container']}"] if log.get("container") else [])]
    return ", ".join(parts)


def changes_text(diff: dict[str, Any], indent: str = "") -> list[str]:
    """A diff's changes (ReleaseDiff.to_json()) as helm-diff prints them: each object's
    heading with its template line, then its diff lines."""
    lines = []
    for change in diff["changes"]:
        source = _source(change)
        lines.append(f"{indent}{change['key']} {_HEADINGS[change['change']]}"
                     + (f"  [{source}]" if source else ""))
        if change.get("note"):
            lines.append(f"{indent}  note: {change['note']}")
        keys = _secret_keys(change)
        if keys:
            lines.append(f"{indent}  secret keys: {keys}")
        lines += [f"{indent}  {line}" for line in (change.get("diff") or "").splitlines()]
    return lines


def _source(change: dict[str, Any]) -> str:
    """Where the change is written: the template line of its first changed field, else the
    line its document starts on."""
    lines = change.get("changed_lines") or []
    source = lines[0] if lines else change.get("source")
    return f"{source['path']}:{source['line']}" if source else ""


def _secret_keys(change: dict[str, Any]) -> str:
    keys = change.get("secret_keys") or {}
    parts = [f"{what} {', '.join(keys[what])}" for what in ("added", "changed", "removed") if keys.get(what)]
    return "; ".join(parts)


def _closing(data: dict[str, Any]) -> str:
    releases = data["releases"]
    if data["mode"] == "plan":
        planned = [r for r in releases if r["status"] == "planned"]
        counts = {a: sum(1 for r in planned if r["action"] == a) for a in ("install", "upgrade", "uninstall")}
        unchanged = sum(1 for r in releases if r["status"] == "unchanged")
        failed = sum(1 for r in releases if r["status"] == "failed")
        text = (f"Plan: {counts['install']} to install, {counts['upgrade']} to upgrade, "
                f"{counts['uninstall']} to uninstall, {unchanged} unchanged")
        return text + (f", {failed} failed." if failed else ".")
    counts = data["counts"]
    return (f"Summary: {counts['deployed']} deployed, {counts['uninstalled']} uninstalled, "
            f"{counts['unchanged']} unchanged, {counts['failed']} failed, {counts['skipped']} skipped.")


# ----------------------------------------------------------------------------- markdown


def markdown(data: dict[str, Any]) -> str:
    """The GitHub report's body: a summary table, then a collapsible diff per release."""
    out = [f"### {_md(_title(data))}", "", _md(_closing(data)), ""]
    for warning in data.get("warnings") or []:
        out.append(f"> [!WARNING]\n> {_md(warning)}\n")
    out += ["| release | action | status | revision | changes |", "| --- | --- | --- | --- | --- |"]
    for release in data["releases"]:
        counts = release["diff"]["counts"]
        changes = " ".join(f"{_SIGNS[k]}{counts[k]}" for k in ("add", "modify", "remove"))
        revision = release.get("revision")
        out.append(f"| `{_code(release['namespace'])}/{_code(release['name'])}` | {release['action']} "
                   f"| {release['status']} | {'' if revision is None else revision} | {changes} |")
    for release in data["releases"]:
        body = _release_markdown(release)
        if body:
            out += ["", f"<details><summary><code>{_html(release['namespace'])}/{_html(release['name'])}"
                        f"</code>: {_html(_state(release))}</summary>", "", *body, "", "</details>"]
    return "\n".join(out) + "\n"


def _release_markdown(release: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if release.get("error"):
        lines += ["**Error:**", _fenced(release["error"], "")]
        lines += [f"- {_md(item)}" for item in release.get("evidence") or []]
    diff = release["diff"]
    if diff.get("live_unavailable") and diff["changes"]:
        lines.append(f"_Compared with the last stored manifest: the live view failed "
                     f"({_md(diff['live_unavailable'])})._")
    for change in diff["changes"]:
        source = _source(change)
        head = f"**`{_code(change['key'])}`** {_HEADINGS[change['change']]}"
        lines.append(head + (f" `{_code(source)}`" if source else ""))
        if change.get("note"):
            lines.append(f"> {_md(change['note'])}")
        keys = _secret_keys(change)
        if keys:
            lines.append(f"Secret keys: {_md(keys)}")
        if change.get("diff"):
            lines.append(_fenced(change["diff"], "diff"))
    # (each after a blank line: one right after the evidence list would continue its last item)
    for item in release.get("not_ready") or []:
        lines += ["", f"**Not ready:** {_md(_not_ready_title(item))}{_md_template(item)}",
                  _fenced(item["reason"], "")]
    for log in release.get("hook_logs") or []:
        lines += ["", f"**Hook log:** {_md(_hook_log_title(log))}{_md_template(log)}"]
        if log["truncated"]:
            lines.append(f"_{_md(_CUT)}_")
        lines.append(_fenced(log["log"], ""))
    return lines


def _md_template(item: dict[str, Any]) -> str:
    return f" `{_code(item['template'])}`" if item.get("template") else ""


def _fenced(body: str, language: str) -> str:
    fence = "```"
    while fence in body:
        fence += "`"
    return f"{fence}{language}\n{body.rstrip(chr(10))}\n{fence}"


def _md(text: str) -> str:
    """Text safe in a markdown paragraph: no HTML, no tables broken."""
    return _html(text).replace("|", "\\|")


def _code(text: str) -> str:
    return text.replace("`", "'")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
