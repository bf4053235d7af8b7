"""A spec of 10 corpus charts: `deploy-runner run` against 10 `helm upgrade --install` in a
row, and against `helmfile sync` (helmfile v1.8.0 driving the real helm) on the same file;
each a first deploy, then a second run in which nothing changed.

Usage: python -m benchmarks.spec_run [--runs 3] [--kubeconfig PATH]

The charts are corpus charts without hooks, CRDs or cluster-wide kinds that Helm installs
on the testbed (tests/e2e/release_corpus.py runs them all); those with a values file in
the corpus's _values/ get it. Every tool and run deploys to namespaces and release names
of its own (cluster-scoped objects are named after the release). Each step is a fresh
process (helm's ten are ten processes; helmfile starts helm per release, concurrently, as
it does by default). Without --kubeconfig a testbed is started for the run.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks.release_bench import env_for, helm, ours, testbed, timed
from tests.corpus import VALUES_DIR, corpus_chart

CHARTS = ("helm-examples-hello-world", "prometheus-blackbox-exporter", "kube-state-metrics",
          "reloader", "promtail", "prometheus-postgres-exporter", "external-dns",
          "loki-distributed", "opentelemetry-collector", "filebeat")
STEPS = ("first", "unchanged")


def release_name(chart: str, tag: str) -> str:
    return f"{chart.removeprefix('helm-examples-').removeprefix('prometheus-')[:20]}-{tag}"


def write_project(root: Path) -> None:
    """The charts and their values files, copied: helmfile runs `helm dependency build` in
    each local chart, which may write there."""
    for chart in CHARTS:
        shutil.copytree(corpus_chart(chart), root / "charts" / chart)
        values = VALUES_DIR / f"{chart}.yaml"
        if values.is_file():
            (root / "values").mkdir(exist_ok=True)
            shutil.copy(values, root / "values" / values.name)


def write_spec(root: Path, tag: str, namespace: str) -> Path:
    """A helmfile.yaml of the ten releases (a plain helmfile.yaml is a valid spec)."""
    lines = ["releases:"]
    for chart in CHARTS:
        lines += [f"- name: {release_name(chart, tag)}", f"  namespace: {namespace}",
                  f"  chart: ./charts/{chart}"]
        if (root / "values" / f"{chart}.yaml").is_file():
            lines.append(f"  values: [values/{chart}.yaml]")
    spec = root / f"helmfile-{tag}.yaml"
    spec.write_text("\n".join(lines) + "\n")
    return spec


def helm_in_a_row(root: Path, tag: str, namespace: str, env: dict[str, str]) -> float:
    """The ten `helm upgrade --install` a script would run, one after the other."""
    total = 0.0
    for chart in CHARTS:
        values = root / "values" / f"{chart}.yaml"
        extra = ["-f", str(values)] if values.is_file() else []
        total += timed(helm("upgrade", "--install", release_name(chart, tag), str(root / "charts" / chart),
                            "-n", namespace, "--create-namespace", *extra), env)
    return total


def helmfile_sync(root: Path, spec: Path, env: dict[str, str]) -> float:
    from testbed.helm import helm_binary
    from testbed.helmfile import helmfile_binary

    command = [str(helmfile_binary(log=lambda line: None)), "--helm-binary", str(helm_binary()),
               "--file", str(spec), "sync"]
    begun = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - begun
    if done.returncode != 0:
        sys.exit(f"helmfile sync failed: {done.stdout}{done.stderr}")
    return elapsed


def run_spec(root: Path, spec: Path, kubeconfig: Path, env: dict[str, str]) -> float:
    return timed(ours("run", "--spec", str(spec), "--kubeconfig", str(kubeconfig), "--report", "none"), env)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kubeconfig", default="")
    args = parser.parse_args()
    suffix = uuid.uuid4().hex[:4]  # apart from any earlier run on the same cluster
    with testbed(args.kubeconfig) as bed, tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        env = env_for(bed, root / "helm-home")
        write_project(root)
        times: dict[str, list[float]] = {}
        for run in range(args.runs):
            specs = {tool: (f"{tool}{run}{suffix}", f"bench-{tool}{run}-{suffix}")
                     for tool in ("o", "h", "fo", "fh")}
            files = {tool: write_spec(root, tag, ns) for tool, (tag, ns) in specs.items()}
            for step in STEPS:
                def add(name: str, seconds: float, step: str = step) -> None:
                    times.setdefault(f"{name} {step}", []).append(seconds)

                add("run", run_spec(root, files["o"], bed.kubeconfig, env))
                add("helm x10", helm_in_a_row(root, *specs["h"], env))
                add("run/hf", run_spec(root, files["fo"], bed.kubeconfig, env))
                add("helmfile sync", helmfile_sync(root, files["fh"], env))
        medians = {name: statistics.median(values) for name, values in times.items()}
        print(f"{len(CHARTS)} releases, median of {args.runs} runs (seconds)")
        for step in STEPS:
            for mine, theirs in (("run", "helm x10"), ("run/hf", "helmfile sync")):
                a, b = medians[f"{mine} {step}"], medians[f"{theirs} {step}"]
                print(f"{step:>9}: {mine:<7} {a:6.2f}  {theirs:<13} {b:6.2f}  ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
