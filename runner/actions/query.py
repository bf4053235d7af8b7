"""Read-only release actions: status, history, get values|manifest|notes|hooks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runner.actions.release_config import ActionConfig
from runner.errors import RunnerError
from runner.release.record import Release
from runner.release.storage import ReleaseNotFoundError


@dataclass(frozen=True)
class HistoryRow:
    revision: int
    updated: str
    status: str
    chart: str
    app_version: str
    description: str


def get_release(cfg: ActionConfig, name: str, revision: int = 0) -> Release:
    """The given revision (an unreadable one is an error naming it), or the newest readable
    one (Helm's releaseContent: a record that cannot be decoded is passed over)."""
    try:
        if revision > 0:
            return cfg.storage.get(name, revision)
        return cfg.storage.last_readable(name)
    except ReleaseNotFoundError as err:
        raise RunnerError("release: not found") from err


def history(cfg: ActionConfig, name: str, max_rows: int = 256) -> list[HistoryRow]:
    """Oldest first, the newest `max_rows` (helm history --max); unreadable records left out."""
    records = cfg.storage.whole_history(name)
    if records is None:
        raise RunnerError("release: not found")
    return [_row(r) for r in reversed(records[:max_rows])]


def _row(record: Release) -> HistoryRow:
    metadata = (record.chart or {}).get("metadata") or {}
    chart = f"{metadata.get('name', '')}-{metadata.get('version', '')}"
    return HistoryRow(record.version, record.info.last_deployed, record.info.status, chart,
                      str(metadata.get("appVersion", "")), record.info.description)


def values(cfg: ActionConfig, name: str, revision: int = 0, all_values: bool = False) -> dict[str, Any]:
    """User-supplied values, or (--all) the values coalesced with the chart's defaults."""
    release = get_release(cfg, name, revision)
    return computed_values(release) if all_values else dict(release.config)


def computed_values(release: Release) -> dict[str, Any]:
    """The release's values coalesced with its chart's defaults (COMPUTED VALUES)."""
    from runner.actions.prepare import stored_chart
    from runner.chart.values import Warnings, coalesce_values

    return coalesce_values(stored_chart(release), dict(release.config), Warnings())


def resource_tables(cfg: ActionConfig, release: Release) -> str:
    """RESOURCES of `helm status`: the release's objects as the server tabulates them."""
    from runner.kube import tables
    from runner.kube.resources import build

    if release.info.status == "uninstalled" or not release.manifest:
        return ""
    client = cfg.kube()
    return tables.render(tables.resource_tables(client, build(client, release.manifest, release.namespace, validate=False)))


def resource_objects(cfg: ActionConfig, release: Release) -> dict[str, list[Any]]:
    """info.resources of `helm status -o json|yaml`: the live objects by "<version>/<Kind>"."""
    from runner.kube import tables
    from runner.kube.resources import build

    if release.info.status == "uninstalled" or not release.manifest:
        return {}
    client = cfg.kube()
    return tables.resource_objects(client, build(client, release.manifest, release.namespace, validate=False))
