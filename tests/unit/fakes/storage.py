"""The memory driver, remembering every write: the statuses a user would have seen."""

from __future__ import annotations

from runner.release.record import Release
from runner.release.storage import MemoryDriver, Storage


class RecordingDriver(MemoryDriver):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[str, int, str]] = []  # (create|update|delete, revision, status)

    def create(self, key: str, release: Release) -> None:
        super().create(key, release)
        self.writes.append(("create", release.version, release.info.status))

    def update(self, key: str, release: Release) -> None:
        super().update(key, release)
        self.writes.append(("update", release.version, release.info.status))

    def delete(self, key: str) -> Release:
        release = super().delete(key)
        self.writes.append(("delete", release.version, release.info.status))
        return release


def history(storage: Storage, name: str) -> list[tuple[int, str, str]]:
    """(revision, status, description), oldest first: what `helm history` shows."""
    return [(r.version, r.info.status, r.info.description)
            for r in reversed(storage.history(name))]


def statuses(driver: RecordingDriver, revision: int) -> list[str]:
    """Every status revision `revision` was written with, in order, repeats folded."""
    seen: list[str] = []
    for _, version, status in driver.writes:
        if version == revision and (not seen or seen[-1] != status):
            seen.append(status)
    return seen
