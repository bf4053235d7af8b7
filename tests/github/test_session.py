"""A run inside Actions with report data: log, check runs, outputs, summary, previews,
the plan comment and the exit code, against the local GitHub server."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from runner.release.redact import Redactor
from runner.report.github.event import GitHubEvent
from runner.report.github.session import PreviewTarget, Session
from runner.report.model import PLANNED, RunReport
from runner.report.workflow import Workflow
from testbed import octokit
from testbed.github import TOKEN, FakeGitHub
from tests.github.reports import change, deployed, failed, workspace_with_chart
from tests.github.test_check_runs import FAST

CANARY = "canary-9f8e7d6c5b4a"


def session(github: FakeGitHub, tmp_path: Path, event: str, payload: dict,
            token: str = TOKEN, comment: bool = False, redactor: Redactor | None = None
            ) -> tuple[Session, io.StringIO]:
    (tmp_path / "event.json").write_text(json.dumps(payload))
    env = {"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
           "GITHUB_SHA": "f" * 40, "GITHUB_REPOSITORY": github.repository,
           "GITHUB_WORKSPACE": str(tmp_path), "GITHUB_API_URL": github.url,
           "GITHUB_RUN_ID": "99", "INPUT_GITHUB_TOKEN": token}
    log = io.StringIO()
    workflow = Workflow(out=log, output_file=tmp_path / "output",
                        summary_file=tmp_path / "summary", redactor=redactor or Redactor())
    return Session(GitHubEvent.from_environment(env), workflow, comment=comment,
                   policy=FAST), log


def test_a_push_with_one_failed_release(github: FakeGitHub, tmp_path: Path) -> None:
    chart = workspace_with_chart(tmp_path)
    run, log = session(github, tmp_path, "push", octokit.event_payload("push"),
                       redactor=Redactor([CANARY]))
    report = RunReport((deployed(chart), replace(failed(chart), name="api")),
                       result_path="/tmp/result.json")
    code = run.run(["web", "api"], lambda: report)
    assert code == 1
    lines = log.getvalue().splitlines()
    masks = [line for line in lines if line.startswith("::add-mask::")]
    assert lines[:len(masks)] == masks  # before any other line
    assert {f"::add-mask::{CANARY}", f"::add-mask::{TOKEN}"} <= set(masks)
    assert "::group::web: upgraded as revision 4, 2 resources changed" in lines
    assert any(line.startswith("::error file=charts/web/templates/migrate.yaml,line=1,"
                               "title=api failed::pre-upgrade hooks failed") for line in lines)
    assert {r.fields["name"]: r.fields["conclusion"] for r in github.check_runs.values()} == {
        "deploy-runner web": "success", "deploy-runner api": "failure"}
    assert all(r.fields["head_sha"] == "f" * 40 for r in github.check_runs.values())
    outputs = (tmp_path / "output").read_text().splitlines()
    assert {"changed=true", "result=/tmp/result.json", "web-revision=4", "web-status=deployed",
            "api-status=failed"} <= set(outputs)
    assert "| web | prod | ✅ succeeded | 4 | deployed |" in (tmp_path / "summary").read_text()
    assert github.rejections == []


def test_a_fork_token_never_turns_a_good_deploy_red(tmp_path: Path) -> None:
    with FakeGitHub(read_only=("ghs_fork",)) as github:
        run, log = session(github, tmp_path, "pull_request",
                           octokit.event_payload("pull_request", "opened"), token="ghs_fork")
        code = run.run(["web"], lambda: RunReport((deployed(None, outcome=PLANNED),), plan=True))
    assert code == 0
    warnings = [line for line in log.getvalue().splitlines() if line.startswith("::warning::")]
    assert len(warnings) == 1 and "Resource not accessible by integration" in warnings[0]
    summary = (tmp_path / "summary").read_text()
    assert "## deploy-runner plan" in summary and "Resource not accessible" in summary


def test_a_pull_request_deploys_its_preview_and_keeps_one_comment(github: FakeGitHub,
                                                                  tmp_path: Path) -> None:
    payload = octokit.event_payload("pull_request", "synchronize")
    head = payload["pull_request"]["head"]["sha"]
    target = PreviewTarget("web", "pr-2", "https://pr-2.preview.example.com")
    for _ in range(2):
        run, _log = session(github, tmp_path, "pull_request", payload, comment=True)
        report = RunReport((deployed(None), deployed(None, name="api", outcome=PLANNED,
                                                      changes=(change(),))))
        assert run.run(["web", "api"], lambda report=report: report, previews=[target]) == 0
    assert [d["environment"] for d in github.deployments.values()] == ["pr-2", "pr-2"]
    assert all(d["ref"] == head for d in github.deployments.values())
    statuses = [s for all_ in github.deployment_statuses.values() for s in all_]
    assert [s["environment_url"] for s in statuses] == [target.url] * 2
    [comment] = github.comments.values()
    assert comment["body"].startswith("<!-- deploy-runner plan -->")
    assert len(github.calls("issues/update-comment")) == 0  # the same plan: nothing to edit
    assert all(r.fields["head_sha"] == head for r in github.check_runs.values())
    closed, _log = session(github, tmp_path, "pull_request",
                           octokit.event_payload("pull_request", "closed", merged=True))
    closed.run([], lambda: RunReport(()), previews=[target])
    assert [s[-1]["state"] for s in github.deployment_statuses.values()] == ["inactive"] * 2
    assert github.rejections == []


def test_no_check_run_stays_in_progress(github: FakeGitHub, tmp_path: Path) -> None:
    """A release the run did not report is completed skipped; a run that stops on an error
    completes every open check run as failed (its text in the log, not on GitHub)."""
    run, _log = session(github, tmp_path, "push", octokit.event_payload("push"))
    assert run.run(["web", "api"], lambda: RunReport((deployed(None),))) == 0
    assert {r.fields["name"]: (r.fields["status"], r.fields["conclusion"])
            for r in github.check_runs.values()} == {
        "deploy-runner web": ("completed", "success"),
        "deploy-runner api": ("completed", "skipped")}

    def broken() -> RunReport:
        raise RuntimeError(f"cluster gone ({CANARY})")

    github.check_runs.clear()
    run, _log = session(github, tmp_path, "push", octokit.event_payload("push"))
    with pytest.raises(RuntimeError):
        run.run(["web"], broken)
    [stopped] = github.check_runs.values()
    assert (stopped.fields["status"], stopped.fields["conclusion"]) == ("completed", "failure")
    assert not any(CANARY in sent for sent in github.everything_sent())
    assert github.rejections == []
