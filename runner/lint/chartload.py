"""Loading the chart under lint as Helm's v2 loader does (no apiVersion dispatch)."""

from __future__ import annotations

from pathlib import Path

from runner.chart.errors import ChartError
from runner.chart.loader import load_files, walk_chart_directory
from runner.chart.logs import Warning  # noqa: A004 - Helm's log line
from runner.chart.model import Chart


def load_v2(chart_dir: str) -> tuple[Chart | None, list[Warning], str | None]:
    """pkg/chart/v2/loader.Load: (chart, the warnings it logs, error text)."""
    top = Path(chart_dir).resolve()
    try:
        walk = walk_chart_directory(top)
        chart = load_files(walk.files)
    except ChartError as exc:
        return None, [], _go_type_names(str(exc))
    warnings = [*walk.warnings.items, *chart.load_warnings]
    return chart, warnings, None


def _go_type_names(text: str) -> str:
    """The v2 loader decodes Chart.yaml straight into v2.Metadata."""
    return text.replace("loader.chartBase", "v2.Metadata").replace(
        "Go value of type chart.Metadata", "Go value of type v2.Metadata")
