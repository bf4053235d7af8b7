"""The release record in Helm 4's JSON shape (helm.sh/helm/v4/pkg/release/v1).

Records are read and written by `helm` too, so field names, the order Go's
encoding/json writes them in, and `omitempty` / `omitzero` rules follow
Helm's structs. Timestamps stay RFC 3339 strings with Go's nanoseconds, so a
record read from the cluster and written back loses nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

# Helm's release statuses (pkg/release/common/status.go).
UNKNOWN = "unknown"
DEPLOYED = "deployed"
UNINSTALLED = "uninstalled"
SUPERSEDED = "superseded"
FAILED = "failed"
UNINSTALLING = "uninstalling"
PENDING_INSTALL = "pending-install"
PENDING_UPGRADE = "pending-upgrade"
PENDING_ROLLBACK = "pending-rollback"
PENDING_STATUSES = frozenset({PENDING_INSTALL, PENDING_UPGRADE, PENDING_ROLLBACK})

SERVER_SIDE_APPLY = "ssa"
CLIENT_SIDE_APPLY = "csa"


def go_time_now() -> str:
    """time.Now() as Go's encoding/json writes it (RFC 3339 with nanoseconds, UTC)."""
    ns = time.time_ns()
    seconds, nanos = divmod(ns, 1_000_000_000)
    stamp = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f".{nanos:09d}".rstrip("0").rstrip(".")
    return f"{stamp}{fraction}Z"


def parse_go_time(text: str) -> datetime:
    """An RFC 3339 timestamp (Go may write up to nine fractional digits)."""
    head, _, rest = text.partition(".")
    if rest:
        digits = len(rest) - len(rest.lstrip("0123456789"))
        fraction, zone = rest[:digits], rest[digits:]
        text = f"{head}.{fraction[:6].ljust(6, '0')}{zone}"
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass
class HookExecution:
    started_at: str = ""
    completed_at: str = ""
    phase: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.started_at:
            out["started_at"] = self.started_at
        if self.completed_at:
            out["completed_at"] = self.completed_at
        out["phase"] = self.phase
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> HookExecution:
        data = data or {}
        return cls(
            data.get("started_at") or "", data.get("completed_at") or "", data.get("phase") or ""
        )


@dataclass
class Hook:
    name: str
    kind: str
    path: str
    manifest: str
    events: list[str]
    weight: int = 0
    delete_policies: list[str] = field(default_factory=list)
    output_log_policies: list[str] = field(default_factory=list)
    last_run: HookExecution = field(default_factory=HookExecution)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        _put(out, "name", self.name)
        _put(out, "kind", self.kind)
        _put(out, "path", self.path)
        _put(out, "manifest", self.manifest)
        _put(out, "events", list(self.events))
        out["last_run"] = self.last_run.to_json()
        _put(out, "weight", self.weight)
        _put(out, "delete_policies", list(self.delete_policies))
        _put(out, "output_log_policies", list(self.output_log_policies))
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hook:
        return cls(
            name=data.get("name") or "",
            kind=data.get("kind") or "",
            path=data.get("path") or "",
            manifest=data.get("manifest") or "",
            events=list(data.get("events") or []),
            weight=int(data.get("weight") or 0),
            delete_policies=list(data.get("delete_policies") or []),
            output_log_policies=list(data.get("output_log_policies") or []),
            last_run=HookExecution.from_json(data.get("last_run")),
        )


@dataclass
class Info:
    status: str = UNKNOWN
    description: str = ""
    first_deployed: str = ""
    last_deployed: str = ""
    deleted: str = ""
    notes: str = ""
    resources: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        _put(out, "first_deployed", self.first_deployed)
        _put(out, "last_deployed", self.last_deployed)
        _put(out, "deleted", self.deleted)
        _put(out, "description", self.description)
        _put(out, "status", self.status)
        _put(out, "notes", self.notes)
        _put(out, "resources", self.resources)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Info:
        data = data or {}
        return cls(
            status=data.get("status") or "",
            description=data.get("description") or "",
            first_deployed=data.get("first_deployed") or "",
            last_deployed=data.get("last_deployed") or "",
            deleted=data.get("deleted") or "",
            notes=data.get("notes") or "",
            resources=data.get("resources"),
        )


@dataclass
class Release:
    """One revision of a release. `chart` is the chart in Helm's JSON form."""

    name: str
    namespace: str
    version: int
    info: Info
    chart: dict[str, Any] | None = None
    config: dict[str, Any] = field(default_factory=dict)
    manifest: str = ""
    hooks: list[Hook] = field(default_factory=list)
    apply_method: str = ""
    labels: dict[str, str] = field(default_factory=dict)  # storage metadata, not in the JSON

    @property
    def storage_key(self) -> str:
        return storage_key(self.name, self.version)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        _put(out, "name", self.name)
        out["info"] = self.info.to_json()
        if self.chart is not None:
            out["chart"] = self.chart
        _put(out, "config", self.config)
        _put(out, "manifest", self.manifest)
        _put(out, "hooks", [hook.to_json() for hook in self.hooks])
        _put(out, "version", self.version)
        _put(out, "namespace", self.namespace)
        _put(out, "apply_method", self.apply_method)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Release:
        return cls(
            name=data.get("name") or "",
            namespace=data.get("namespace") or "",
            version=int(data.get("version") or 0),
            info=Info.from_json(data.get("info")),
            chart=data.get("chart"),
            config=data.get("config") or {},
            manifest=data.get("manifest") or "",
            hooks=[Hook.from_json(hook) for hook in data.get("hooks") or []],
            apply_method=data.get("apply_method") or "",
        )


def storage_key(name: str, version: int) -> str:
    """Helm's object name for one revision: sh.helm.release.v1.<name>.v<revision>."""
    return f"sh.helm.release.v1.{name}.v{version}"


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    """Go's `omitempty`: zero values and empty collections are left out."""
    if value in ("", 0, None) or (isinstance(value, (list, dict)) and not value):
        return
    out[key] = value
