"""Runs the Action as GitHub runs it: action.yml, a composite action, executed by the
tests' runner (tests/workflows/executor.py) as the one step of a job, in the test's
workspace, with GitHub's variables, an event file, the env files and the API at a local
GitHub server. The step's log is what it printed (`::add-mask::` lines included)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from testbed.github import TOKEN, FakeGitHub
from tests.workflows.executor import Runner, run_job
from tests.workflows.machine import ACTION_NAME, machine_env
from tests.workflows.stand_ins import stand_ins


@dataclass
class StepResult:
    code: int
    log: str  # the step's log: stdout and stderr, as the step printed them
    outputs: dict[str, str]  # action.yml's declared outputs
    summary: str

    def text(self) -> str:
        return "\n".join([self.log, json.dumps(self.outputs), self.summary])

    def status(self, release: str) -> str | None:
        return json.loads(self.outputs["statuses"]).get(release)

    def revision(self, release: str) -> int | None:
        return json.loads(self.outputs["revisions"]).get(release)

    def result(self) -> dict[str, Any]:
        return json.loads(Path(self.outputs["result"]).read_text())


def run_step(github: FakeGitHub, workspace: Path, event: str, payload: dict[str, Any],
             inputs: dict[str, str], *, action_dir: Path, cache_store: Path,
             sha: str = "f" * 40, ref: str = "refs/heads/main") -> StepResult:
    """`uses: <the action>@v1` with `inputs`, the only step of a job on `workspace`."""
    machine = workspace.parent / f"{workspace.name}-runner"
    workflow = machine / "workflow.yml"
    machine.mkdir(exist_ok=True)
    workflow.write_text(yaml.safe_dump({"on": event, "jobs": {"job": {
        "runs-on": "ubuntu-latest",
        "steps": [{"id": "action", "uses": f"{ACTION_NAME}@v1", "with": inputs}]}}}))
    runner = Runner(root=machine, repository=github.repository, event_name=event,
                    payload=payload, api_url=github.url, token=TOKEN, action_name=ACTION_NAME,
                    action_dir=action_dir, stand_ins=stand_ins(workspace, cache_store),
                    sha=sha, ref=ref, base_env=machine_env(), checkout=workspace)
    job = run_job(runner, workflow)
    step = job.steps["action"]
    return StepResult(step.code, "\n".join(job.raw), step.outputs, job.summary)
