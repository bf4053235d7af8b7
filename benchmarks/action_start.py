"""How long the GitHub Action takes to be ready: action.yml's steps run by the tests'
runner (tests/workflows/executor.py) on a machine as a job finds it, from the first step
until deploy-runner answers a command (`version`, in place of the run step's `action`).

Usage: python -m benchmarks.action_start [--runs 3] [--command "template web CHART"]

--command times that deploy-runner command in place of `version` (a command that loads
more of our modules shows what the venv's cached bytecode saves). Four cases, each in a
fresh job directory (a fresh HOME, hence an empty pip cache) with the action downloaded
afresh (no bytecode beside its sources, as on GitHub):
cold (no cache entry: the venv made from the lock, wheels downloaded from PyPI, the
entry saved), warm (the entry restored), and both with the AWS extra (eks_cluster set).
The cache service is a local directory here; on GitHub a restore downloads the archive
(its size is printed) from GitHub's cache storage, which adds its own time.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from tests.workflows.executor import Runner, run_job
from tests.workflows.machine import ACTION_NAME, action_answering, machine_env
from tests.workflows.stand_ins import stand_ins


def one(root: Path, command: list[str], store: Path, inputs: dict[str, str]) -> float:
    job_root = Path(tempfile.mkdtemp(dir=root))
    action = action_answering(job_root / "download", *command)
    workspace = job_root / "workspace"
    workspace.mkdir()
    workflow = job_root / "workflow.yml"
    workflow.write_text(yaml.safe_dump({"on": "push", "jobs": {"job": {
        "runs-on": "ubuntu-latest",
        "steps": [{"id": "action", "uses": f"{ACTION_NAME}@v1", "with": inputs}]}}}))
    runner = Runner(root=job_root / "runner", repository="o/r", event_name="push", payload={},
                    api_url="http://127.0.0.1:9", token="t", action_name=ACTION_NAME,
                    action_dir=action, stand_ins=stand_ins(workspace, store),
                    base_env=machine_env(), checkout=workspace)
    started = time.monotonic()
    job = run_job(runner, workflow)
    elapsed = time.monotonic() - started
    if job.failed or not (command or any(line.startswith("v") for line in job.log)):
        raise SystemExit(f"the action did not get ready:\n{job.shown()}")
    shutil.rmtree(job_root)
    return elapsed


def seconds(values: list[float]) -> str:
    return ", ".join(f"{v:.1f}" for v in sorted(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--command", default="", help="a deploy-runner command line to time in place of version")
    args = parser.parse_args()
    runs, command = args.runs, shlex.split(args.command)
    with tempfile.TemporaryDirectory(prefix="action-start-") as scratch:
        root = Path(scratch)
        for label, inputs in (("base", {}), ("aws extra", {"eks_cluster": "prod"})):
            cold, warm = [], []
            for _ in range(runs):
                store = Path(tempfile.mkdtemp(dir=root))
                cold.append(one(root, command, store, inputs))
                warm.append(one(root, command, store, inputs))
                size = sum(p.stat().st_size for p in store.iterdir()) / 2**20
                shutil.rmtree(store)
            print(f"{label:9}  cold {statistics.median(cold):5.1f} s (of {seconds(cold)})   "
                  f"warm {statistics.median(warm):4.1f} s (of {seconds(warm)})   "
                  f"cache entry {size:.0f} MiB (uncompressed tar)")


if __name__ == "__main__":
    main()
