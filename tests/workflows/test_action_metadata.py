"""action.yml and the workflows of this repository: every action they use is pinned by a
full commit SHA (ours excepted: users pin it), and action/prepare.py keys the cached
virtual environment by what makes it (the lock, the Python), choosing the AWS extra only
where the EKS login is asked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.workflows.executor import SHA, env_file
from tests.workflows.machine import ACTION_NAME, ROOT

WORKFLOWS = [ROOT / "action.yml", *sorted((ROOT / "examples" / "workflows").glob("*.yml")),
             *sorted((ROOT / ".github" / "workflows").glob("*.yml"))]


def used(path: Path) -> list[str]:
    document = yaml.safe_load(path.read_text())
    steps = list((document.get("runs") or {}).get("steps") or [])
    for job in (document.get("jobs") or {}).values():
        steps += job.get("steps") or []
    return [str(step["uses"]) for step in steps if "uses" in step]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_action_used_is_pinned_by_commit(path: Path) -> None:
    for reference in used(path):
        name, _, version = reference.partition("@")
        if reference.startswith("./") or name == ACTION_NAME:
            continue
        assert SHA.match(version), f"{path.name}: {reference} is not pinned by a commit SHA"


def prepare(tmp_path: Path, *args: str, **env: str) -> dict[str, str]:
    output = tmp_path / f"output-{len(list(tmp_path.iterdir()))}"
    output.write_text("")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "RUNNER_"))}
    subprocess.run([sys.executable, str(ROOT / "action" / "prepare.py"), *args], cwd=tmp_path,
                   env={**base, "GITHUB_OUTPUT": str(output), "RUNNER_TOOL_CACHE": str(tmp_path),
                        **env}, check=True, timeout=60)
    return env_file(output.read_text())


def test_the_venv_key_and_the_extra(tmp_path: Path) -> None:
    plain = prepare(tmp_path)
    assert plain["ready"] == "false" and plain["path"] == f"{tmp_path}/deploy-runner/{plain['key']}"
    assert "-base-" in plain["key"] and f"{sys.version_info[0]}.{sys.version_info[1]}" in plain["key"]
    eks = prepare(tmp_path, INPUT_EKS_CLUSTER="prod")
    assert "-aws-" in eks["key"] and eks["key"] != plain["key"]
    (tmp_path / "deploy.yaml").write_text("environments:\n  prod:\n    eks:\n      cluster: p\n")
    assert prepare(tmp_path, INPUT_SPEC="deploy.yaml")["key"] == eks["key"]
    (tmp_path / "deploy-runner.yaml").write_text("releases: []\n")
    assert prepare(tmp_path)["key"] == plain["key"]
