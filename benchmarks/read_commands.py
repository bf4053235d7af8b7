"""The read commands (`status`, `history`, `get values`, `list -A`): ours vs helm on the
same release, same testbed.

Usage: python -m benchmarks.read_commands [--revisions 4] [--runs 7] [--kubeconfig PATH]

One release of 20 resources gets `--revisions` revisions (helm installs and upgrades it:
the records both tools read are Helm's own); then each command runs `--runs` times, each
a fresh process, ours and helm's one after the other, so both meet the same machine load.
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

NAMESPACE = f"reads-{uuid.uuid4().hex[:6]}"  # apart from any earlier run on the same cluster
RELEASE = "reader"
COMMANDS = {
    "status": ("status", RELEASE, "-n", NAMESPACE),
    "history": ("history", RELEASE, "-n", NAMESPACE),
    "get values": ("get", "values", RELEASE, "-n", NAMESPACE),
    "list -A": ("list", "-A"),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--revisions", type=int, default=4)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--kubeconfig", default="")
    args = parser.parse_args()
    with testbed(args.kubeconfig) as bed, tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        env = env_for(bed, root / "helm-home")
        chart = str(write_chart(root, 20))
        create_namespace(bed, NAMESPACE)
        timed(helm("install", RELEASE, chart, "-n", NAMESPACE, "--set", "message=r1"), env)
        for revision in range(2, args.revisions + 1):
            timed(helm("upgrade", RELEASE, chart, "-n", NAMESPACE, "--set", f"message=r{revision}"), env)
        kube = ("--kubeconfig", str(bed.kubeconfig))
        times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in COMMANDS}
        for _ in range(args.runs):
            for name, command in COMMANDS.items():
                times[name][0].append(timed(ours(*command, *kube), env))
                times[name][1].append(timed(helm(*command), env))
        print(f"release of {args.revisions} revisions, median of {args.runs} runs (seconds)")
        for name, (mine, theirs) in times.items():
            ours_s, helm_s = statistics.median(mine), statistics.median(theirs)
            print(f"{name:>10}: ours {ours_s:.3f}  helm {helm_s:.3f}  ratio {ours_s / helm_s:.2f}")


if __name__ == "__main__":
    main()
