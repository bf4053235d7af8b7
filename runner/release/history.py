"""HIP-0029 `.Release.History` (and HIP-0027's `.DeployedChart(s)` view).

Retrieval lists record heads by label (a metadata-only list: names, versions,
statuses) and fetches and decodes only the N newest records, so the cost of
rendering does not grow with the number of stored revisions.
"""

from __future__ import annotations

from typing import Any

from runner.release.chartjson import chart_view
from runner.release.record import Release
from runner.release.storage import Storage

RFC3339_NANO = "2006-01-02T15:04:05.999999999Z07:00"


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
        "FirstDeployed": stored_time(info.first_deployed),
        "LastDeployed": stored_time(info.last_deployed),
        "Values": dict(record.config) if include_values else {},
    }


def stored_time(text: str) -> Any:
    """A record's timestamp as the time.Time Helm decodes: the stored instant to the
    nanosecond (a GoTime below the microsecond), in Local when the offset is Local's."""
    if not text:
        return None
    from runner.golang.time import local_zone
    from runner.golang.timeparse import go_parse

    return go_parse(RFC3339_NANO, text, local_zone())


def attach(top: dict[str, Any], history: list[dict[str, Any]]) -> None:
    """Fill the render values: .Release.History, .DeployedChart, .DeployedCharts."""
    top["Release"]["History"] = history
    charts = [item["Chart"] for item in history if item["Chart"] is not None]
    top["DeployedChart"] = charts[0] if charts else None
    top["DeployedCharts"] = charts
