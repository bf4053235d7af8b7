"""Include-heavy rendering: our engine vs `helm template` on the same scratch chart.

Usage: python -m benchmarks.engine [--iterations N] [--includes K]

The chart has one template that calls a small define K times through
`include ... | nindent`, plus a nested define chain, the way library charts
(bitnami common, ...) do. Ours renders it N times in one process (parse cache
warm after the first); Helm renders it N times as `helm template` processes.
Prints both times and the ratio ours / helm, for our render in process and
for a whole `deploy-runner template` process, and the cost of recording
source positions (render(..., track_positions=True), as install/upgrade use).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HELPERS = """{{- define "bench.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- define "bench.labels" -}}
app.kubernetes.io/name: {{ include "bench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- define "bench.item" -}}
- name: {{ include "bench.name" .root }}-{{ .i }}
  labels:
    {{- include "bench.labels" .root | nindent 4 }}
{{- end -}}
"""

TEMPLATE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "bench.name" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
data:
  items: |
    {{- range $i := until (int .Values.count) }}
    {{- include "bench.item" (dict "root" $ "i" $i) | nindent 4 }}
    {{- end }}
"""


def write_chart(root: Path, includes: int) -> Path:
    chart = root / "bench"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: bench\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(f"count: {includes}\nnameOverride: \"\"\n")
    (chart / "templates" / "_helpers.tpl").write_text(HELPERS)
    (chart / "templates" / "cm.yaml").write_text(TEMPLATE)
    return chart


def time_ours(chart: Path, iterations: int, track_positions: bool = False) -> float:
    from runner import engine

    loaded = engine.load_chart(str(chart))
    values, _ = engine.prepare_values(loaded, {})
    top = engine.to_render_values(loaded, values, engine.ReleaseOptions("rel", "ns"))
    engine.render(loaded, top, track_positions=track_positions)  # warm: imports and parse cache
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        engine.render(loaded, top, track_positions=track_positions)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def time_process(command: list[str], iterations: int) -> float:
    """Median wall time of a whole `... template rel CHART` process."""
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def time_helm(chart: Path, iterations: int) -> float:
    from testbed.helm import helm_binary

    return time_process([str(helm_binary()), "template", "rel", str(chart), "--namespace", "ns"],
                        iterations)


def time_our_process(chart: Path, iterations: int) -> float:
    from benchmarks.release_bench import our_command

    return time_process([*our_command(), "template", "rel", str(chart), "--namespace", "ns"],
                        iterations)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--includes", type=int, default=500)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
        chart = write_chart(Path(tmp), args.includes)
        helm = time_helm(chart, args.iterations)
        print(f"helm template (process, median of {args.iterations}): {helm * 1000:.1f} ms")
        try:
            ours = time_ours(chart, args.iterations)
        except Exception as err:  # the engine may be incomplete; say so, do not crash
            print(f"ours: unavailable ({type(err).__name__}: {err})")
            return 1
        print(f"ours (render in process, median of {args.iterations}): {ours * 1000:.1f} ms")
        print(f"ratio ours/helm (render in process vs helm process): {ours / helm:.2f}")
        tracked = time_ours(chart, args.iterations, track_positions=True)
        print(f"ours with source positions (render in process): {tracked * 1000:.1f} ms "
              f"(x{tracked / ours:.2f} of untracked)")
        process = time_our_process(chart, args.iterations)
        print(f"ours (deploy-runner template process, median of {args.iterations}): {process * 1000:.1f} ms")
        print(f"ratio ours/helm (process vs process): {process / helm:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
