"""Starting an upgrade of a release with many stored revisions: ours with
--release-history-max 3 vs `helm upgrade`, same release, same testbed.

Usage: python -m benchmarks.history [--revisions 10,100,300] [--runs 3]

Revisions are stored by copying the release's record (our Secret driver, the
same bytes Helm reads); each timed upgrade runs as a fresh process, so both
pay their start-up. Helm lists every record (full Secrets) to find the last
one; we list metadata only and decode the three records the templates use.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
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


def store_revisions(kubeconfig: str, namespace: str, name: str, count: int) -> None:
    """Fill history up to `count` revisions: copies of revision 1, all superseded but the last."""
    from runner.actions.release_config import ActionConfig
    from runner.release.record import DEPLOYED, SUPERSEDED

    storage = ActionConfig.connect(namespace, kubeconfig).storage
    first = storage.get(name, 1)
    first.info.status = SUPERSEDED
    storage.update(first)
    for version in range(2, count + 1):
        first.version = version
        first.info.status = DEPLOYED if version == count else SUPERSEDED
        storage.create(first, history_max=0)


def retrieval_seconds(kubeconfig: str, namespace: str, name: str, runs: int) -> tuple[float, float]:
    """In-process: our retrieval (metadata-only list + the 3 newest records decoded) vs
    a full list of every record with its data (what `helm upgrade` reads to find the last)."""
    import time

    from runner.actions.release_config import ActionConfig
    from runner.release.history import entries

    cfg = ActionConfig.connect(namespace, kubeconfig)
    path = f"/api/v1/namespaces/{namespace}/secrets"
    mine, full = [], []
    for _ in range(runs):
        begun = time.perf_counter()
        entries(cfg.storage, name, 3, include_values=False)
        mine.append(time.perf_counter() - begun)
        begun = time.perf_counter()
        cfg.kube().request("GET", path, query=[("labelSelector", f"owner=helm,name={name}")])
        full.append(time.perf_counter() - begun)
    return statistics.median(mine), statistics.median(full)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--revisions", default="10,100,300")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with testbed() as bed, tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        env = env_for(bed, root / "helm-home")
        chart = str(write_chart(root, 10))
        print(f"{'revisions':>9}  {'ours (s)':>9}  {'helm (s)':>9}  ratio  "
              f"{'read 3 (ms)':>11}  {'list all (ms)':>13}")
        for count in [int(n) for n in args.revisions.split(",")]:
            namespace = f"hist-{count}"
            create_namespace(bed, namespace)
            kube = ["-n", namespace, "--kubeconfig", str(bed.kubeconfig)]
            timed(ours("install", "rel", chart, *kube), env)
            store_revisions(str(bed.kubeconfig), namespace, "rel", count)
            mine, theirs = [], []
            for run in range(args.runs):
                # --history-max 0 on both: no pruning, so only the reads differ.
                mine.append(timed(ours("upgrade", "rel", chart, *kube, "--history-max", "0",
                                       "--release-history-max", "3", "--set", f"message=o{run}"), env))
                theirs.append(timed(helm("upgrade", "rel", chart, "-n", namespace, "--history-max",
                                         "0", "--set", f"message=h{run}"), env))
            ours_s, helm_s = statistics.median(mine), statistics.median(theirs)
            read3, list_all = retrieval_seconds(str(bed.kubeconfig), namespace, "rel", args.runs)
            print(f"{count:>9}  {ours_s:>9.2f}  {helm_s:>9.2f}  {ours_s / helm_s:.2f}   "
                  f"{read3 * 1000:>11.1f}  {list_all * 1000:>13.1f}")


if __name__ == "__main__":
    main()
