"""Installing and upgrading a release of 60 resources: ours vs helm, same testbed.

Usage: python -m benchmarks.upgrade [--resources 60] [--runs 3] [--kubeconfig PATH]

Each run installs a fresh release and upgrades it once (every object
changes), each step a fresh process; both use server-side apply and no --wait.
Without --kubeconfig a testbed is started for the run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import uuid
from pathlib import Path

from benchmarks.release_bench import (
    create_namespace,
    env_for,
    helm,
    ours,
    testbed,
    timed,
    write_chart,
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--resources", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kubeconfig", default="")
    args = parser.parse_args()
    suffix = uuid.uuid4().hex[:4]  # apart from any earlier run on the same cluster
    with testbed(args.kubeconfig) as bed, tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        env = env_for(bed, root / "helm-home")
        chart = str(write_chart(root, args.resources))
        steps: dict[str, list[float]] = {"ours install": [], "helm install": [],
                                         "ours upgrade": [], "helm upgrade": []}
        for run in range(args.runs):
            namespace = f"up-{run}-{suffix}"
            create_namespace(bed, namespace)
            kube = ["-n", namespace, "--kubeconfig", str(bed.kubeconfig)]
            steps["ours install"].append(timed(ours("install", "a", chart, *kube), env))
            steps["helm install"].append(timed(helm("install", "b", chart, "-n", namespace), env))
            steps["ours upgrade"].append(timed(ours("upgrade", "a", chart, *kube, "--set", "message=two"), env))
            steps["helm upgrade"].append(timed(helm("upgrade", "b", chart, "-n", namespace,
                                                    "--set", "message=two"), env))
        medians = {step: statistics.median(times) for step, times in steps.items()}
        print(f"{args.resources} resources, median of {args.runs} runs (seconds)")
        for step in ("install", "upgrade"):
            mine, theirs = medians[f"ours {step}"], medians[f"helm {step}"]
            print(f"{step:>8}: ours {mine:.2f}  helm {theirs:.2f}  ratio {mine / theirs:.2f}")


if __name__ == "__main__":
    main()
