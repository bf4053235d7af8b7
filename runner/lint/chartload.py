"""Loading the chart under lint as Helm's v2 loader does (no apiVersion dispatch)."""

from __future__ import annotations

from pathlib import Path

from runner.chart.errors import ChartError
from runner.chart.ignore import HELM_IGNORE, Rules
from runner.chart.loader import _Walk, load_files
from runner.chart.logs import Warning  # noqa: A004 - Helm's log line
from runner.chart.model import Chart


def load_v2(chart_dir: str) -> tuple[Chart | None, list[Warning], str | None]:
    """pkg/chart/v2/loader.Load: (chart, the warnings it logs, error text)."""
    top = Path(chart_dir).resolve()
    rules = Rules()
    ignore_file = top / HELM_IGNORE
    try:
        if ignore_file.is_file():
            rules = Rules.parse(ignore_file.read_text(errors="replace"))
        rules.add_defaults()
        walk = _Walk(rules)
        walk.directory(top, "", {str(top)})
        chart = load_files(walk.files)
    except ChartError as exc:
        return None, [], _go_type_names(str(exc))
    warnings = [*walk.warnings.items, *chart.load_warnings]
    return chart, warnings, None


def _go_type_names(text: str) -> str:
    """The v2 loader decodes Chart.yaml straight into v2.Metadata."""
    return text.replace("loader.chartBase", "v2.Metadata").replace(
        "Go value of type chart.Metadata", "Go value of type v2.Metadata")
