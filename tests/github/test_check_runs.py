"""Check runs as the report posts them, against the local GitHub server."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from runner.report import limits
from runner.report.github.checks import CheckRuns, check_name
from runner.report.github.client import GitHubReport, RetryPolicy
from runner.report.model import PLANNED, SKIPPED, Source
from testbed.github import TOKEN, FakeGitHub
from tests.github.reports import change, deployed, failed, workspace_with_chart

SHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
FAST = RetryPolicy(backoff=0.01, max_backoff=0.05, secondary_wait=0.05, max_wait=5,
                   seconds_between_writes=0, seconds_between_requests=0)


def checks(github: FakeGitHub, workspace: Path, token: str = TOKEN,
           policy: RetryPolicy = FAST) -> CheckRuns:
    report = GitHubReport(github.url, token, github.repository, policy)
    return CheckRuns(report, SHA, workspace, details_url="https://github.com/run/1",
                     external_id="1")


def test_a_release_runs_in_progress_then_completes_with_annotations(github: FakeGitHub,
                                                                    tmp_path: Path) -> None:
    chart = workspace_with_chart(tmp_path)
    runs = checks(github, tmp_path)
    runs.start(["web"])
    [run] = github.check_runs.values()
    assert run.fields["status"] == "in_progress" and run.fields["head_sha"] == SHA
    runs.finish(deployed(chart))
    assert run.fields["conclusion"] == "success" and run.fields["status"] == "completed"
    assert run.fields["name"] == check_name("web")
    assert run.fields["output"]["title"] == "web: upgraded as revision 4, 2 resources changed"
    assert "| web | prod | web-1.0.0 | upgrade | 4 | deployed | server-side | 12.0 s |" in \
        run.fields["output"]["summary"]
    assert [(a["path"], a["start_line"], a["annotation_level"]) for a in run.annotations] == [
        ("charts/web/templates/deployment.yaml", 3, "notice")] * 2
    assert run.annotations[0]["raw_details"] == "-a: 1\n+a: 2"
    assert github.rejections == []


def test_a_failed_release_annotates_its_hook_and_unready_resources(github: FakeGitHub,
                                                                  tmp_path: Path) -> None:
    chart = workspace_with_chart(tmp_path)
    checks(github, tmp_path).finish(failed(chart))
    [run] = github.check_runs.values()
    assert run.fields["conclusion"] == "failure"
    hook = next(a for a in run.annotations if a["path"].endswith("migrate.yaml"))
    assert hook["annotation_level"] == "failure" and "ERROR: no table" in hook["message"]
    unready = next(a for a in run.annotations if a.get("title") == "Deployment/web not ready")
    assert unready["start_line"] == 2 and "ImagePullBackOff" in unready["message"]
    assert "### Hook Job/web-migrate: failed" in run.fields["output"]["text"]


@pytest.mark.parametrize("outcome, changes, expected", [
    (PLANNED, (), "neutral"), (PLANNED, (change(),), "success"), (SKIPPED, (), "skipped")])
def test_conclusions(github: FakeGitHub, tmp_path: Path, outcome: str, changes: tuple,
                     expected: str) -> None:
    checks(github, tmp_path).finish(deployed(None, outcome=outcome, changes=changes))
    [run] = github.check_runs.values()
    assert run.fields["conclusion"] == expected


def test_more_than_50_annotations_go_in_batches_resending_title_and_summary(
        github: FakeGitHub, tmp_path: Path) -> None:
    chart = workspace_with_chart(tmp_path)
    runs = checks(github, tmp_path)
    runs.start(["web"])
    runs.finish(deployed(chart, changes=tuple(change(n) for n in range(121))))
    [run] = github.check_runs.values()
    assert len(run.annotations) == 121
    patches = github.calls("checks/update")
    assert [len(p.body["output"].get("annotations", [])) for p in patches] == [50, 50, 21]
    assert all(p.body["output"]["title"] and p.body["output"]["summary"] for p in patches)
    assert ["conclusion" in p.body for p in patches] == [False, False, True]
    assert github.rejections == []


def test_a_release_never_started_is_created_and_completed(github: FakeGitHub,
                                                          tmp_path: Path) -> None:
    chart = workspace_with_chart(tmp_path)
    checks(github, tmp_path).finish(deployed(chart, changes=tuple(change(n) for n in range(60))))
    [run] = github.check_runs.values()
    assert len(run.annotations) == 60 and run.fields["conclusion"] == "success"
    assert github.calls("checks/create")[0].body["status"] == "in_progress"
    assert github.rejections == []


def test_every_size_limit_is_kept_with_a_marked_cut(github: FakeGitHub, tmp_path: Path) -> None:
    chart = workspace_with_chart(tmp_path)
    huge = "\n".join(f"+line {n} " + "é" * 60 for n in range(3000))
    release = deployed(chart, changes=tuple(change(n, diff=huge) for n in range(8)),
                       error="E" * 70000, hooks=failed(chart).hooks)
    checks(github, tmp_path).finish(release)
    assert github.rejections == []
    [run] = github.check_runs.values()
    summary = run.fields["output"]["summary"]
    assert len(summary) <= limits.CHECK_TEXT_CHARS and "cut here" in summary
    details = run.annotations[0]["raw_details"]
    assert len(details.encode()) <= limits.ANNOTATION_BYTES and "bytes cut here" in details


def test_annotations_only_for_files_in_the_repository(github: FakeGitHub, tmp_path: Path) -> None:
    outside = workspace_with_chart(tmp_path / "elsewhere")
    (tmp_path / "repo").mkdir()
    checks(github, tmp_path / "repo").finish(deployed(outside))
    checks(github, tmp_path / "repo").finish(deployed(None))
    assert all(run.annotations == [] for run in github.check_runs.values())
    assert all("web-0" in run.fields["output"]["summary"] for run in github.check_runs.values())


def test_5xx_and_rate_limits_are_retried(github: FakeGitHub, tmp_path: Path) -> None:
    github.fail("checks/create", 502, times=2)
    github.fail("checks/update", 429, headers={"Retry-After": "1"})
    github.fail("checks/update", 403, times=1, headers={
        "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 1)},
        body={"message": "API rate limit exceeded for installation ID 1."})
    runs = checks(github, tmp_path)
    runs.start(["web"])
    runs.finish(deployed(None))
    [run] = github.check_runs.values()
    assert run.fields["conclusion"] == "success"
    assert [r.status for r in github.requests] == [502, 502, 201, 429, 403, 200]
    assert runs.report.warnings == []


def test_a_rate_limit_resetting_too_late_is_given_up_with_a_warning(github: FakeGitHub,
                                                                   tmp_path: Path) -> None:
    github.fail("checks/create", 429, headers={"Retry-After": "3600"})
    runs = checks(github, tmp_path)
    started = time.monotonic()
    runs.start(["web"])
    assert time.monotonic() - started < 5
    assert "rate limit" in runs.report.warnings[0]


def test_a_read_only_token_falls_back_with_one_warning(tmp_path: Path) -> None:
    with FakeGitHub(read_only=("ghs_fork",)) as github:
        runs = checks(github, tmp_path, token="ghs_fork")
        runs.start(["web", "api"])
        runs.finish(deployed(None))
        assert len(github.requests) == 1  # refused once, nothing tried after
        [warning] = runs.report.warnings
        assert "Resource not accessible by integration" in warning and "job summary" in warning


def test_ghes_base_url_with_a_path(tmp_path: Path) -> None:
    with FakeGitHub(prefix="/api/v3") as github:
        runs = checks(github, tmp_path)
        runs.start(["web"])
        runs.finish(deployed(None))
        assert [r.status for r in github.requests] == [201, 200]


def test_a_change_is_annotated_at_its_first_changed_line(github: FakeGitHub,
                                                         tmp_path: Path) -> None:
    chart = workspace_with_chart(tmp_path)
    moved = replace(change(), changed_lines=(Source("web/templates/deployment.yaml", 6),))
    checks(github, tmp_path).finish(deployed(chart, changes=(moved,)))
    [run] = github.check_runs.values()
    assert [a["start_line"] for a in run.annotations] == [6]
