"""History logic over a driver (Helm's pkg/storage): latest, deployed, pruning."""

from __future__ import annotations

from runner.release.record import DEPLOYED, Release, storage_key
from runner.release.storage.driver import Driver, RecordHead, ReleaseNotFoundError

DEFAULT_HISTORY_MAX = 10


class Storage:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver

    def heads(self, name: str) -> list[RecordHead]:
        """Stored revisions of `name`, newest first, from labels alone."""
        return sorted(self.driver.heads(name), key=lambda head: head.version, reverse=True)

    def get(self, name: str, version: int) -> Release:
        """One revision by key, with its user labels (Helm's driver Get)."""
        return self.driver.get(storage_key(name, version))

    def history(self, name: str, depth: int | None = None) -> list[Release]:
        """Records newest first, decoding only the `depth` newest when given."""
        heads = self.heads(name)
        if depth is not None:
            heads = heads[:depth]
        return [self._read(head) for head in heads]

    def last(self, name: str) -> Release:
        heads = self.heads(name)
        if not heads:
            raise ReleaseNotFoundError(name)
        return self._read(heads[0])

    def deployed(self, name: str) -> Release:
        for head in self.heads(name):
            if head.status == DEPLOYED:
                return self._read(head)
        raise ReleaseNotFoundError(f"{name}: has no deployed releases")

    def _read(self, head: RecordHead) -> Release:
        """A record found through the release's label query: like Helm's Query results, it
        carries all its stored labels (name, owner, status, version included)."""
        release = self.driver.get(head.key)
        release.labels = dict(head.labels)
        return release

    def create(self, release: Release, history_max: int = DEFAULT_HISTORY_MAX) -> None:
        if history_max > 0:
            self.prune(release.name, keep=history_max - 1)
        self.driver.create(release.storage_key, release)

    def update(self, release: Release) -> None:
        self.driver.update(release.storage_key, release)

    def delete(self, name: str, version: int) -> Release:
        return self.driver.delete(storage_key(name, version))

    def prune(self, name: str, keep: int) -> list[int]:
        """Delete the oldest records until `keep` remain, sparing the last deployed one (as Helm)."""
        heads = self.heads(name)
        deployed = next((head.version for head in heads if head.status == DEPLOYED), None)
        removed: list[int] = []
        for head in reversed(heads):
            if len(heads) - len(removed) <= keep:
                break
            if head.version == deployed:
                continue
            self.driver.delete(head.key)
            removed.append(head.version)
        return removed
