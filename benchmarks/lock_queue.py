"""Queued upgrades on one release: how long `--wait-for-lock` waiters take to hand the
Lease over (issue 12, defect 7: waiters polled every second).

Usage: python -m benchmarks.lock_queue [--processes 20] [--runs 1] [--kubeconfig PATH]

Each run installs a small release, then starts `--processes` upgrades of it at
once, each with `--wait-for-lock 300s`, each a fresh process, and times until
the last one is done. One upgrade alone is timed too (the median of three), so
the figure that matters is the hand-over: (queue - processes x alone) / processes,
what each waiter loses between the lock's release and its own start. Without
--kubeconfig a testbed is started for the run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.release_bench import create_namespace, ours, timed, write_chart


@contextmanager
def cluster(kubeconfig: str) -> Iterator[str]:
    """The kubeconfig of the given cluster, or of a testbed started for the run."""
    if kubeconfig:
        yield kubeconfig
        return
    from benchmarks.release_bench import testbed

    with testbed() as bed:
        yield str(bed.kubeconfig)


def queue(chart: str, kube: list[str], processes: int, env: dict[str, str]) -> float:
    """Wall seconds for `processes` concurrent upgrades of release `q` to finish."""
    begun = time.perf_counter()
    running = [subprocess.Popen(ours("upgrade", "q", chart, *kube, "--wait-for-lock", "300s",
                                     "--set", f"message=m{i}"),
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
               for i in range(processes)]
    failures = [p.communicate()[1] for p in running if p.wait() != 0]
    elapsed = time.perf_counter() - begun
    if failures:
        sys.exit(f"{len(failures)} upgrades failed; first: {failures[0].strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--kubeconfig", default="", help="an existing cluster (default: start a testbed)")
    args = parser.parse_args()
    with cluster(args.kubeconfig) as kubeconfig, tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "KUBECONFIG": kubeconfig}
        chart = str(write_chart(Path(scratch), 10))
        namespace = f"lockq-{os.getpid()}"
        create_namespace(_Bed(kubeconfig), namespace)
        kube = ["-n", namespace, "--kubeconfig", kubeconfig]
        timed(ours("install", "q", chart, *kube), env)
        alone = statistics.median(timed(ours("upgrade", "q", chart, *kube, "--set", f"message=a{i}"), env)
                                  for i in range(3))
        totals = [queue(chart, kube, args.processes, env) for _ in range(args.runs)]
        total = statistics.median(totals)
        print(f"{args.processes} queued upgrades (median of {args.runs} runs): {total:.1f} s; "
              f"one upgrade alone {alone:.2f} s; hand-over {(total - args.processes * alone) / args.processes:.2f} s "
              "per waiter")


class _Bed:
    """What create_namespace needs of a testbed: its kubeconfig."""

    def __init__(self, kubeconfig: str) -> None:
        self.kubeconfig = kubeconfig


if __name__ == "__main__":
    main()
