"""The Actions runtime: workflow commands, output and summary files, the event."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from runner.report import limits, markdown
from runner.report.github.event import DEPLOY, PULL_REQUEST, TEARDOWN, GitHubEvent
from runner.report.model import RunReport
from runner.report.workflow import Workflow, command
from testbed import octokit
from tests.github.reports import change, deployed


def test_commands_escape_as_the_toolkit_does() -> None:
    assert command("error", "50% done\nnext", file="a,b:c.yaml", line=3) == \
        "::error file=a%2Cb%3Ac.yaml,line=3::50%25 done%0Anext"
    assert command("endgroup") == "::endgroup::"


def test_outputs_single_and_multi_line(tmp_path: Path) -> None:
    out = tmp_path / "output"
    Workflow(out=io.StringIO(), output_file=out).set_outputs(
        {"changed": "true", "notes": "a\nb"})
    lines = out.read_text().splitlines()
    assert lines[0] == "changed=true"
    assert lines[1].startswith("notes<<ghadelimiter_") and lines[2:4] == ["a", "b"]
    assert lines[4] == lines[1].split("<<")[1]


def test_masks_each_line_once_before_anything_else() -> None:
    log = io.StringIO()
    workflow = Workflow(out=log)
    workflow.mask(["s3cr3t", "multi\nline", "s3cr3t", ""])
    assert log.getvalue().splitlines() == ["::add-mask::s3cr3t", "::add-mask::multi",
                                           "::add-mask::line"]


def test_the_step_summary_stays_under_one_mebibyte(tmp_path: Path) -> None:
    summary = tmp_path / "summary"
    big = tuple(deployed(None, name=f"r{n}", changes=tuple(change(i, diff="x" * 19000)
                                                            for i in range(10)))
                for n in range(20))
    text = markdown.run_summary(RunReport(big))
    assert len(text.encode()) <= limits.STEP_SUMMARY_BYTES and "more releases cut here" in text
    Workflow(out=io.StringIO(), summary_file=summary).append_summary(text)
    assert len(summary.read_bytes()) <= limits.STEP_SUMMARY_BYTES


def environment(tmp_path: Path, event: str, payload: dict) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return {"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(path),
            "GITHUB_SHA": "f" * 40, "GITHUB_REPOSITORY": "Codertocat/Hello-World",
            "GITHUB_RUN_ID": "7", "GITHUB_SERVER_URL": "https://github.com",
            "INPUT_GITHUB_TOKEN": "ghs_x"}


def test_a_pull_request_reports_on_its_head_not_the_merge_commit(tmp_path: Path) -> None:
    payload = octokit.event_payload("pull_request", "synchronize")
    event = GitHubEvent.from_environment(environment(tmp_path, "pull_request", payload))
    assert event.sha == payload["pull_request"]["head"]["sha"] != "f" * 40
    assert event.pull_number == payload["number"] and event.mode == PULL_REQUEST
    assert event.run_url == "https://github.com/Codertocat/Hello-World/actions/runs/7"
    assert event.token == "ghs_x"


def test_closed_merged_and_other_events(tmp_path: Path) -> None:
    merged = GitHubEvent.from_environment(environment(
        tmp_path, "pull_request", octokit.event_payload("pull_request", "closed", merged=True)))
    assert merged.mode == TEARDOWN and merged.merged
    closed = GitHubEvent.from_environment(environment(
        tmp_path, "pull_request", octokit.event_payload("pull_request", "closed")))
    assert closed.mode == TEARDOWN and not closed.merged
    for name in ("push", "workflow_dispatch", "repository_dispatch"):
        event = GitHubEvent.from_environment(environment(
            tmp_path, name, octokit.event_payload(name)))
        assert event.mode == DEPLOY and event.sha == "f" * 40 and event.pull_number is None


def test_previews_deploy_only_when_the_pull_requests_code_changed(tmp_path: Path) -> None:
    for action in ("opened", "synchronize", "reopened"):
        event = GitHubEvent.from_environment(environment(
            tmp_path, "pull_request", octokit.event_payload("pull_request", action)))
        assert event.mode == PULL_REQUEST and event.deploys_previews
    # a label added: the examples have no such payload; GitHub's differs in `action`
    # (and a `label` object) only
    labeled = {**octokit.event_payload("pull_request", "synchronize"), "action": "labeled",
               "label": {"name": "preview"}}
    event = GitHubEvent.from_environment(environment(tmp_path, "pull_request", labeled))
    assert event.mode == PULL_REQUEST and not event.deploys_previews
    closed = GitHubEvent.from_environment(environment(
        tmp_path, "pull_request", octokit.event_payload("pull_request", "closed")))
    assert not closed.deploys_previews


def test_a_spec_that_cannot_be_used_is_annotated_at_its_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from runner.report.github.entry import spec_problems
    from runner.spec.errors import SpecError
    from runner.spec.load import load_spec

    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "spec.yaml").write_text(
        "releases:\n- name: web\n  chart: ./web\n  applyMethod: sideways\n  atomic: maybe\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    with pytest.raises(SpecError) as raised:
        load_spec("deploy/spec.yaml")
    log = io.StringIO()
    spec_problems(raised.value, Workflow(out=log))
    lines = log.getvalue().splitlines()
    assert [line.split("::")[1] for line in lines] == [
        f"error file=deploy/spec.yaml,line={n},title=the spec cannot be used"
        for n in (4, 5)]
    assert lines[0].endswith("::deploy/spec.yaml:4: releases[0].applyMethod: must be one of "
                             "ssa, csa, auto")


def test_whatever_it_writes_hides_the_secrets_its_redactor_knows(tmp_path: Path) -> None:
    """A GitHub API error quoted in a ::warning::, an ::error:: line and its properties, a
    log line, an output, the summary: the secret in none, but in its ::add-mask:: line."""
    from runner.release.redact import MASK, Redactor

    secret = "s3cr3t:value,with%signs"
    log = io.StringIO()
    workflow = Workflow(out=log, output_file=tmp_path / "output",
                        summary_file=tmp_path / "summary", redactor=Redactor([secret]))
    workflow.redactor.listen(workflow.mask)
    workflow.warning(f"GitHub answered 422: {secret}")
    workflow.error(f"failed:\n{secret}", file=f"{secret}.yaml", title=f"{secret} failed")
    with workflow.group(f"web {secret}"):
        workflow.log(f"token {secret}")
    workflow.set_outputs({"web-status": secret})
    workflow.append_summary(f"| {secret} |")
    lines = log.getvalue().splitlines()
    masks = [line for line in lines if line.startswith("::add-mask::")]
    assert lines[:len(masks)] == masks and "::add-mask::s3cr3t:value,with%25signs" in masks
    written = "\n".join([*lines[len(masks):], (tmp_path / "output").read_text(),
                         (tmp_path / "summary").read_text()])
    assert "s3cr3t" not in written and written.count(MASK) == 8
