"""A check run per release on the commit the event is about: `in_progress` when the run
starts, completed with a conclusion, output and annotations when the release is done.

More than 50 annotations go in several PATCHes of at most 50 (each appends; each resends
title and summary, which a PATCH with `output` replaces); the last one completes the run.
A release the event does not select gets a run completed as `skipped` at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from runner.report import limits, markdown
from runner.report.github.annotations import annotations
from runner.report.github.buttons import completion_fields
from runner.report.github.client import GitHubReport
from runner.report.model import FAILED, PLANNED, SKIPPED, ReleaseReport

CHECK_PREFIX = "deploy-runner"


def conclusion(release: ReleaseReport) -> str:
    if release.outcome == FAILED:
        return "failure"
    if release.outcome == SKIPPED:
        return "skipped"
    if release.outcome == PLANNED and not release.changes:
        return "neutral"
    return "success"


def check_name(release: str, environment: str = "") -> str:
    return f"{CHECK_PREFIX} {release}" + (f" ({environment})" if environment else "")


@dataclass
class CheckRuns:
    """The check runs of one deploy-runner run."""

    report: GitHubReport
    head_sha: str
    workspace: Path
    environment: str = ""
    details_url: str = ""  # the workflow run's page
    external_id: str = ""  # the workflow run's id
    runs: dict[str, Any] = field(default_factory=dict)  # release -> github CheckRun
    html_urls: dict[str, str] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)  # releases whose run was completed

    def start(self, releases: Iterable[str]) -> None:
        """An `in_progress` run for each release about to run."""
        for name in releases:
            run = self.report.call(
                f"create the check run of {name}",
                lambda name=name: self.report.repo.create_check_run(
                    **self._identity(name), status="in_progress", started_at=_now()))
            if run is not None:
                self.runs[name] = run
                self.html_urls[name] = run.html_url

    def finish(self, release: ReleaseReport) -> None:
        """Complete the release's run (or create it, when it never started): every batch
        of annotations but the last as an update, the last with the conclusion."""
        self.finished.add(release.name)
        output = self._output(release)
        batches = _batches(annotations(release, self.workspace))
        # the buttons (rollback, redeploy) show once the run is completed: they come with it
        completion = {"conclusion": conclusion(release), "completed_at": _now(),
                      **completion_fields(release, self.environment, self.external_id)}
        run = self.runs.get(release.name)
        if run is None:
            first, batches = batches[0], batches[1:]
            state = {"status": "in_progress"} if batches else completion
            run = self.report.call(
                f"create the check run of {release.name}",
                lambda: self.report.repo.create_check_run(
                    **{**self._identity(release.name), **state}, output=_with(output, first)))
            if run is None:
                return
            self.runs[release.name] = run
            self.html_urls[release.name] = run.html_url
        for index, batch in enumerate(batches):
            last = index == len(batches) - 1
            self.report.call(
                f"update the check run of {release.name}",
                lambda batch=batch, last=last: run.edit(
                    output=_with(output, batch), **(completion if last else {})))

    def _identity(self, name: str) -> dict[str, Any]:
        identity: dict[str, Any] = {"name": check_name(name, self.environment),
                                    "head_sha": self.head_sha}
        if self.details_url:
            identity["details_url"] = self.details_url
        if self.external_id:
            identity["external_id"] = f"{self.external_id}/{name}"
        return identity

    def _output(self, release: ReleaseReport) -> dict[str, Any]:
        output = {"title": markdown.title(release), "summary": markdown.summary(release)}
        text = markdown.text(release)
        if text:
            output["text"] = text
        return output


def _batches(notes: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """At most 50 a request; always one batch, possibly empty, to carry the completion."""
    size = limits.ANNOTATIONS_PER_REQUEST
    return [notes[i:i + size] for i in range(0, len(notes), size)] or [[]]


def _with(output: dict[str, Any], batch: list[dict[str, Any]]) -> dict[str, Any]:
    return {**output, "annotations": batch} if batch else output


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
