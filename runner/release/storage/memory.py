"""In-memory release store (Helm's memory driver): for dry runs, template and tests."""

from __future__ import annotations

import copy

from runner.release.record import Release
from runner.release.storage.driver import (
    RecordHead,
    ReleaseExistsError,
    ReleaseNotFoundError,
    record_labels,
    user_labels,
)


class MemoryDriver:
    name = "Memory"

    def __init__(self) -> None:
        self._records: dict[str, tuple[Release, dict[str, str]]] = {}

    def get(self, key: str) -> Release:
        if key not in self._records:
            raise ReleaseNotFoundError(key)
        release, labels = self._records[key]
        found = copy.deepcopy(release)
        found.labels = user_labels(labels)
        return found

    def heads(self, release_name: str) -> list[RecordHead]:
        return [
            RecordHead(key, labels["name"], int(labels["version"]), labels["status"], dict(labels))
            for key, (_, labels) in self._records.items()
            if labels["name"] == release_name
        ]

    def query(self, labels: dict[str, str]) -> list[Release]:
        """Matching records, each with all its stored labels (as KubeDriver.query)."""
        found = []
        for key, (_, stored) in self._records.items():
            if all(stored.get(k) == v for k, v in labels.items()):
                release = self.get(key)
                release.labels = dict(stored)
                found.append(release)
        return found

    def create(self, key: str, release: Release) -> None:
        if key in self._records:
            raise ReleaseExistsError(key)
        self._records[key] = (copy.deepcopy(release), record_labels(release, created=True))

    def update(self, key: str, release: Release) -> None:
        if key not in self._records:
            raise ReleaseNotFoundError(key)
        self._records[key] = (copy.deepcopy(release), record_labels(release, created=False))

    def delete(self, key: str) -> Release:
        release = self.get(key)
        del self._records[key]
        return release
