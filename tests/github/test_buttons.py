"""A release check run's buttons (runner.report.github.buttons): which a release gets,
GitHub's limits on them (the tests' server refuses what GitHub's OpenAPI description
refuses), and the click's target read back from external_id."""

from __future__ import annotations

from typing import Any

import pytest

from runner.errors import RunnerError
from runner.report.github.buttons import (
    EXTERNAL_ID_CHARS,
    ClickTarget,
    action,
    completion_fields,
)
from runner.report.github.clicks import environment_of
from runner.report.model import FAILED, PLANNED, SUCCEEDED, UNCHANGED, ReleaseReport
from testbed.github import FakeGitHub
from tests.github.test_fake_github import create


def release(outcome: str = SUCCEEDED, *, revision: int = 4, previous: int | None = 3,
            name: str = "web", action_done: str = "upgrade") -> ReleaseReport:
    return ReleaseReport(name, "prod", outcome, action=action_done, revision=revision,
                         previous_revision=previous)


def test_a_deploy_over_an_earlier_revision_gets_rollback() -> None:
    fields = completion_fields(release(), "production", "77")
    assert fields["actions"] == [{"label": "Roll back to rev. 3",
                                  "description": "Roll back to revision 3",
                                  "identifier": "rollback"}]
    assert ClickTarget.parse(fields["external_id"]) == ClickTarget(
        "web", "prod", "production", 4, 3, "77")


def test_a_failed_deploy_gets_rollback_and_redeploy() -> None:
    fields = completion_fields(release(FAILED), "", "77")
    assert [a["identifier"] for a in fields["actions"]] == ["rollback", "redeploy"]
    assert ClickTarget.parse(fields["external_id"]).environment == ""


@pytest.mark.parametrize("report", [
    release(previous=None),  # a first install: nothing to roll back to
    release(PLANNED), release(UNCHANGED),
    release(action_done="uninstall"),
], ids=["first-install", "planned", "unchanged", "uninstall"])
def test_no_button_without_something_to_do(report: ReleaseReport) -> None:
    assert completion_fields(report, "", "77") == {}


def test_a_long_revision_falls_back_to_a_shorter_label() -> None:
    [rollback] = completion_fields(release(revision=10**9 + 1, previous=10**9), "", "1")["actions"]
    assert rollback["label"] == "Roll back" and rollback["description"] == \
        "Roll back to revision 1000000000"


def test_an_identity_longer_than_external_id_allows_gets_no_buttons() -> None:
    report = release()
    assert completion_fields(report, "e" * EXTERNAL_ID_CHARS, "1") == {}


def test_every_button_is_within_githubs_limits(github: FakeGitHub) -> None:
    fields = completion_fields(release(FAILED, revision=10**15, previous=10**15 - 1), "", "1")
    created = create(github, status="completed", conclusion="failure", **fields)
    assert created.status == 201, created.data
    assert github.rejections == []


@pytest.mark.parametrize("actions", [
    [{"label": "x" * 21, "description": "d", "identifier": "rollback"}],
    [{"label": "l", "description": "d" * 41, "identifier": "rollback"}],
    [{"label": "l", "description": "d", "identifier": "i" * 21}],
    [{"label": "l", "description": "d", "identifier": f"i{n}"} for n in range(4)],
], ids=["label", "description", "identifier", "four"])
def test_the_server_refuses_what_github_refuses(github: FakeGitHub, actions: list[Any]) -> None:
    assert create(github, actions=actions).status == 422
    assert len(github.rejections) == 1


@pytest.mark.parametrize("identifier, label, description, what", [
    ("i" * 21, "l", "d", "identifier"), ("rollback", "l" * 21, "d", "label"),
    ("rollback", "l", "d" * 41, "description"), ("rollback", "", "d", "label")])
def test_action_refuses_to_build_a_button_github_refuses(identifier: str, label: str,
                                                         description: str, what: str) -> None:
    with pytest.raises(ValueError, match=what):
        action(identifier, label, description)


@pytest.mark.parametrize("external_id, problem", [
    ("1234/web", "is not deploy-runner's"),
    ("deploy-runner/1?release=web", "names no namespace"),
    ("deploy-runner/1?release=web&namespace=prod&revision=four", "is not a revision number"),
])
def test_an_external_id_not_ours_is_refused_with_why(external_id: str, problem: str) -> None:
    with pytest.raises(RunnerError, match=problem):
        ClickTarget.parse(external_id)


def test_the_action_takes_a_clicks_environment_from_its_check_run() -> None:
    target = ClickTarget("web", "prod", "staging", 2, 1)
    assert environment_of({"check_run": {"external_id": target.external_id()}}) == "staging"
    assert environment_of({"check_run": {"external_id": "someone else's"}}) == ""
