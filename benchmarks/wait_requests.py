"""How many API requests `install --wait` sends while it waits, and how soon it ends.

Usage: python -m benchmarks.wait_requests [--resources N] [--strategy watcher|legacy]
       [--ready-after SECONDS]

Starts a testbed and installs, with our CLI in this process, a chart of N objects:
ConfigMaps and one Deployment per ten (benchmarks.release_bench.write_chart), plus
one custom resource per ten, created with a Ready condition that is False. Another
thread makes them Ready `--ready-after` seconds after the wait began (kwok makes the
Deployments ready by itself within a second or so). It counts every request the
transport sends (plain requests and watch streams) between the start and the end of
the wait (KubeCluster.wait) and prints the count by method, the wait's wall time,
and how long the wait went on after the last object became ready.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from benchmarks.release_bench import create_namespace, testbed, write_chart


class RequestCounter:
    """Counts the transport's requests (each watch stream is one) while `counting`."""

    def __init__(self) -> None:
        self.counting = False
        self.seen: Counter[str] = Counter()
        self.ignored: set[int] = set()  # ids of transports not counted (the benchmark's own)
        self._lock = threading.Lock()

    def install(self) -> None:
        from runner.kube import transport

        for name in ("request", "stream"):
            original = getattr(transport.Transport, name, None)
            if original is not None:
                setattr(transport.Transport, name, self._counted(name, original))

    def _counted(self, name: str, original: Any) -> Any:
        counter = self

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            if counter.counting and id(self) not in counter.ignored:
                verb = "WATCH" if name == "stream" else str(args[0])
                with counter._lock:
                    counter.seen[verb] += 1
            return original(self, *args, **kwargs)

        return counted


GROUP = "bench.deploy-runner.example"
CRD = f"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.{GROUP}
spec:
  group: {GROUP}
  names: {{kind: Gadget, plural: gadgets, singular: gadget}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
"""
GADGETS = f"""{{{{- range $i := until (int .Values.gadgets) }}}}
---
apiVersion: {GROUP}/v1
kind: Gadget
metadata:
  name: {{{{ $.Release.Name }}}}-g-{{{{ $i }}}}
status:
  conditions: [{{type: Ready, status: "False", message: not yet}}]
{{{{- end }}}}
"""


def bench_chart(root: Path, resources: int) -> Path:
    """write_chart's ConfigMaps and Deployments, one in ten ConfigMaps traded for a Gadget."""
    gadgets = resources // 10
    chart = write_chart(root, resources - gadgets)
    (chart / "crds").mkdir()
    (chart / "crds" / "gadget.yaml").write_text(CRD)
    (chart / "templates" / "gadgets.yaml").write_text(GADGETS)
    (chart / "values.yaml").write_text(f"message: one\ngadgets: {gadgets}\n")
    return chart


def make_ready(client: Any, namespace: str, after: float, started: threading.Event,
               done: list[float]) -> None:
    """`after` seconds past the wait's start, every Gadget's Ready condition turns True."""
    started.wait()
    time.sleep(after)
    path = f"/apis/{GROUP}/v1/namespaces/{namespace}/gadgets"
    for item in client.checked("GET", path, "list gadgets")["items"]:
        item["status"] = {"conditions": [{"type": "Ready", "status": "True", "message": "ready"}]}
        client.checked("PUT", f"{path}/{item['metadata']['name']}", "update gadget", body=item)
    done.append(time.perf_counter())


def measure(resources: int, strategy: str, ready_after: float) -> tuple[Counter[str], float, float]:
    from runner.cli import main
    from runner.kube.client import KubeClient
    from runner.kube.cluster import KubeCluster
    from runner.kube.kubeconfig import ClusterAccess

    counter = RequestCounter()
    counter.install()
    began, ended, ready = threading.Event(), [], []
    original_wait = KubeCluster.wait

    def wait(self: Any, *args: Any, **kwargs: Any) -> Any:
        counter.counting = True
        ended.append(time.perf_counter())
        began.set()
        try:
            return original_wait(self, *args, **kwargs)
        finally:
            ended.append(time.perf_counter())
            counter.counting = False

    KubeCluster.wait = wait  # type: ignore[method-assign]
    with testbed() as bed, tempfile.TemporaryDirectory() as tmp:
        create_namespace(bed, "bench")
        chart = bench_chart(Path(tmp), resources)
        helper = KubeClient.connect(ClusterAccess(kubeconfig=str(bed.kubeconfig)))
        counter.ignored.add(id(helper.transport))
        flipper = threading.Thread(target=make_ready, args=(helper, "bench", ready_after, began, ready),
                                   daemon=True)
        flipper.start()
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["install", "bench", str(chart), "-n", "bench", "--kubeconfig", str(bed.kubeconfig),
                         f"--wait={strategy}", "--timeout", "2m"])
        if code != 0:
            sys.exit(f"install failed: {err.getvalue().strip()}")
        flipper.join()
    return counter.seen, ended[1] - ended[0], ended[1] - ready[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=60)
    parser.add_argument("--strategy", default="watcher", choices=["watcher", "legacy"])
    parser.add_argument("--ready-after", type=float, default=5.0)
    args = parser.parse_args()
    seen, seconds, reaction = measure(args.resources, args.strategy, args.ready_after)
    detail = ", ".join(f"{verb} {n}" for verb, n in sorted(seen.items()))
    print(f"--wait={args.strategy}, {args.resources} objects, ready after {args.ready_after:g} s: "
          f"{sum(seen.values())} requests ({detail}); the wait took {seconds:.2f} s, "
          f"ending {reaction:.3f} s after the last object became ready")


if __name__ == "__main__":
    main()
