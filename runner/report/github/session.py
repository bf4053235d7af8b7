"""A run inside GitHub Actions, from the first line of the log to the exit code.

    masks -> check runs in_progress -> the run (each secret it learns masked as learned)
    -> each release: log group, ::error lines, its check run completed -> preview
    deployments -> plan comment -> outputs -> job summary

The run itself is handed in (`execute`), so this module decides nothing about which
releases deploy: the event's rules are the run's (runner.actions.run). Whatever GitHub
answers, the exit code is the run's: non-zero exactly when a release failed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from runner.report import markdown
from runner.report.github.annotations import repository_path
from runner.report.github.checks import CheckRuns
from runner.report.github.client import GitHubReport, RetryPolicy
from runner.report.github.comment import marker, upsert_comment
from runner.report.github.deployments import PreviewDeployments
from runner.report.github.event import PULL_REQUEST, TEARDOWN, GitHubEvent
from runner.report.model import FAILED, PLANNED, SKIPPED, ReleaseReport, RunReport, Source
from runner.report.workflow import Workflow


@dataclass(frozen=True)
class PreviewTarget:
    """A release deployed into (or removed from) a pull request's preview."""

    release: str
    environment: str  # the GitHub deployment environment (pr-<n> by default)
    url: str = ""  # preview.url, variables substituted


@dataclass
class Session:
    event: GitHubEvent
    workflow: Workflow
    environment: str = ""  # the spec's --environment, in check names and the comment marker
    comment: bool = False  # the sticky plan comment on pull requests
    detailed_exitcode: bool = False  # 2 when anything changed (would change) and nothing failed
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    github: GitHubReport | None = None

    def __post_init__(self) -> None:
        if self.event.token and self.event.repository:
            self.github = GitHubReport(self.event.api_url, self.event.token,
                                       self.event.repository, self.policy)

    def run(self, selected: Iterable[str], execute: Callable[[], RunReport], *,
            previews: Iterable[PreviewTarget] = ()) -> int:
        # `::add-mask::` for every form the workflow's redactor hides, before any other
        # line; and for each form it learns later (a release's Secrets, an old revision's
        # secrets) as it learns it, so later lines and later steps show none either
        redactor = self.workflow.redactor
        redactor.add(self.event.token)
        redactor.listen(self.workflow.mask)
        checks = self._checks()
        if checks is not None:
            checks.start(selected)
        try:
            report = execute()
        except BaseException:
            # no check run stays in_progress: the error itself goes to the log (its secrets
            # hidden: GitHubRun), not to GitHub, as it may quote what only ::add-mask::
            # hides from the log (the action's cluster credentials)
            self._close(checks, FAILED, "the run stopped before this release finished: "
                                        "see the workflow log")
            raise
        for release in report.releases:
            self._log(release)
            if checks is not None:
                checks.finish(release)
        self._close(checks, SKIPPED, "not run for this event")
        if self.github is not None:
            self._previews(report, list(previews))
            if self.comment and self.event.pull_number and self.event.mode == PULL_REQUEST:
                hidden = marker(self.environment)
                upsert_comment(self.github, self.event.pull_number,
                               markdown.plan_comment(report, hidden), hidden)
        self.workflow.set_outputs(outputs(report))
        warnings = (self.github.warnings if self.github else []) + list(report.warnings)
        for warning in warnings:
            self.workflow.warning(warning)
        self.workflow.append_summary(markdown.run_summary(
            RunReport(report.releases, report.plan, report.result_path, tuple(warnings))))
        if report.failed:
            return 1
        return 2 if self.detailed_exitcode and report.changed else 0

    def _checks(self) -> CheckRuns | None:
        if self.github is None:
            self.workflow.warning("no github_token (or GITHUB_REPOSITORY): check runs are not "
                                  "posted; the result is in the job summary")
            return None
        return CheckRuns(self.github, self.event.sha, self.event.workspace, self.environment,
                         self.event.run_url, self.event.run_id)

    @staticmethod
    def _close(checks: CheckRuns | None, outcome: str, why: str) -> None:
        """Complete the check runs started for releases the run did not report."""
        if checks is None:
            return
        for name in [name for name in checks.runs if name not in checks.finished]:
            checks.finish(ReleaseReport(name, "", outcome, error=why if outcome == FAILED else "",
                                        notes=(why,) if outcome != FAILED else ()))

    def _log(self, release: ReleaseReport) -> None:
        with self.workflow.group(markdown.title(release)):
            self.workflow.log(markdown.summary(release))
            details = markdown.text(release)
            if details:
                self.workflow.log(details)
        if release.outcome != FAILED:
            return
        file, line = self._first_failure(release)
        self.workflow.error(release.error or f"release {release.name} failed", file=file,
                            line=line, title=f"{release.name} failed")

    def _first_failure(self, release: ReleaseReport) -> tuple[str | None, int | None]:
        """Where the failure points in the repository: a failed hook's template, else the
        first resource that did not become ready."""
        sources: list[Source | None] = [h.source for h in release.hooks if h.outcome == "failed"]
        sources += [u.source for u in release.unready]
        for source in sources:
            if source is None:
                continue
            path = repository_path(release.chart_dir, source.template, self.event.workspace)
            if path is not None:
                return path, source.line
        return None, None

    def _previews(self, report: RunReport, previews: list[PreviewTarget]) -> None:
        assert self.github is not None
        deployments = PreviewDeployments(self.github, self.event.run_url)
        outcomes = {r.name: r for r in report.releases}
        for target in previews:
            release = outcomes.get(target.release)
            if self.event.mode == TEARDOWN:
                deployments.torn_down(target.environment)
            elif release is not None and release.outcome not in (SKIPPED, PLANNED):
                deployments.deployed(target.environment, self.event.sha,
                                     succeeded=release.outcome != FAILED, url=target.url,
                                     description=markdown.title(release))


def outputs(report: RunReport) -> dict[str, str]:
    """`changed`, `result`, `revisions` and `statuses` (JSON objects by release, for
    `fromJSON`), and `<release>-revision`, `<release>-status` for each release. A status is
    Helm's when the release was written or kept, else what happened (planned, skipped); a
    revision is null when the release has none."""
    import json

    statuses = {r.name: r.status if r.outcome not in (PLANNED, SKIPPED) and r.status
                else r.outcome for r in report.releases}
    revisions = {r.name: r.revision or None for r in report.releases}
    values = {"changed": "true" if report.changed else "false", "result": report.result_path,
              "revisions": json.dumps(revisions, separators=(",", ":")),
              "statuses": json.dumps(statuses, separators=(",", ":"))}
    for release in report.releases:
        values[f"{release.name}-revision"] = str(revisions[release.name] or "")
        values[f"{release.name}-status"] = statuses[release.name]
    return values
