"""`deploy-runner run` inside GitHub Actions (GITHUB_ACTIONS=true, or --report github): the
event decides what runs, the session reports it.

| event | what runs |
| --- | --- |
| pull_request opened / synchronize / reopened | releases with preview.enabled deploy into the pull request's preview; the others are planned |
| pull_request, other activity (labeled, edited, ...) | every release is planned, those with a preview in it |
| pull_request closed | the previews are torn down |
| pull_request_target | as pull_request (a warning when the workspace is not the pull request's head) |
| check_run requested_action | a click on a release check run's button (runner.report.github.clicks) |
| anything else | the selected releases deploy (or plan, with --plan) |

The JSON result is written outside the checkout, to a new file in the runner's temporary
directory (RUNNER_TEMP, emptied after each job), or where DEPLOY_RUNNER_RESULT says (a
path relative to the current directory, or absolute); the `result` output is its
absolute path.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from runner.actions import preview
from runner.actions.journal import Journal
from runner.actions.run import RunOptions, run_spec
from runner.kube.namespaces import Namespaces
from runner.report.adapt import run_report
from runner.report.github.clicks import ClickHandler, is_click
from runner.report.github.deployments import preview_environment
from runner.report.github.event import PULL_REQUEST, TEARDOWN, GitHubEvent
from runner.report.github.session import PreviewTarget, Session
from runner.report.model import RunReport
from runner.report.workflow import Workflow
from runner.spec.result import FAILED, UNINSTALLED, ReleaseOutcome, RunResult

RESULT_PREFIX = "deploy-runner-result-"


def result_file() -> Path:
    """Where the JSON result goes: DEPLOY_RUNNER_RESULT (relative to the current
    directory), else a new file in RUNNER_TEMP (the system's temporary directory outside Actions):
    never into the user's checkout unless asked, and never over another step's result."""
    import tempfile

    asked = os.environ.get("DEPLOY_RUNNER_RESULT", "")
    if asked:
        path = Path(asked).resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        return path
    handle, name = tempfile.mkstemp(prefix=RESULT_PREFIX, suffix=".json",
                                    dir=os.environ.get("RUNNER_TEMP") or None)
    os.close(handle)
    return Path(name)


@dataclasses.dataclass
class GitHubRun:
    spec: Any  # runner.spec.load.LoadedSpec
    context: Any  # runner.spec.context.RunContext
    base: Any  # runner.actions.release_config.ActionConfig of the flags' namespace
    options: RunOptions  # its redactor hides secret values from every part of the report
    on_message: Callable[[str, Any], None]  # what a release tells while it runs (the CLI prints)
    environment: str = ""
    comment: bool = False
    detailed_exitcode: bool = False  # 2 when anything changed (would change) and nothing failed

    def run(self) -> int:
        """The run's exit code; an error that stops it is raised with the secrets hidden."""
        with self.options.redactor.hiding_errors():
            return self._report()

    def _report(self) -> int:
        event = GitHubEvent.from_environment()
        if is_click(event):  # a button of a release's check run: runner.report.github.clicks
            return ClickHandler(event, Workflow.from_environment(redactor=self.options.redactor),
                                self.spec, self.context, self.base, self.options,
                                self.on_message, self.environment).handle()
        session = Session(event, Workflow.from_environment(redactor=self.options.redactor),
                          environment=self.environment, comment=self.comment,
                          detailed_exitcode=self.detailed_exitcode)
        chosen = [r for r in self.spec.releases if not self.options.releases
                  or r.name in self.options.releases or r.key in self.options.releases]
        previews = self._previews(event, chosen)
        targets = [PreviewTarget(r.name, self._environment(event, r),
                                 self.context.substitute(r.preview.url or "")) for r in previews]

        def execute() -> RunReport:
            result = self._execute(event, chosen, previews)
            result.warnings += _checkout_warnings(event)
            data = self.options.redactor.redact_data(result.to_json())
            named = result_file()
            named.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
            report = run_report(data, Path(self.spec.base_dir), result_path=str(named),
                                preview_urls={t.release: t.url for t in targets})
            names = {r.name for r in chosen}  # those --release leaves out get no check run
            return dataclasses.replace(report, releases=tuple(
                r for r in report.releases if r.name in names))

        # a closed pull request concerns its previews only: the others get no check run
        reported = previews if event.mode == TEARDOWN else chosen
        return session.run([r.name for r in reported], execute, previews=targets)

    def _environment(self, event: GitHubEvent, release: Any) -> str:
        """The GitHub deployment environment of a release's preview."""
        return preview_environment(event.pull_number or 0,
                                   self.context.substitute(release.preview.environment or ""))

    def _previews(self, event: GitHubEvent, chosen: list[Any]) -> list[Any]:
        if event.mode not in (PULL_REQUEST, TEARDOWN) or not event.pull_number:
            return []
        return preview.previewed(chosen, repository=event.repository,
                                 pull_number=event.pull_number,
                                 substitute=self.context.substitute, base_dir=self.spec.base_dir)

    def _execute(self, event: GitHubEvent, chosen: list[Any], previews: list[Any]) -> RunResult:
        if event.mode == TEARDOWN:
            return self._teardown(previews)
        if event.mode != PULL_REQUEST:
            return self._run(self.spec.releases, self.options)
        # each part runs the releases --release chose (so neither refuses a name the
        # other holds): the ones with a preview deploy, the others plan
        named = {r.name for r in previews}
        planned = self._run([r for r in chosen if r.name not in named],
                            dataclasses.replace(self.options, plan=True, releases=[]))
        if not previews:
            return planned
        plan = self.options.plan or not event.deploys_previews
        if not plan:
            for release in previews:
                preview.prepare(Namespaces(self.base.kube()), release.namespace,
                                repository=event.repository, pull_number=event.pull_number or 0,
                                head_sha=event.sha, now=datetime.now(UTC),
                                environment=self._environment(event, release))
        deployed = self._run(previews, dataclasses.replace(self.options, plan=plan, releases=[]))
        return _merged(self.spec.releases, planned, deployed)

    def _run(self, releases: list[Any], options: RunOptions) -> RunResult:
        spec = dataclasses.replace(self.spec, releases=releases)
        return run_spec(spec, self.context, self.base.in_namespace, options,
                        on_message=self.on_message)

    def _teardown(self, previews: list[Any]) -> RunResult:
        result = RunResult(self.spec.source, self.context.environment, "run",
                           self.context.event)
        namespaces = Namespaces(self.base.kube())
        for namespace in dict.fromkeys(r.namespace for r in previews):
            gone = preview.teardown(self.base.in_namespace(namespace), Journal(), namespaces, namespace)
            problems = gone.errors + [f"still there: {r}" for r in gone.remaining]
            for release in (r for r in previews if r.namespace == namespace):
                result.releases.append(ReleaseOutcome(
                    release.name, namespace, release.chart.describe(), action="uninstall",
                    status=FAILED if problems else UNINSTALLED,
                    reason=f"pull request closed: preview {namespace} removed",
                    error="\n".join(problems)))
        return result


def _checkout_warnings(event: GitHubEvent) -> list[str]:
    """pull_request_target runs the base branch's workflow, whose checkout is the base
    branch's commit unless the workflow checks out the pull request: then what is planned
    and deployed is not the pull request's code, though reported on its head commit."""
    from runner.spec.context import checkout_commit

    if event.name != "pull_request_target" or event.mode == TEARDOWN:
        return []
    commit = checkout_commit(str(event.workspace))
    if commit is None or commit == event.sha:
        return []
    return [f"pull_request_target: the workspace holds commit {commit[:12]}, not the pull "
            f"request's head {event.sha[:12]}: the spec and charts planned and deployed are "
            f"those of {commit[:12]} (docs/github.md, \"pull_request_target\")"]


def _merged(releases: list[Any], *results: RunResult) -> RunResult:
    """One result of several runs over parts of a spec, releases in the spec's order (a
    release a run did not concern is `not-selected` there: the others' outcome wins)."""
    first = results[0]
    by_name: dict[str, ReleaseOutcome] = {}
    for result in results:
        for outcome in result.releases:
            if outcome.name not in by_name or by_name[outcome.name].status == "not-selected":
                by_name[outcome.name] = outcome
    merged = dataclasses.replace(first, releases=[by_name[r.name] for r in releases
                                                  if r.name in by_name],
                                 warnings=list(dict.fromkeys(
                                     w for result in results for w in result.warnings)))
    merged.mode = "run" if any(r.mode != "plan" for r in results) else "plan"
    return merged


def spec_problems(err: Any, workflow: Workflow | None = None) -> None:
    """A spec that cannot be used (runner.spec.errors.SpecError), each problem an ::error
    at its file and line, so the step's annotations point at the spec; the CLI still
    prints the error itself."""
    from runner.spec.errors import format_problem

    workflow = workflow or Workflow.from_environment()
    workspace = Path(os.environ.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
    file = Path(err.source).resolve()
    try:
        relative: str | None = file.relative_to(workspace).as_posix() if file.is_file() else None
    except ValueError:  # outside the repository: the message still names it
        relative = None
    for problem in err.problems:
        workflow.error(format_problem(err.source, problem), file=relative,
                       line=(problem.line or None) if relative else None,
                       title="the spec cannot be used")

