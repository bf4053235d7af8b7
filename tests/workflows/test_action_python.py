"""Which Python action.yml runs deploy-runner with: the runner's own when it is 3.11 or
newer and can make a virtual environment, else the one actions/setup-python installs (a
self-hosted runner with none). Run by the tests' runner up to deploy-runner answering
`version` (its last step swapped: tests/workflows/machine.py)."""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

import yaml

from tests.workflows.executor import Runner, run_job
from tests.workflows.machine import ACTION_NAME, ROOT, action_answering, machine_env
from tests.workflows.stand_ins import stand_ins


def job(tmp_path: Path, cache_store: Path, env: dict[str, str]) -> tuple[Runner, object]:
    action = action_answering(tmp_path / "runner-files")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    workflow = tmp_path / "workflow.yml"
    workflow.write_text(yaml.safe_dump({"on": "push", "jobs": {"job": {
        "runs-on": "self-hosted", "steps": [{"id": "action", "uses": f"{ACTION_NAME}@v1"}]}}}))
    runner = Runner(root=tmp_path / "machine", repository="o/r", event_name="push", payload={},
                    api_url="http://127.0.0.1:9", token="t", action_name=ACTION_NAME,
                    action_dir=action, stand_ins=stand_ins(workspace, cache_store),
                    base_env=env, checkout=workspace)
    return runner, run_job(runner, workflow)


def declared_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_a_runner_without_python_gets_one_from_setup_python(tmp_path: Path,
                                                           cache_store: Path) -> None:
    tools = tmp_path / "bin"  # a PATH with a shell and nothing else
    tools.mkdir()
    for name in ("bash", "tr"):
        found = shutil.which(name)
        assert found is not None
        os.symlink(found, tools / name)
    runner, done = job(tmp_path, cache_store, machine_env(PATH=str(tools)))
    assert not done.failed, done.shown()
    [given] = [line for line in done.log if line.startswith("setup-python:")]
    assert given.startswith("setup-python: Python 3.12 asked")
    assert f"v{declared_version()}" in done.log


def test_the_runners_own_python_is_used_when_it_will_do(tmp_path: Path, cache_store: Path) -> None:
    runner, done = job(tmp_path, cache_store, machine_env())
    assert not done.failed, done.shown()
    assert not any(line.startswith("setup-python:") for line in done.log)
    assert f"v{declared_version()}" in done.log
    venvs = list((runner.root / "toolcache" / "deploy-runner").iterdir())
    assert len(venvs) == 1 and "-base-" in venvs[0].name  # the lock without the AWS SDK
