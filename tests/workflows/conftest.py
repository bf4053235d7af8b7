"""Fixtures for running workflows as the runner does (tests/workflows/executor.py): the
action as the runner downloads it, the cache service's store, a job's machine."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.workflows.executor import Runner
from tests.workflows.stand_ins import stand_ins

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "workflows"
ACTION_NAME = "deploy-runner/deploy-runner"  # as examples/workflows name it
LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache",
                                  ".import_linter_cache", "*.egg-info", "build", "dist")


@pytest.fixture(scope="session")
def action_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This repository as the runner puts an action it downloads: _actions/<owner>/<name>/<ref>."""
    target = tmp_path_factory.mktemp("runner") / "_actions" / ACTION_NAME / "v1"
    shutil.copytree(ROOT, target, ignore=LEFT_OUT, symlinks=True)
    return target


@pytest.fixture(scope="session")
def cache_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cache service: what one job saves, a later job restores (one per session)."""
    return tmp_path_factory.mktemp("cache-service")


def machine_env(**extra: str) -> dict[str, str]:
    """A runner machine's variables: this one's, less everything of GitHub, clusters, AWS
    and this virtual environment (a job sees the machine's Python, not the tests')."""
    venv_bin = str(Path(sys.prefix) / "bin")
    env = {k: v for k, v in os.environ.items() if not k.startswith(
        ("GITHUB_", "INPUT_", "RUNNER_", "KUBECONFIG", "HELM_", "AWS_", "DEPLOY_RUNNER_",
         "VIRTUAL_ENV", "PYTHON", "PIP_"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p != venv_bin)
    return {**env, **extra}


@pytest.fixture
def make_runner(tmp_path: Path, action_dir: Path, cache_store: Path) -> Callable[..., Runner]:
    counter = iter(range(1000))

    def make(github: Any, source: Path, event: str, payload: dict[str, Any], *,
             secrets: dict[str, str] | None = None, variables: dict[str, str] | None = None,
             sha: str = "f" * 40, ref: str = "refs/heads/main", **env: str) -> Runner:
        return Runner(root=tmp_path / f"job-{next(counter)}", repository=github.repository,
                      event_name=event, payload=payload, api_url=github.url,
                      token=github_token(), action_name=ACTION_NAME, action_dir=action_dir,
                      stand_ins=stand_ins(source, cache_store), sha=sha, ref=ref,
                      secrets=secrets or {}, variables=variables or {},
                      base_env=machine_env(**env))

    return make


def github_token() -> str:
    from runner.testbed.github import TOKEN

    return TOKEN
