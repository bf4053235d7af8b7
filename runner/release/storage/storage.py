"""History logic over a driver (Helm's pkg/storage): latest, deployed, pruning."""

from __future__ import annotations

from runner.errors import RunnerError
from runner.release.record import DEPLOYED, Release, storage_key
from runner.release.storage.driver import OWNER, Driver, RecordHead, ReleaseNotFoundError

DEFAULT_HISTORY_MAX = 10


class NoReadableRevisionError(RunnerError):
    """Records of the release exist, none can be decoded (Helm's Last says the same)."""

    def __init__(self, name: str) -> None:
        super().__init__(f'no revision for release "{name}"')


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
        """Readable records newest first (the `depth` newest when given). As Helm's History,
        a record that cannot be decoded is left out (list, history and status show the rest)."""
        found: list[Release] = []
        for head in self.heads(name):
            if depth is not None and len(found) >= depth:
                break
            release = self._read_or_none(head)
            if release is not None:
                found.append(release)
        return found

    def whole_history(self, name: str) -> list[Release] | None:
        """Helm's History: every readable record of `name`, newest first, from one query of
        whole records (undecodable ones left out); None when there is no record at all. One
        request where `history` makes one per record: for `helm history`, which shows them all."""
        found = [r for r in self.driver.query({"owner": OWNER, "name": name})
                 if str(r.labels.get("version", "")).isdigit()]
        if not found and not self.heads(name):
            return None
        return sorted(found, key=lambda release: int(release.labels["version"]), reverse=True)

    def last(self, name: str, heads: list[RecordHead] | None = None) -> Release:
        """The newest record, which must be readable: a change built on an older one would
        collide with the unreadable one (RecordDecodeError names it and what is wrong).
        `heads`: the revisions as `heads(name)` just gave them (not asked again)."""
        heads = self.heads(name) if heads is None else heads
        if not heads:
            raise ReleaseNotFoundError(name)
        return self._read(heads[0])

    def last_readable(self, name: str) -> Release:
        """Helm's Last, for reading (status, get): the newest record that can be decoded,
        found as Helm finds it, from one query of whole records (a list, then a get of the
        newest, would be two round trips)."""
        found = self.whole_history(name)
        if found is None:
            raise ReleaseNotFoundError(name)
        if not found:
            raise NoReadableRevisionError(name)
        return found[0]

    def deployed(self, name: str) -> Release:
        """The newest readable deployed record (Helm's Deployed leaves out unreadable ones)."""
        for head in self.heads(name):
            if head.status == DEPLOYED:
                release = self._read_or_none(head)
                if release is not None:
                    return release
        raise ReleaseNotFoundError(f"{name}: has no deployed releases")

    def _read_or_none(self, head: RecordHead) -> Release | None:
        from runner.release.codec import RecordDecodeError

        try:
            return self._read(head)
        except RecordDecodeError:
            return None

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

    def delete(self, name: str, version: int) -> Release | None:
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
