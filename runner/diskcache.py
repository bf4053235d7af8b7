"""Content-addressed entries under the user's cache directory, kept across runs.

The template code cache (runner.template.cache) and the chart YAML cache
(runner.encoding.yamlcache) store here: `$XDG_CACHE_HOME/deploy-runner/<kind>/`
(else `~/.cache/...`), one file per key, all in that directory: a cold run
writes several entries (the template cache one per render, holding all its
templates: a file per template cost a create and a rename each), and
creating a directory per entry's shard cost more than the writes (ext4
indexes large directories). Entries are written
to a private temporary file and renamed into place, so concurrent runs never
read a partial entry; the directory is made when a write finds it missing.
An unreadable or unwritable cache is ignored. Every so often a write prunes the
kind's directory to its size budget, least recently read entries first.
`DEPLOY_RUNNER_NO_CACHE=1` turns caching off.

Only `os` is imported: a warm `template` run reads many entries, and pathlib
or hashlib (OpenSSL) would cost more at start-up than the lookups do. Keys
are BLAKE2b digests from CPython's own `_blake2`: ~3x faster than its
built-in SHA-256, and a large chart hashes a megabyte of text a run.
"""

from __future__ import annotations

import os
from functools import cache

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import BinaryIO

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a build without it
    from hashlib import sha256 as _hasher
else:

    def _hasher() -> blake2b:  # type: ignore[misc]
        return blake2b(digest_size=32)

MAX_BYTES = 512 * 1024 * 1024  # per kind
PRUNE_TO = 0.75  # of MAX_BYTES
PRUNE_ONE_WRITE_IN = 64


def enabled() -> bool:
    return not os.environ.get("DEPLOY_RUNNER_NO_CACHE")


def kind_dir(kind: str) -> str:
    return _kind_dir(kind, os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"))


@cache
def _kind_dir(kind: str, xdg_cache_home: str | None, home: str | None) -> str:
    """Computed once per environment: expanduser and the joins cost more than reading
    a small entry."""
    base = xdg_cache_home or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "deploy-runner", kind)


def digest(*parts: bytes) -> str:
    """The hex digest (256 bits) of the parts, in order."""
    hasher = _hasher()
    for part in parts:
        hasher.update(part)
    return hasher.hexdigest()


def secret_digest(data: bytes) -> str | None:
    """The digest of `data` keyed with this machine's cache secret, or None when no secret
    can be kept. For entries named after text a user's values shaped (rendered documents):
    an unkeyed digest of a document with a short password in it can be found by trying
    passwords; the secret lives outside the cache directory, which CI often saves."""
    secret = _secret(os.environ.get("XDG_STATE_HOME"), os.environ.get("HOME"))
    if secret is None:
        return None
    try:
        hasher = blake2b(key=secret, digest_size=32)
    except NameError:  # pragma: no cover - a build without _blake2
        import hmac

        return hmac.new(secret, data, "sha256").hexdigest()
    hasher.update(data)
    return hasher.hexdigest()


@cache
def _secret(xdg_state_home: str | None, home: str | None) -> bytes | None:
    """32 random bytes in $XDG_STATE_HOME/deploy-runner/cache-key (made on first use, 0600)."""
    base = xdg_state_home or os.path.join(os.path.expanduser("~"), ".local", "state")
    path = os.path.join(base, "deploy-runner", "cache-key")
    for _ in range(2):
        try:
            with open(path, "rb") as handle:
                secret = handle.read()
            return secret if len(secret) == 32 else None
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue  # another run made it first: read theirs
        except OSError:
            return None
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(32))
    return None


def _path(kind: str, key: str) -> str:
    return os.path.join(kind_dir(kind), key)


def read(kind: str, key: str) -> bytes | None:
    try:
        with open(_path(kind, key), "rb") as handle:
            return handle.read()
    except OSError:
        return None


def write(kind: str, key: str, data: bytes) -> None:
    """Store `data` under `key` atomically; failures leave the cache as it was."""
    path = _path(kind, key)
    temporary = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        with _create(temporary) as handle:
            handle.write(data)
        os.replace(temporary, path)
    except OSError:
        _unlink(temporary)
        return
    if os.urandom(1)[0] < 256 // PRUNE_ONE_WRITE_IN:
        prune(kind)


def _create(path: str) -> BinaryIO:
    """A new file open for writing; the kind's directory is made when missing (the first
    write), not checked before every write."""
    try:
        return open(path, "xb")
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return open(path, "xb")


def prune(kind: str, max_bytes: int = MAX_BYTES) -> int:
    """Delete the least recently read entries of `kind` while it holds more than
    `max_bytes`, down to PRUNE_TO of it; returns how many were deleted.

    Plain try/except rather than contextlib: a random write of any run prunes, and the
    render path does not import contextlib (tests/unit/test_cli_startup.py)."""
    entries = _entries(kind_dir(kind))
    total = sum(size for _, size, _ in entries)
    if total <= max_bytes:
        return 0
    deleted = 0
    for _, size, path in sorted(entries):
        if total <= max_bytes * PRUNE_TO:
            break
        if _unlink(path):
            total -= size
            deleted += 1
    return deleted


def _unlink(path: str) -> bool:
    """Remove a file; False when it could not be (contextlib.suppress would load contextlib,
    which the render path does not import)."""
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


def _entries(directory: str) -> list[tuple[float, int, str]]:
    """(last read, size, path) of each entry; a shard directory of the former layout
    (entries by key[:2]) is stale and removed."""
    entries = []
    try:
        with os.scandir(directory) as files:
            for entry in files:
                if entry.is_dir():
                    import shutil

                    shutil.rmtree(entry.path, ignore_errors=True)
                    continue
                try:
                    stat = entry.stat()
                except OSError:
                    continue
                entries.append((stat.st_atime, stat.st_size, entry.path))
    except OSError:
        pass
    return entries
