"""Shared pieces of the release benchmarks: a testbed, charts, timed CLI runs.

Python's bytecode (.pyc) is part of an installed tool (pip compiles a wheel's modules), not
one of our caches: as benchmarks/render.py does, our processes write theirs under a private
PYTHONPYCACHEPREFIX, compiled before timing starts, even where PYTHONDONTWRITEBYTECODE is set
(a process then compiles every module of ours from source: ~0.3 s of a read command).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class Cluster:
    """An existing cluster, named by its kubeconfig: what the benchmarks need of a testbed."""

    def __init__(self, kubeconfig: str) -> None:
        self.kubeconfig = Path(kubeconfig)


@contextmanager
def testbed(kubeconfig: str = "") -> Iterator[Any]:
    """The cluster of `kubeconfig` when given (a testbed already up: `python -m testbed
    up`), else a testbed started for the benchmark."""
    if kubeconfig:
        yield Cluster(kubeconfig)
        return
    from testbed.cluster import Testbed

    with Testbed.start(log=lambda message: None) as bed:
        yield bed


def env_for(bed: Any, home: Path) -> dict[str, str]:
    """The environment of every timed command: helm's directories under `home`, our bytecode
    under `home` too, compiled now."""
    env = {**os.environ, "KUBECONFIG": str(bed.kubeconfig),
           "HELM_CONFIG_HOME": str(home / "config"), "HELM_CACHE_HOME": str(home / "cache"),
           "HELM_DATA_HOME": str(home / "data"), "PYTHONPYCACHEPREFIX": str(home / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    compile_ours = "import compileall, os, runner; compileall.compile_dir(os.path.dirname(runner.__file__), quiet=1)"
    subprocess.run([sys.executable, "-c", compile_ours], env=env, check=True)
    return env


def timed(command: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one command; its failure stops the benchmark with its stderr."""
    begun = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - begun
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:4])}... failed: {done.stderr.strip()}")
    return elapsed


def our_command() -> list[str]:
    """The console script users run (its wrapper is lighter than `-m runner.cli`'s runpy)."""
    script = Path(sys.executable).with_name("deploy-runner")
    return [str(script)] if script.exists() else [sys.executable, "-m", "runner.cli"]


def ours(*args: str) -> list[str]:
    return [*our_command(), *args]


def helm(*args: str) -> list[str]:
    from testbed.helm import helm_binary

    return [str(helm_binary()), *args]


def create_namespace(bed: Any, name: str) -> None:
    from runner.kube.client import KubeClient
    from runner.kube.kubeconfig import ClusterAccess

    client = KubeClient.connect(ClusterAccess(kubeconfig=str(bed.kubeconfig)))
    client.request("POST", "/api/v1/namespaces",
                   body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})


def write_chart(root: Path, resources: int, version: str = "1.0.0") -> Path:
    """A chart of `resources` ConfigMaps plus one Deployment per ten of them."""
    chart = root / f"bench-{resources}-{version}"
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: bench\nversion: {version}\n")
    (chart / "values.yaml").write_text("message: one\n")
    deployments = resources // 10
    (chart / "templates" / "cms.yaml").write_text(
        f"{{{{- range $i := until {resources - deployments} }}}}\n---\napiVersion: v1\nkind: ConfigMap\n"
        "metadata:\n  name: {{ $.Release.Name }}-cm-{{ $i }}\ndata:\n"
        "  message: {{ $.Values.message | quote }}\n{{- end }}\n")
    (chart / "templates" / "deploys.yaml").write_text(
        f"{{{{- range $i := until {deployments} }}}}\n---\napiVersion: apps/v1\nkind: Deployment\n"
        "metadata:\n  name: {{ $.Release.Name }}-web-{{ $i }}\nspec:\n  replicas: 1\n"
        "  selector:\n    matchLabels: {app: web-{{ $i }}}\n  template:\n    metadata:\n"
        "      labels: {app: web-{{ $i }}}\n      annotations: {message: {{ $.Values.message | quote }}}\n"
        "    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n{{- end }}\n")
    return chart
