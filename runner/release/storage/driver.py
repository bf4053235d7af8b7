"""The driver interface every release store implements."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

from runner.errors import RunnerError
from runner.release.record import Release

OWNER = "helm"
RESERVED_LABELS = frozenset({"name", "owner", "status", "version", "createdAt", "modifiedAt"})


class ReleaseNotFoundError(RunnerError):
    def __init__(self, what: str = "") -> None:
        super().__init__(f"release: not found{': ' + what if what else ''}")


class ReleaseExistsError(RunnerError):
    def __init__(self, key: str) -> None:
        super().__init__(f"release: already exists: {key}")


@dataclass(frozen=True)
class RecordHead:
    """What a record's labels tell without decoding it (a metadata-only list)."""

    key: str
    name: str
    version: int
    status: str
    labels: dict[str, str] = field(default_factory=dict, compare=False)  # all the stored labels


class Driver(Protocol):
    name: str

    def get(self, key: str) -> Release: ...

    def heads(self, release_name: str) -> list[RecordHead]:
        """Every stored revision of a release, from labels only."""
        ...

    def query(self, labels: dict[str, str]) -> list[Release]:
        """Records whose stored labels match; each Release carries all of them."""
        ...

    def create(self, key: str, release: Release) -> None: ...

    def update(self, key: str, release: Release) -> None: ...

    def delete(self, key: str) -> Release | None:
        """Remove a record; its Release, None when it could not be decoded."""
        ...


def record_labels(release: Release, *, created: bool) -> dict[str, str]:
    """Helm's labels on a stored record: user labels plus the reserved six."""
    labels = {k: v for k, v in release.labels.items() if k not in RESERVED_LABELS}
    labels.update(
        name=release.name,
        owner=OWNER,
        status=release.info.status,
        version=str(release.version),
    )
    labels["createdAt" if created else "modifiedAt"] = str(int(time.time()))
    return labels


def user_labels(labels: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in labels.items() if k not in RESERVED_LABELS}
