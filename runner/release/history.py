"""HIP-0029 `.Release.History` (and HIP-0027's `.DeployedChart(s)` view).

Retrieval lists record heads by label (a metadata-only list: names, versions,
statuses) and fetches and decodes only the N newest records, so the cost of
rendering does not grow with the number of stored revisions.
"""

from __future__ import annotations

from typing import Any

from runner.release.chartjson import chart_view
from runner.release.record import Release, parse_go_time
from runner.release.storage import Storage


def entries(storage: Storage, name: str, depth: int, include_values: bool) -> list[dict[str, Any]]:
    """Up to `depth` records of `name`, newest first, as templates see them."""
    if depth <= 0:
        return []
    return [entry(record, include_values) for record in storage.history(name, depth)]


def entry(record: Release, include_values: bool) -> dict[str, Any]:
    info = record.info
    return {
        "Name": record.name,
        "Namespace": record.namespace,
        "Revision": record.version,
        "Status": info.status,
        "Chart": chart_view(record.chart),
        "FirstDeployed": parse_go_time(info.first_deployed) if info.first_deployed else None,
        "LastDeployed": parse_go_time(info.last_deployed) if info.last_deployed else None,
        "Values": dict(record.config) if include_values else {},
    }


def attach(top: dict[str, Any], history: list[dict[str, Any]]) -> None:
    """Fill the render values: .Release.History, .DeployedChart, .DeployedCharts."""
    top["Release"]["History"] = history
    charts = [item["Chart"] for item in history if item["Chart"] is not None]
    top["DeployedChart"] = charts[0] if charts else None
    top["DeployedCharts"] = charts
