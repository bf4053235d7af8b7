"""Runs `deploy-runner action` as GitHub runs the Docker action: in its own process, in
the workspace, with GitHub's default variables, the INPUT_* of action.yml, an event file,
the output and summary files, and the API at a local GitHub server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.testbed.github import TOKEN, FakeGitHub

TIMEOUT = 600


@dataclass
class StepResult:
    code: int
    log: str  # the step's log: stdout and stderr, as the runner shows them
    outputs: dict[str, str]
    summary: str

    def text(self) -> str:
        return "\n".join([self.log, json.dumps(self.outputs), self.summary])


def run_step(github: FakeGitHub, workspace: Path, event: str, payload: dict[str, Any],
             inputs: dict[str, str], *, sha: str = "f" * 40, ref: str = "refs/heads/main"
             ) -> StepResult:
    files = workspace.parent / f"{workspace.name}-files"
    files.mkdir(exist_ok=True)
    (files / "event.json").write_text(json.dumps(payload))
    for name in ("output", "summary"):
        (files / name).write_text("")
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GITHUB_", "INPUT_", "KUBECONFIG", "HELM_"))}
    env.update({
        "GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(files / "event.json"), "GITHUB_SHA": sha, "GITHUB_REF": ref,
        "GITHUB_REPOSITORY": github.repository, "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(files / "output"), "GITHUB_STEP_SUMMARY": str(files / "summary"),
        "GITHUB_API_URL": github.url, "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1", "HOME": str(files),
        "INPUT_GITHUB_TOKEN": TOKEN,
        **{f"INPUT_{name.upper()}": value for name, value in inputs.items()},
    })
    done = subprocess.run([sys.executable, "-m", "runner.cli", "action"], cwd=workspace, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    return StepResult(done.returncode, done.stdout + done.stderr,
                      parse_outputs((files / "output").read_text()),
                      (files / "summary").read_text())


def parse_outputs(text: str) -> dict[str, str]:
    """$GITHUB_OUTPUT as the runner reads it: name=value, or name<<DELIM ... DELIM."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for body in lines:
                if body == delimiter:
                    break
                value.append(body)
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs
