"""The workflow run a report belongs to, read as GitHub hands it to a step: the default
environment variables (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, ...) and
the event's payload file.

The commit a report goes on: for pull_request events the pull request's head
(`pull_request.head.sha`), never GITHUB_SHA, which is the test merge commit of
refs/pull/N/merge; for check_run events the check run's (`check_run.head_sha`; GITHUB_SHA
is the default branch's head there); for every other event GITHUB_SHA.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import RunnerError
from runner.report.github.client import DEFAULT_API_URL

PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
DEPLOY = "deploy"  # push, workflow_dispatch, repository_dispatch, schedule, ...
PULL_REQUEST = "pull-request"  # previews deploy (PREVIEW_ACTIONS) or plan, others plan
PREVIEW_ACTIONS = ("opened", "synchronize", "reopened")  # the pull request's code changed
TEARDOWN = "teardown"  # a closed pull request (merged or not): previews removed


@dataclass(frozen=True)
class GitHubEvent:
    name: str
    payload: dict[str, Any] = field(repr=False)
    repository: str  # owner/name
    sha: str  # the commit the report goes on
    ref: str = ""
    workspace: Path = Path(".")
    api_url: str = DEFAULT_API_URL
    server_url: str = "https://github.com"
    run_id: str = ""
    token: str = field(default="", repr=False)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> GitHubEvent:
        env = os.environ if environ is None else environ
        name = env.get("GITHUB_EVENT_NAME", "")
        payload = _payload(env.get("GITHUB_EVENT_PATH", ""))
        sha = env.get("GITHUB_SHA", "")
        if name in PULL_REQUEST_EVENTS:
            sha = ((payload.get("pull_request") or {}).get("head") or {}).get("sha") or sha
        elif name == "check_run":  # a click: its answers go on the clicked check run's commit
            sha = (payload.get("check_run") or {}).get("head_sha") or sha
        return cls(name=name, payload=payload, repository=env.get("GITHUB_REPOSITORY", ""),
                   sha=sha, ref=env.get("GITHUB_REF", ""),
                   workspace=Path(env.get("GITHUB_WORKSPACE") or os.getcwd()),
                   api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
                   server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
                   run_id=env.get("GITHUB_RUN_ID", ""),
                   token=env.get("INPUT_GITHUB_TOKEN") or env.get("GITHUB_TOKEN", ""))

    @property
    def action(self) -> str:
        return str(self.payload.get("action") or "")

    @property
    def pull_number(self) -> int | None:
        number = self.payload.get("number") or (self.payload.get("pull_request") or {}).get(
            "number")
        return int(number) if self.name in PULL_REQUEST_EVENTS and number else None

    @property
    def merged(self) -> bool:
        return self.action == "closed" and bool(
            (self.payload.get("pull_request") or {}).get("merged"))

    @property
    def mode(self) -> str:
        if self.name not in PULL_REQUEST_EVENTS:
            return DEPLOY
        return TEARDOWN if self.action == "closed" else PULL_REQUEST

    @property
    def deploys_previews(self) -> bool:
        """The previews follow the pull request's code: deployed when it was opened,
        reopened or pushed to; on other activity (labeled, edited, ...) only planned."""
        return self.mode == PULL_REQUEST and self.action in PREVIEW_ACTIONS

    @property
    def run_url(self) -> str:
        if not (self.repository and self.run_id):
            return ""
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"


def _payload(path: str) -> dict[str, Any]:
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            payload = json.load(handle)
    except (OSError, ValueError) as err:
        raise RunnerError(f"cannot read the event payload GITHUB_EVENT_PATH={path}: {err}") \
            from err
    if not isinstance(payload, dict):
        raise RunnerError(f"the event payload {path} is not a JSON object")
    return payload
