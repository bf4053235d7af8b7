"""Whole-process `deploy-runner template` against `helm template`, chart by chart.

Usage: python -m benchmarks.render [--runs N] [--chart NAME ... | --sample]

For every chart of the corpus (../shared/charts, values from
_values/<name>.yaml where present; `--sample`: the 12 charts of issue 26's
table, SAMPLE below) both tools run as
`template rel CHART --namespace ns [-f VALUES]`, output to /dev/null, N times
each (default 5), interleaved within each round (helm and our three modes,
rotating which goes first) so that a loaded machine slows them all alike.
Prints wall and CPU (user+sys of the child) medians per chart, the ratios
ours / helm, then the median ratio over the charts. Prints, never asserts.

- cold: what a fresh CI runner or a Lambda cold start sees with an installed
  deploy-runner: none of our caches (XDG_CACHE_HOME points at a fresh empty
  directory before each run: Chart.yaml/values.yaml trees and template trees
  are parsed from scratch), and our modules' bytecode as installing ships it
  (pip compiles a wheel's modules, the image and the Lambda zip carry them):
  compiled with compileall before timing starts.
- cold-src: cold, and no bytecode of our modules at all (the Action runs our
  modules from its checkout; a venv made under PYTHONDONTWRITEBYTECODE):
  every run compiles the modules it imports.
- warm: the same cache directory for every run, filled by one untimed run.

The .pyc files of every run live under a private PYTHONPYCACHEPREFIX (the
standard library's and the dependencies' too, compiled by untimed runs, as an
installed Python has them); cold-src's is a copy of it without ours, and
written to by no run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.release_bench import our_command

REPO = Path(__file__).resolve().parent.parent
CHARTS_DIR = REPO.parent / "shared" / "charts"
VALUES_DIR = CHARTS_DIR / "_values"
MODES = ("helm", "cold", "cold-src", "warm")
OURS = MODES[1:]
# Issue 26's table: large and small charts, with and without a vendored library (bitnami's
# common), subcharts and values files.
SAMPLE = ("argo-workflows", "bitnami-airflow", "bitnami-postgresql", "cnpg-cluster", "external-dns",
          "grafana", "ingress-nginx", "kube-state-metrics", "loki-distributed", "prometheus",
          "tempo-distributed", "velero")


@dataclass
class Samples:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def add(self, wall: float, cpu: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)

    def median(self) -> tuple[float, float]:
        return statistics.median(self.wall), statistics.median(self.cpu)


def corpus(names: list[str]) -> list[Path]:
    charts = sorted(p for p in CHARTS_DIR.iterdir() if p.is_dir() and not p.name.startswith("_"))
    return [p for p in charts if not names or p.name in names]


def template_args(chart: Path) -> list[str]:
    args = ["template", "rel", str(chart), "--namespace", "ns"]
    values = VALUES_DIR / f"{chart.name}.yaml"
    if values.exists():
        args += ["-f", str(values)]
    return args


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and the child's user+sys CPU seconds of one process."""
    import time

    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        print(f"  ! exit {proc.returncode}: {' '.join(command)}", file=sys.stderr)
    return wall, usage.ru_utime + usage.ru_stime


class Runner:
    """Runs the three modes for one chart with their environments."""

    def __init__(self, helm: str, work: Path) -> None:
        self.helm = helm
        self.work = work
        self.ours = our_command()
        base = dict(os.environ)
        base.pop("DEPLOY_RUNNER_NO_CACHE", None)
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        base["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        self.base = base
        self.source_only = {**base, "PYTHONPYCACHEPREFIX": str(work / "pycache-src"),
                            "PYTHONDONTWRITEBYTECODE": "1"}

    def install_bytecode(self, charts: list[Path]) -> None:
        """Our modules compiled as pip compiles an installed wheel's; the standard library's
        and the dependencies' by one untimed run of each chart; then cold-src's copy
        without ours."""
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "runner")],
                       env=self.base, check=True, stdout=subprocess.DEVNULL)
        for chart in charts:
            self.run("warm", chart)
        prefix = self.work / "pycache"
        ours = prefix / (REPO / "runner").relative_to(REPO.anchor)
        shutil.copytree(prefix, self.work / "pycache-src",
                        ignore=lambda folder, _names: [ours.name] if Path(folder) == ours.parent else [])

    def cold_env(self, env: dict[str, str]) -> dict[str, str]:
        cold = self.work / "cold"
        shutil.rmtree(cold, ignore_errors=True)
        cold.mkdir()
        return {**env, "XDG_CACHE_HOME": str(cold)}

    def run(self, mode: str, chart: Path) -> tuple[float, float]:
        args = template_args(chart)
        if mode == "helm":
            return timed([self.helm, *args])
        if mode == "cold":
            return timed([*self.ours, *args], self.cold_env(self.base))
        if mode == "cold-src":
            return timed([*self.ours, *args], self.cold_env(self.source_only))
        return timed([*self.ours, *args], {**self.base, "XDG_CACHE_HOME": str(self.work / "warm" / chart.name)})

    def prime(self, chart: Path) -> None:
        """One untimed run of each: helm's binary paged in, our warm cache filled."""
        self.run("helm", chart)
        self.run("warm", chart)


def bench_chart(runner: Runner, chart: Path, runs: int) -> dict[str, Samples]:
    samples = {mode: Samples() for mode in MODES}
    runner.prime(chart)
    for i in range(runs):
        order = MODES[i % len(MODES):] + MODES[:i % len(MODES)]
        for mode in order:
            samples[mode].add(*runner.run(mode, chart))
    return samples


def ratio_cells(samples: dict[str, Samples]) -> dict[str, tuple[float, float]]:
    helm_wall, helm_cpu = samples["helm"].median()
    out = {}
    for mode in OURS:
        wall, cpu = samples[mode].median()
        out[mode] = (wall / helm_wall, cpu / helm_cpu if helm_cpu else float("nan"))
    return out


def fmt(pair: tuple[float, float]) -> str:
    return f"{pair[0] * 1000:6.0f} ms ({pair[1] * 1000:4.0f} cpu)"


def print_row(name: str, samples: dict[str, Samples]) -> dict[str, tuple[float, float]]:
    ratios = ratio_cells(samples)
    cells = " | ".join(fmt(samples[m].median()) for m in (*OURS, "helm"))
    rcells = " | ".join(f"{ratios[m][0]:5.2f} ({ratios[m][1]:5.2f})" for m in OURS)
    print(f"{name:36} | {cells} | {rcells}", flush=True)
    return ratios


def print_summary(all_ratios: list[dict[str, tuple[float, float]]]) -> None:
    if not all_ratios:
        return
    print()
    for mode in OURS:
        wall = statistics.median(r[mode][0] for r in all_ratios)
        cpu = statistics.median(r[mode][1] for r in all_ratios)
        print(f"median ratio ours/helm over {len(all_ratios)} charts, {mode}: "
              f"wall {wall:.2f}, cpu {cpu:.2f}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--chart", action="append", default=[], help="only this chart (repeatable)")
    parser.add_argument("--sample", action="store_true", help="only the 12 charts of SAMPLE")
    args = parser.parse_args(argv)
    from testbed.helm import helm_binary

    helm = str(helm_binary())
    charts = corpus([*args.chart, *(SAMPLE if args.sample else ())])
    print(f"median of {args.runs} runs; wall ms (user+sys cpu ms); ratio ours/helm wall (cpu)")
    print(f"{'chart':36} | {'ours cold':21} | {'ours cold-src':21} | {'ours warm':21} | {'helm':21} | "
          f"{'cold ratio':13} | {'cold-src ratio':14} | warm ratio")
    all_ratios = []
    with tempfile.TemporaryDirectory(prefix="bench-render-") as tmp:
        runner = Runner(helm, Path(tmp))
        runner.install_bytecode(charts)
        for chart in charts:
            all_ratios.append(print_row(chart.name, bench_chart(runner, chart, args.runs)))
    print_summary(all_ratios)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
