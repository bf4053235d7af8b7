"""Where `${...}` values and `when`'s branch and paths come from: a GitHub event, a payload,
or the git checkout; looked up only when used."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from runner.spec.context import (
    RunContext,
    VariableError,
    git_context,
    github_context,
    local_context,
    matches_any,
    payload_context,
)

ENV = {"GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/heads/main", "GITHUB_SHA": "merge-sha",
       "GITHUB_REPOSITORY": "acme/shop", "GITHUB_ACTOR": "octocat", "GITHUB_RUN_ID": "42"}
PUSH = {"ref": "refs/heads/main", "commits": [{"added": ["charts/a/x.yaml"], "modified": ["README.md"],
                                                "removed": []}, {"modified": ["charts/a/x.yaml"]}]}
PULL = {"number": 7, "pull_request": {"number": 7, "head": {"sha": "head-sha", "ref": "feature/x"},
                                      "base": {"sha": "base-sha", "ref": "main"}}}


def test_a_push_gives_its_branch_commit_and_changed_paths():
    context = github_context("push", PUSH, ENV)
    assert [context.value(n) for n in ("sha", "ref", "branch", "actor", "repository", "run_id")] == [
        "merge-sha", "refs/heads/main", "main", "octocat", "acme/shop", "42"]
    assert context.changed_paths() == ["charts/a/x.yaml", "README.md"]
    with pytest.raises(VariableError, match=r"\$\{pr\} has no value in this run: a push event is not a pull request"):
        context.substitute("pr-${pr}")


def test_a_pull_request_gives_its_head_not_the_merge_commit():
    context = github_context("pull_request", PULL, {**ENV, "GITHUB_HEAD_REF": "feature/x"})
    assert (context.value("sha"), context.value("branch"), context.value("pr")) == ("head-sha", "feature/x", "7")
    assert context.substitute("pr-${pr}-$${literal}") == "pr-7-${literal}"


def test_the_workflow_event_file_is_read(tmp_path: Path):
    event = tmp_path / "event.json"
    event.write_text(json.dumps(PUSH))
    context = local_context("prod", str(tmp_path), {**ENV, "GITHUB_EVENT_PATH": str(event),
                                                    "GITHUB_EVENT_NAME": "push"})
    assert (context.event, context.environment, context.branch) == ("push", "prod", "main")


def test_a_local_run_reads_the_checkout(tmp_path: Path):
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q", "-b", "trunk")
    git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x")
    git("remote", "add", "origin", "git@github.com:acme/shop.git")
    context = git_context("default", str(tmp_path), {"USER": "me"})
    assert context.event is None  # no event: every release is selected
    assert (context.value("branch"), context.value("repository"), context.value("actor")) == (
        "trunk", "acme/shop", "me")
    assert len(context.value("sha") or "") == 40
    assert context.value("run_id") is None


def test_variables_are_looked_up_only_when_used():
    looked: list[str] = []
    context = RunContext("default", None, {"sha": lambda: looked.append("sha") or "x"}, {})
    assert context.substitute("no variables") == "no variables" and looked == []
    context.substitute("${sha} ${sha}")
    assert looked == ["sha"]


def test_a_payload_names_its_variables():
    context = payload_context({"sha": "abc", "branch": "main", "changed_paths": ["a/b"]}, "prod")
    assert (context.value("sha"), context.value("environment"), context.changed_paths()) == ("abc", "prod", ["a/b"])


def test_globs_are_githubs():
    assert matches_any("release/1.2", ["release/*"]) and not matches_any("release/1/2", ["release/*"])
    assert matches_any("charts/a/templates/x.yaml", ["charts/a/**"])
    assert not matches_any("charts/b/x", ["charts/a/**"])
