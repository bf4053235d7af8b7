"""A runner machine for the tests' workflow executor (tests/workflows/executor.py): the
action as the runner downloads it, and the machine's environment a job starts from."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "workflows"
ACTION_NAME = "deploy-runner/deploy-runner"  # as examples/workflows name it
LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache",
                                  ".import_linter_cache", "*.egg-info", "build", "dist")


def copy_action(runner_root: Path) -> Path:
    """This repository as the runner puts an action it downloads: _actions/<owner>/<name>/<ref>."""
    target = runner_root / "_actions" / ACTION_NAME / "v1"
    shutil.copytree(ROOT, target, ignore=LEFT_OUT, symlinks=True)
    return target


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


def action_answering(runner_root: Path, *command: str) -> Path:
    """The action copied, its run step asking deploy-runner `command` (by default its
    version) in place of `action`: every step before it as they are (for start times,
    and the Python it finds or installs)."""
    action = copy_action(runner_root)
    metadata = yaml.safe_load((action / "action.yml").read_text())
    [run] = [s for s in metadata["runs"]["steps"] if s.get("id") == "run"]
    arguments = " ".join(shlex.quote(word) for word in command or ("version", "--short"))
    run["run"] = f'"$DEPLOY_RUNNER_PYTHON" -I -X utf8 "$GITHUB_ACTION_PATH/action/run.py" {arguments}'
    (action / "action.yml").write_text(yaml.safe_dump(metadata, sort_keys=False))
    return action
