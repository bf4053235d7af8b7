"""`deploy-runner drift` inside GitHub Actions (the Action's `command: drift`):

- a check run `deploy-runner drift (<environment>)` on the commit the workflow runs on
  (a `schedule` event's GITHUB_SHA: the default branch's head), `success` without drift,
  `failure` with drift or an error, with an annotation (`warning`) at the template line of
  each drifted object's changed field (its redacted diff in raw_details: Secret values are
  never shown);
- one issue per environment labelled `deploy-runner/drift`, found by that label and a
  hidden marker naming the environment: opened when drift appears, its body updated while
  it lasts, closed with a comment when it is gone (not when a run fails: the cluster's
  state is then unknown). Never a new one per run;
- the job summary, and the outputs `drift` (true/false) and `result` (the plan's JSON).

Exit codes as the command's: 0 no drift, 2 drift, 1 an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from runner.report import limits
from runner.report.adapt import run_report
from runner.report.github.annotations import repository_path
from runner.report.github.checks import CHECK_PREFIX
from runner.report.github.client import GitHubReport
from runner.report.github.entry import result_file
from runner.report.github.event import GitHubEvent
from runner.report.model import ReleaseReport
from runner.report.workflow import Workflow

LABEL = "deploy-runner/drift"
WARNING = "warning"


def check_name(environment: str) -> str:
    return f"{CHECK_PREFIX} drift ({environment})"


def issue_marker(environment: str) -> str:
    return f"<!-- deploy-runner drift: {environment} -->"


@dataclass
class DriftRun:
    spec: Any  # runner.spec.load.LoadedSpec
    context: Any  # runner.spec.context.RunContext
    base: Any  # runner.actions.release_config.ActionConfig
    options: Any  # runner.actions.run.RunOptions (its redactor hides every secret)
    on_message: Callable[[str, Any], None]

    def run(self) -> int:
        with self.options.redactor.hiding_errors():
            return self._report()

    def _report(self) -> int:
        from runner.actions.drift import describe, find_drift

        event = GitHubEvent.from_environment()
        redactor = self.options.redactor
        workflow = Workflow.from_environment(redactor=redactor)
        redactor.add(event.token)
        redactor.listen(workflow.mask)
        found = find_drift(self.spec, self.context, self.base.in_namespace, self.options,
                           on_message=self.on_message)
        data = redactor.redact_data(found.result.to_json())
        named = result_file()
        named.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        reports = {r.name: r for r in run_report(data, Path(self.spec.base_dir)).releases}
        outcomes = {(o.namespace, o.name): o for o in found.result.releases}
        lines = {(r.namespace, r.name): [redactor.redact(line) for line in
                                         describe(r, outcomes[(r.namespace, r.name)])]
                 for r in found.releases}
        body = _markdown(found, lines)
        for release in found.releases:
            for line in lines[(release.namespace, release.name)]:
                workflow.log(f"{release.namespace}/{release.name}: {line}")
        if event.token and event.repository:
            github = GitHubReport(event.api_url, event.token, event.repository)
            drifted = [reports[r.name] for r in found.releases if r.drifted and r.name in reports]
            url = _check_run(github, event, found, body, _annotations(drifted, event.workspace))
            _issue(github, found, body, url, event.run_url)
            for warning in github.warnings:
                workflow.warning(warning)
        else:
            workflow.warning("no github_token (or GITHUB_REPOSITORY): the drift check run and "
                             "issue are not posted; the result is in the job summary")
        workflow.set_outputs({"drift": "true" if found.drifted else "false",
                              "result": str(named)})
        workflow.append_summary(f"## {check_name(found.environment)}\n\n{body}")
        return found.exit_code


def _verdict(found: Any) -> str:
    drifted = [r for r in found.releases if r.drifted]
    failed = [r for r in found.releases if r.error]
    parts = []
    if drifted:
        parts.append(f"{len(drifted)} of {len(found.releases)} releases drifted")
    if failed:
        parts.append(f"{len(failed)} could not be planned")
    return ", ".join(parts) or f"no drift in {len(found.releases)} releases"


def _markdown(found: Any, lines: dict[tuple[str, str], list[str]]) -> str:
    rows = [f"Environment `{found.environment}`: {_verdict(found)}.", ""]
    for release in found.releases:
        details = lines[(release.namespace, release.name)]
        state = "error" if release.error else "drift" if release.drifted else "no drift"
        rows.append(f"- `{release.namespace}/{release.name}`: {state}")
        rows += [f"  - {line}" for line in details]
    return "\n".join(rows)


def _annotations(releases: list[ReleaseReport], workspace: Path) -> list[dict[str, Any]]:
    """A warning at the template line of each drifted object (the first changed line's
    template, else the object's); none for an object no repository file writes."""
    notes = []
    for release in releases:
        for change in release.changes:
            where = change.where
            path = repository_path(release.chart_dir, where.template, workspace) if where else None
            if where is None or path is None:
                continue
            note = {"path": path, "start_line": max(where.line, 1), "end_line": max(where.line, 1),
                    "annotation_level": WARNING,
                    "title": limits.cut_chars(f"drift: {change.ref}", limits.ANNOTATION_TITLE_CHARS),
                    "message": limits.cut_bytes(
                        f"{change.ref} (release {release.name}) is not what the spec deploys: "
                        f"{change.change} in the plan", limits.ANNOTATION_BYTES)}
            if change.diff:
                note["raw_details"] = limits.cut_bytes(change.diff, limits.ANNOTATION_BYTES)
            notes.append(note)
    return notes


def _check_run(github: GitHubReport, event: GitHubEvent, found: Any, body: str,
               notes: list[dict[str, Any]]) -> str:
    """The check run, completed, its annotations in batches of 50; its page's URL."""
    size = limits.ANNOTATIONS_PER_REQUEST
    batches = [notes[i:i + size] for i in range(0, len(notes), size)] or [[]]
    output = {"title": _verdict(found),
              "summary": limits.cut_chars(body, limits.CHECK_TEXT_CHARS)}
    completion = {"conclusion": "failure" if found.drifted or found.failed else "success",
                  "completed_at": datetime.now(UTC).replace(microsecond=0)}
    identity: dict[str, Any] = {"name": check_name(found.environment), "head_sha": event.sha}
    if event.run_url:
        identity["details_url"] = event.run_url
    first = {**output, "annotations": batches[0]} if batches[0] else output
    state = {"status": "in_progress"} if len(batches) > 1 else completion
    run = github.call("create the drift check run",
                      lambda: github.repo.create_check_run(**identity, **state, output=first))
    if run is None:
        return ""
    for index, batch in enumerate(batches[1:], start=2):
        last = index == len(batches)
        github.call("update the drift check run", lambda batch=batch, last=last: run.edit(
            output={**output, "annotations": batch}, **(completion if last else {})))
    return str(run.html_url)


def _issue(github: GitHubReport, found: Any, body: str, check_url: str, run_url: str) -> None:
    """Open, update or close the environment's one drift issue."""
    marker = issue_marker(found.environment)
    issues = github.call("list the drift issues", lambda: [
        i for i in github.repo.get_issues(state="open", labels=[LABEL])
        if marker in (i.body or "")])
    if issues is None:  # GitHub could not be asked: never open a second one
        return
    links = " · ".join(f"[{what}]({url})" for what, url in (("check run", check_url),
                                                             ("workflow run", run_url)) if url)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if found.drifted:
        text = limits.cut_chars(f"{marker}\nLast checked {stamp}. {links}\n\n{body}\n",
                                limits.COMMENT_CHARS)
        if issues:
            github.call("update the drift issue", lambda: issues[0].edit(body=text))
        else:
            github.call("open the drift issue", lambda: github.repo.create_issue(
                title=check_name(found.environment), body=text, labels=[LABEL]))
        return
    if found.failed or not issues:
        return  # a failed plan says nothing about drift: the issue stays as it is
    github.call("comment on the drift issue", lambda: issues[0].create_comment(
        f"No drift any more: every release of `{found.environment}` is what the spec "
        f"deploys ({stamp}). {links}"))
    github.call("close the drift issue",
                lambda: issues[0].edit(state="closed", state_reason="completed"))
