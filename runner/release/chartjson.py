"""A chart in the release record's JSON form (Helm's chart.Chart with its json tags),
and the `.Chart`-shaped view of a stored chart for .Release.History.

Only the top chart is stored (Helm's Chart has no JSON for subcharts).
Modification times come from the chart directory when there is one (Helm
4's loader records them); they are timestamps, left out when unknown.
"""

from __future__ import annotations

import base64
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ZERO_TIME = "0001-01-01T00:00:00Z"


def chart_to_json(chart: Any, source: str | None = None) -> dict[str, Any]:
    root = Path(source) if source and os.path.isdir(source) else None
    out: dict[str, Any] = {
        "metadata": metadata_to_json(chart.metadata),
        "lock": _lock(chart.lock),
        "templates": [_file(f, root) for f in chart.templates],
        "values": chart.values if chart.values is not None else None,
        "schema": base64.b64encode(chart.schema).decode() if chart.schema else None,
        "schemamodtime": _mtime(root, "values.schema.json") if chart.schema else ZERO_TIME,
        "files": [_file(f, root) for f in chart.files] or None,
    }
    if root is not None:
        out["modtime"] = _mtime(root, "Chart.yaml")
    return out


def metadata_to_json(md: Any) -> dict[str, Any]:
    """Chart.yaml keys in Helm's Metadata field order, empty ones left out."""
    fields: list[tuple[str, Any]] = [
        ("name", md.name), ("home", md.home), ("sources", list(md.sources)),
        ("version", md.version), ("description", md.description),
        ("keywords", list(md.keywords)),
        ("maintainers", [_omit({"name": m.name, "email": m.email, "url": m.url})
                         for m in md.maintainers]),
        ("icon", md.icon), ("apiVersion", md.api_version), ("condition", md.condition),
        ("tags", md.tags), ("appVersion", md.app_version), ("deprecated", md.deprecated),
        ("annotations", md.annotations or {}), ("kubeVersion", md.kube_version),
        ("dependencies", [_dependency(d) for d in md.dependencies]), ("type", md.type),
    ]
    return _omit(dict(fields))


def _dependency(dep: Any) -> dict[str, Any]:
    """Helm's Dependency: `name` and `repository` have no omitempty, the rest do."""
    out = {"name": dep.name, **_omit({"version": dep.version}), "repository": dep.repository}
    out.update(_omit({
        "condition": dep.condition, "tags": list(dep.tags), "enabled": dep.enabled,
        "import-values": list(dep.import_values), "alias": dep.alias,
    }))
    return out


def _lock(lock: Any) -> dict[str, Any] | None:
    if lock is None:
        return None
    return {"generated": lock.generated, "digest": lock.digest,
            "dependencies": [_dependency(d) for d in lock.dependencies]}


def _file(file: Any, root: Path | None) -> dict[str, Any]:
    out = {"name": file.name, "data": base64.b64encode(file.data).decode()}
    if root is not None and (root / file.name).exists():
        out["modtime"] = _mtime(root, file.name)
    return out


def _mtime(root: Path | None, name: str) -> str:
    if root is None or not (root / name).exists():
        return ZERO_TIME
    ns = (root / name).stat().st_mtime_ns
    seconds, nanos = divmod(ns, 1_000_000_000)
    stamp = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f".{nanos:09d}".rstrip("0").rstrip(".")
    return f"{stamp}{fraction}Z"


def _omit(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v not in ("", None, False, [], {})}


def chart_from_json(data: dict[str, Any]) -> Any:
    """The chart a record stores, loaded back (Helm's chart.Chart from its JSON): metadata,
    lock, templates, values, schema and files. Never its subcharts: Helm stores none."""
    from runner.chart.chartfile import decode_lock, decode_metadata
    from runner.chart.model import Chart, ChartFile

    def files(key: str) -> list[ChartFile]:
        return [ChartFile(str(f.get("name") or ""), base64.b64decode(f.get("data") or ""))
                for f in data.get(key) or [] if isinstance(f, dict)]

    lock = data.get("lock")
    return Chart(
        metadata=decode_metadata(data.get("metadata") or {}, what="release chart"),
        lock=decode_lock(lock, "release chart lock") if isinstance(lock, dict) else None,
        templates=files("templates"), files=files("files"),
        values=dict(data.get("values") or {}),
        schema=base64.b64decode(data["schema"]) if data.get("schema") else None,
    )


def chart_view(chart_json: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored chart as templates see `.Chart` (Go field names), for .Release.History."""
    if not chart_json:
        return None
    from runner.chart.chartfile import decode_metadata

    metadata = decode_metadata(chart_json.get("metadata") or {}, what="release chart")
    return metadata.to_go_map(is_root=True)
