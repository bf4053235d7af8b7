"""`show all|chart|values|readme|crds` against Helm 4.1.4 for every corpus chart.

Helm runs every case in the test run; stdout (as bytes), stderr and the exit
code must be identical.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from testbed.helm import helm_binary
from tests.conformance.harness import CHARTS_DIR, chart_names, run_cli

FORMATS = ("chart", "values", "readme", "crds", "all")


def _helm(argv: list[str]) -> tuple[bytes, str, int]:
    proc = subprocess.run([str(helm_binary()), *argv], capture_output=True, check=False, timeout=120)
    return proc.stdout, proc.stderr.decode(), proc.returncode


def _charts_with_crds(root: Path) -> int:
    """How many charts of the tree (the chart and its unpacked subcharts) have a crds/ directory."""
    return sum(1 for crds in root.rglob("crds") if crds.is_dir() and (crds.parent / "Chart.yaml").exists())


def _documents(output: bytes) -> list[bytes]:
    return sorted(output.split(b"---\n"))


@pytest.mark.parametrize("chart", chart_names())
def test_show_every_format_as_helm(chart: str) -> None:
    """Byte for byte; but Helm's loader adds subcharts in Go map order, so where CRDs come
    from several charts their order differs from run to run and only the set is compared."""
    unordered_crds = _charts_with_crds(CHARTS_DIR / chart) > 1
    for fmt in FORMATS:
        argv = ["show", fmt, str(CHARTS_DIR / chart)]
        helm = _helm(argv)
        assert helm[2] == 0, helm[1]
        ours = run_cli(argv)
        if unordered_crds and fmt in ("crds", "all"):
            assert (_documents(ours[0]), ours[1:]) == (_documents(helm[0]), helm[1:]), fmt
        else:
            assert ours == helm, fmt


@pytest.mark.parametrize("argv", [
    ["show", "values"],
    ["show", "chart", "a", "b"],
    ["inspect", "readme", str(CHARTS_DIR / "grafana")],
    ["show", "chart", str(CHARTS_DIR / "_values")],  # no Chart.yaml
    ["show", "crds", str(CHARTS_DIR / "nosuch")],
    ["show", "all", str(CHARTS_DIR / "grafana"), "--bogus"],
], ids=" ".join)
def test_show_errors_and_alias_as_helm(argv: list[str]) -> None:
    assert run_cli(argv) == _helm(argv)
