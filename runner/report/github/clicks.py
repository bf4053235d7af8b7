"""A click on a button of a release's check run (runner.report.github.buttons): GitHub's
`check_run` event with action `requested_action`, handled by `run` inside Actions.

    the check run read (its external_id: release, namespace, environment, revisions)
    -> who clicked may deploy? (write or above on the repository, or a member of a team
       the spec's `github.deployTeams` names) -> the release's newest revision is still
       the one the check run reports? -> rollback (the spec's history settings) or the
       release deployed again -> a new check run on the same commit, linking back

Each answer is a check run on the clicked check run's commit named
`deploy-runner <rollback|redeploy> <release>` (with ` (<environment>)`): refused (who
clicked and why; the step exits 1), nothing done (the commit is no longer the deployed
one; exits 0), or what was done (exits 1 when it failed).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from github import GithubException

from runner.errors import RunnerError
from runner.report import markdown
from runner.report.github.buttons import REDEPLOY, ROLLBACK, ClickTarget
from runner.report.github.checks import CHECK_PREFIX
from runner.report.github.client import GitHubReport
from runner.report.github.event import GitHubEvent
from runner.report.workflow import Workflow

CHECK_RUN_EVENT, REQUESTED_ACTION = "check_run", "requested_action"
# the collaborator permission API's `permission` (maintain is reported as write)
ALLOWED_PERMISSIONS = ("admin", "write")
REFUSED, NOTHING_DONE, DONE = "refused", "nothing-done", "done"


@dataclass(frozen=True)
class Click:
    """The click as GitHub's event names it."""

    identifier: str
    check_run_id: int
    sender: str
    head_sha: str

    @classmethod
    def from_event(cls, event: GitHubEvent) -> Click:
        payload = event.payload
        run = payload.get("check_run") if isinstance(payload.get("check_run"), dict) else {}
        identifier = str((payload.get("requested_action") or {}).get("identifier") or "")
        sender = str((payload.get("sender") or {}).get("login") or "")
        if not (run.get("id") and identifier and sender and run.get("head_sha")):
            raise RunnerError("the check_run event names no check run, requested action or "
                              "sender: is this a requested_action event?")
        return cls(identifier, int(run["id"]), sender, str(run["head_sha"]))


def is_click(event: GitHubEvent) -> bool:
    return event.name == CHECK_RUN_EVENT


def environment_of(payload: dict[str, Any]) -> str:
    """The spec environment a click's check run was deployed with ("" for none or unknown):
    the Action runs the spec of that environment unless its input names one."""
    external_id = str((payload.get("check_run") or {}).get("external_id") or "")
    try:
        return ClickTarget.parse(external_id).environment
    except RunnerError:
        return ""


@dataclass
class ClickHandler:
    event: GitHubEvent
    workflow: Workflow
    spec: Any  # runner.spec.load.LoadedSpec
    context: Any  # runner.spec.context.RunContext
    base: Any  # runner.actions.release_config.ActionConfig
    options: Any  # runner.actions.run.RunOptions
    on_message: Callable[[str, Any], None]
    environment: str = ""

    def handle(self) -> int:
        if self.event.action != REQUESTED_ACTION:
            self.workflow.log(f"check_run {self.event.action or '(no action)'}: nothing to do "
                              f"(deploy-runner handles {REQUESTED_ACTION} only)")
            return 0
        click = Click.from_event(self.event)
        if not (self.event.token and self.event.repository):
            raise RunnerError("a click is handled through GitHub's API: github_token and "
                              "GITHUB_REPOSITORY are needed")
        self.options.redactor.add(self.event.token)
        self.options.redactor.listen(self.workflow.mask)
        github = GitHubReport(self.event.api_url, self.event.token, self.event.repository)
        clicked = _ask(lambda: github.repo.get_check_run(click.check_run_id))
        if isinstance(clicked, str):
            raise RunnerError(f"cannot read check run {click.check_run_id}: {clicked}")
        target = ClickTarget.parse(clicked.external_id or "")
        answer = _Answer(github, click, target, clicked.html_url, clicked.name,
                         self.event.run_url, self.workflow)
        if click.identifier not in (ROLLBACK, REDEPLOY):
            return answer.refused(f"{click.identifier!r} is not a deploy-runner button "
                                  f"({ROLLBACK}, {REDEPLOY})")
        why = self._refusal(github, click.sender) or self._wrong_environment(target)
        if why:
            return answer.refused(why)
        release = next((r for r in self.spec.releases if r.name == target.release
                        and r.namespace == target.namespace), None)
        if release is None:
            return answer.refused(f"the spec ({self.spec.source}) at commit "
                                  f"{click.head_sha[:12]} has no release {target.namespace}/"
                                  f"{target.release}")
        cfg = self.base.in_namespace(target.namespace)
        stale = _stale(cfg, target, click.head_sha)
        if stale:
            return answer.nothing_done(stale)
        if click.identifier == ROLLBACK:
            return answer.finished(*self._rollback(cfg, release, target))
        return answer.finished(*self._redeploy(release))

    def _refusal(self, github: GitHubReport, sender: str) -> str:
        """Why `sender` may not deploy ("" when they may)."""
        permission = _ask(lambda: github.repo.get_collaborator_permission(sender))
        if permission in ALLOWED_PERMISSIONS:
            return ""
        teams = list(getattr(getattr(self.spec.model, "github", None), "deploy_teams", []) or [])
        for team in teams:
            org, _, slug = team.partition("/")
            membership = _ask(lambda org=org, slug=slug: github.github.get_organization(org)
                              .get_team_by_slug(slug).get_team_membership(sender))
            if not isinstance(membership, str) and membership.state == "active":
                return ""
        held = (f"could not be read ({permission})" if permission.startswith("GitHub answered")
                else f"is {permission}")
        named = f", and is in none of the spec's github.deployTeams ({', '.join(teams)})" \
            if teams else ""
        return (f"@{sender} may not deploy: their permission on {self.event.repository} {held}, "
                f"not write or admin{named}")

    def _wrong_environment(self, target: ClickTarget) -> str:
        if target.environment == self.environment:
            return ""
        return (f"the check run was deployed with environment {target.environment or 'default'}; "
                f"this workflow runs environment {self.environment or 'default'}")

    def _journal(self, release: Any) -> Any:
        from runner.actions.journal import Journal

        return Journal(on_message=lambda message: self.on_message(release.key, message),
                       redactor=self.options.redactor)

    def _rollback(self, cfg: Any, release: Any, target: ClickTarget) -> tuple[bool, str, str]:
        """(succeeded, title, summary) of rolling back to the check run's target revision
        with the spec's settings: --history-max, --release-history-max, the waits."""
        from runner.actions.rollback import RollbackOptions, rollback
        from runner.actions.run import release_request

        request = release_request(release, self.options.wait_for_lock, self.spec.source)
        options = RollbackOptions(
            name=release.name, revision=target.target, server_side=request.server_side,
            force_conflicts=request.force_conflicts, cleanup_on_fail=release.cleanup_on_fail,
            history_max=release.history_max, wait=request.wait,
            wait_strategy=request.wait_strategy, wait_for_jobs=request.wait_for_jobs,
            timeout=request.timeout, wait_for_lock=request.wait_for_lock, render=request.render)
        redact = self.options.redactor.redact
        try:
            with self.options.redactor.hiding_errors():
                done = rollback(cfg, self._journal(release), options)
        except RunnerError as err:
            return False, f"{release.name}: rollback to revision {target.target} failed", \
                redact(str(err))
        record = done.release
        return True, (f"{release.name}: rolled back to revision {target.target} as revision "
                      f"{record.version}"), \
            (f"Release `{release.name}` in `{release.namespace}`: revision {record.version} "
             f"({record.info.status}) has revision {target.target}'s chart, values and objects "
             f"({redact(record.info.description)}).")

    def _redeploy(self, release: Any) -> tuple[bool, str, str]:
        """The release deployed again from this commit's spec (upgraded even when
        nothing changed)."""
        from runner.actions.run import run_spec
        from runner.report.adapt import run_report

        spec = dataclasses.replace(self.spec, releases=[release])
        # the click chose the release: the spec's `when` (branches, paths) is not asked
        context = dataclasses.replace(self.context, event=None)
        options = dataclasses.replace(self.options, sync=True, plan=False, releases=[release.key])
        with self.options.redactor.hiding_errors():
            result = run_spec(spec, context, self.base.in_namespace, options,
                              on_message=self.on_message)
        data = self.options.redactor.redact_data(result.to_json())
        [report] = run_report(data, Path(self.spec.base_dir)).releases
        return not result.failed, markdown.title(report), markdown.summary(report)


@dataclass
class _Answer:
    """The check run that answers a click, on the clicked check run's commit."""

    github: GitHubReport
    click: Click
    target: ClickTarget
    clicked_url: str
    clicked_name: str
    details_url: str
    workflow: Workflow

    def refused(self, why: str) -> int:
        self._post("failure", f"refused: {why}"[:200],
                   f"{self._origin()}\n\nRefused: {why}. Nothing was changed.")
        self.workflow.error(f"the {self.click.identifier} clicked by @{self.click.sender} was "
                            f"refused: {why}")
        return 1

    def nothing_done(self, why: str) -> int:
        self._post("neutral", "nothing done: the commit is no longer the deployed one",
                   f"{self._origin()}\n\n{why}")
        self.workflow.warning(why)
        return 0

    def finished(self, succeeded: bool, title: str, summary: str) -> int:
        self._post("success" if succeeded else "failure", title,
                   f"{self._origin()}\n\n{summary}")
        self.workflow.log(f"{title}\n{summary}")
        return 0 if succeeded else 1

    def _origin(self) -> str:
        return (f"@{self.click.sender} clicked **{self.click.identifier}** on "
                f"[{self.clicked_name}]({self.clicked_url}) (release `{self.target.release}` "
                f"in `{self.target.namespace}`).")

    def _post(self, conclusion: str, title: str, summary: str) -> None:
        environment = f" ({self.target.environment})" if self.target.environment else ""
        fields: dict[str, Any] = {
            "name": f"{CHECK_PREFIX} {self.click.identifier} {self.target.release}{environment}"[:100],
            "head_sha": self.click.head_sha, "status": "completed", "conclusion": conclusion,
            "completed_at": datetime.now(UTC).replace(microsecond=0),
            "output": {"title": title, "summary": summary}}
        if self.details_url:
            fields["details_url"] = self.details_url
        self.github.call(f"post the check run answering the {self.click.identifier} click",
                         lambda: self.github.repo.create_check_run(**fields))
        for warning in self.github.warnings:
            self.workflow.warning(warning)
        self.github.warnings.clear()


def _stale(cfg: Any, target: ClickTarget, head_sha: str) -> str:
    """Why the click comes too late ("" when the release's newest revision is still the one
    the check run reports): someone deployed, rolled back or uninstalled since."""
    heads = cfg.storage.heads(target.release)
    newest = max((h.version for h in heads), default=0)
    if newest == target.revision:
        return ""
    now = f"revision {newest}" if newest else "no revision"
    return (f"commit {head_sha[:12]} is no longer the deployed one: release {target.release} "
            f"has {now} now, not revision {target.revision} which this check run reports; "
            "nothing was done")


def _ask(call: Callable[[], Any]) -> Any:
    """`call()`, or what GitHub answered instead, as text."""
    try:
        return call()
    except GithubException as err:
        message = (err.data or {}).get("message", "") if isinstance(err.data, dict) else ""
        return f"GitHub answered {err.status} {message}".strip()
