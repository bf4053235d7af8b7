"""repositories.yaml (Helm's pkg/repo File and Entry): the `repo add/update/list` state."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from runner.chart.sources.connection import ConnectionOptions
from runner.chart.sources.errors import SourceError
from runner.encoding import goyaml
from runner.encoding.yamlemit import dump

# Go field order of repo.Entry with its JSON names.
_ENTRY_KEYS = {
    "name": "name",
    "url": "url",
    "username": "username",
    "password": "password",
    "cert_file": "certFile",
    "key_file": "keyFile",
    "ca_file": "caFile",
    "insecure_skip_tls_verify": "insecure_skip_tls_verify",
    "pass_credentials_all": "pass_credentials_all",
}


@dataclass(frozen=True)
class Entry(ConnectionOptions):
    """One named chart repository with its credentials and TLS options."""

    name: str = ""
    url: str = ""

    @classmethod
    def from_map(cls, doc: dict[str, Any]) -> Entry:
        blank = cls()
        return cls(**{attr: type(getattr(blank, attr))(doc[key])
                      for attr, key in _ENTRY_KEYS.items() if doc.get(key) is not None})

    def to_map(self) -> dict[str, Any]:
        return {key: getattr(self, attr) for attr, key in _ENTRY_KEYS.items()}

    def same_config(self, other: Entry) -> bool:
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(self))


@dataclass
class RepoFile:
    """The list of repositories, as read from or written to repositories.yaml."""

    api_version: str = ""
    generated: str = "0001-01-01T00:00:00Z"
    repositories: list[Entry] = field(default_factory=list)

    def get(self, name: str) -> Entry | None:
        return next((r for r in self.repositories if r.name == name), None)

    def update(self, entry: Entry) -> None:
        """Replace the entry of the same name or append it (repo.File.Update)."""
        for i, existing in enumerate(self.repositories):
            if existing.name == entry.name:
                self.repositories[i] = entry
                return
        self.repositories.append(entry)

    def remove(self, name: str) -> bool:
        kept = [r for r in self.repositories if r.name != name]
        removed = len(kept) != len(self.repositories)
        self.repositories = kept
        return removed


def load_repo_file(path: Path) -> RepoFile:
    """repo.LoadFile; a missing file is an empty list (callers word that case)."""
    if not path.is_file():
        return RepoFile()
    try:
        doc = goyaml.load(path.read_bytes()) or {}
    except goyaml.GoYAMLError as exc:
        raise SourceError(f"failed to load {path}: {exc}") from exc
    if not isinstance(doc, dict):
        raise SourceError(f"failed to load {path}: not a repositories file")
    repos = [Entry.from_map(r) for r in doc.get("repositories") or [] if isinstance(r, dict)]
    generated = doc.get("generated")
    return RepoFile(str(doc.get("apiVersion") or ""), str(generated or RepoFile.generated), repos)


def write_repo_file(repo_file: RepoFile, path: Path) -> None:
    """repo.File.WriteFile: YAML through JSON (sorted keys), mode 0600, written atomically.

    Helm never sets `generated` when writing, so it stays what was read (zero time when new).
    """
    doc = {
        "apiVersion": repo_file.api_version,
        "generated": repo_file.generated,
        "repositories": [r.to_map() for r in repo_file.repositories],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(dump(doc))
    os.chmod(partial, 0o600)
    partial.replace(path)


@contextmanager
def locked(repo_config: Path) -> Iterator[None]:
    """`repo add`'s file lock beside repositories.yaml (repositories.lock), held while it rewrites it."""
    import fcntl

    lock_path = repo_config.with_suffix(".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
