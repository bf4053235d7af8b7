"""The local GitHub server refuses what GitHub refuses: its OpenAPI description and the
limits documented in prose. Requests are sent raw (urllib3), not through the report."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
import urllib3

from testbed import octokit
from testbed.github import TOKEN, FakeGitHub

REPO = "/repos/Codertocat/Hello-World"
SHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"


def send(github: FakeGitHub, method: str, path: str, body: Any = None, *,
         token: str = TOKEN) -> urllib3.BaseHTTPResponse:
    return urllib3.request(method, github.url + path, headers={
        "Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28"},
        body=None if body is None else json.dumps(body).encode(), retries=False)


def note(**overrides: Any) -> dict[str, Any]:
    return {"path": "charts/web/templates/deployment.yaml", "start_line": 4, "end_line": 4,
            "annotation_level": "notice", "message": "changed", **overrides}


def create(github: FakeGitHub, **fields: Any) -> urllib3.BaseHTTPResponse:
    return send(github, "POST", f"{REPO}/check-runs",
                {"name": "web", "head_sha": SHA, **fields})


def test_a_valid_check_run_is_created_and_its_annotations_accumulate(github: FakeGitHub) -> None:
    created = create(github, status="in_progress", started_at="2026-01-02T03:04:05Z")
    assert created.status == 201, created.data
    run_id = created.json()["id"]
    output = {"title": "t", "summary": "s", "annotations": [note()] * 50}
    for _ in range(2):
        assert send(github, "PATCH", f"{REPO}/check-runs/{run_id}",
                    {"output": output}).status == 200
    done = send(github, "PATCH", f"{REPO}/check-runs/{run_id}", {"conclusion": "success"})
    assert done.json()["status"] == "completed"
    assert done.json()["output"]["annotations_count"] == 100
    listed = send(github, "GET", f"{REPO}/check-runs/{run_id}/annotations?per_page=100")
    assert len(listed.json()) == 100
    assert github.rejections == []


@pytest.mark.parametrize("fields, reason", [
    ({"output": {"title": "t", "summary": "s", "annotations": [note()] * 51}}, "too long"),
    ({"output": {"title": "t", "summary": "x" * 65536}}, "too long"),
    ({"output": {"title": "t", "summary": "s", "text": "x" * 65536}}, "too long"),
    ({"output": {"title": "t", "summary": "s",
                 "annotations": [note(annotation_level="error")]}}, "is not one of"),
    ({"output": {"title": "t", "summary": "s",
                 "annotations": [note(message="é" * (32 * 1024 + 1))]}}, "more than 64 KB"),
    ({"output": {"title": "t", "summary": "s",
                 "annotations": [note(raw_details="x" * (64 * 1024 + 1))]}}, "more than 64 KB"),
    ({"output": {"title": "t", "summary": "s", "annotations": [note(title="x" * 256)]}},
     "more than 255"),
    ({"output": {"title": "t", "summary": "s",
                 "annotations": [note(path="/github/workspace/charts/a.yaml")]}}, "not relative"),
    ({"output": {"title": "t", "summary": "s",
                 "annotations": [note(end_line=5, start_column=1)]}}, "columns"),
    ({"output": {"summary": "s"}}, "title"),
    ({"status": "completed"}, "conclusion is required"),
    ({"started_at": "yesterday"}, "date-time"),
    ({"conclusion": "stale", "head_sha": 7}, "is not of type"),
])
def test_what_github_refuses_is_refused(github: FakeGitHub, fields: dict[str, Any],
                                        reason: str) -> None:
    answer = create(github, **fields)
    assert answer.status == 422
    assert reason in github.rejections[0].rejection


def test_comment_and_deployment_status_limits(github: FakeGitHub) -> None:
    assert send(github, "POST", f"{REPO}/issues/2/comments",
                {"body": "x" * 65537}).status == 422
    deployment = send(github, "POST", f"{REPO}/deployments",
                      {"ref": SHA, "environment": "pr-2"}).json()
    assert send(github, "POST", f"{REPO}/deployments/{deployment['id']}/statuses",
                {"state": "success", "description": "x" * 141}).status == 422
    assert send(github, "POST", f"{REPO}/deployments/{deployment['id']}/statuses",
                {"state": "destroyed"}).status == 422
    assert send(github, "GET", f"{REPO}/issues/2/comments?per_page=101").status == 422


def test_answers_have_the_shape_github_documents(github: FakeGitHub) -> None:
    operations = octokit.operations()
    run = create(github, status="in_progress").json()
    deployment = send(github, "POST", f"{REPO}/deployments", {"ref": SHA}).json()
    status = send(github, "POST", f"{REPO}/deployments/{deployment['id']}/statuses",
                  {"state": "success"}).json()
    comment = send(github, "POST", f"{REPO}/issues/2/comments", {"body": "b"}).json()
    github.add_pull(2, state="closed")
    pull = send(github, "GET", f"{REPO}/pulls/2").json()
    for operation, answer in [("checks/create", run), ("repos/create-deployment", deployment),
                              ("repos/create-deployment-status", status),
                              ("issues/create-comment", comment), ("pulls/get", pull)]:
        jsonschema.Draft4Validator(operations[operation]["response"]).validate(answer)


def test_tokens_unknown_and_read_only(github: FakeGitHub) -> None:
    assert create(github).status == 201
    assert send(github, "POST", f"{REPO}/check-runs", {"name": "w", "head_sha": SHA},
                token="nope").status == 401
    with FakeGitHub(read_only=("ghs_fork",)) as forked:
        answer = send(forked, "POST", f"{REPO}/check-runs", {"name": "w", "head_sha": SHA},
                      token="ghs_fork")
        assert answer.status == 403
        assert answer.json()["message"] == "Resource not accessible by integration"


def test_faults_answer_the_next_calls_then_stop(github: FakeGitHub) -> None:
    github.fail("checks/create", 502, times=2)
    assert [create(github).status for _ in range(3)] == [502, 502, 201]


def test_lists_are_paged_with_link_headers(github: FakeGitHub) -> None:
    for n in range(3):
        send(github, "POST", f"{REPO}/issues/2/comments", {"body": str(n)})
    first = send(github, "GET", f"{REPO}/issues/2/comments?per_page=2")
    assert [c["body"] for c in first.json()] == ["0", "1"]
    next_url = first.headers["Link"].split(";")[0].strip("<>")
    assert [c["body"] for c in urllib3.request("GET", next_url, headers={
        "Authorization": f"Bearer {TOKEN}"}).json()] == ["2"]


def test_event_payloads_are_githubs_examples() -> None:
    opened = octokit.event_payload("pull_request", "opened")
    assert opened["action"] == "opened" and opened["pull_request"]["head"]["sha"]
    merged = octokit.event_payload("pull_request", "closed", merged=True)
    assert merged["pull_request"]["merged"] is True
    assert octokit.event_payload("pull_request", "closed")["pull_request"]["merged"] is False
    assert octokit.event_payload("push")["ref"].startswith("refs/heads/")
    assert "client_payload" in octokit.event_payload("repository_dispatch")
    assert "inputs" in octokit.event_payload("workflow_dispatch")
