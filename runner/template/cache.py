"""Parsed template trees cached across runs, keyed by content.

Parsing is most of what rendering a large chart costs, and the same text
always parses to the same trees, so each file's `ParseResult` is pickled
under the user's cache directory (`$XDG_CACHE_HOME/deploy-runner/templates`,
else `~/.cache/...`), named by the SHA-256 of the template name, its text,
the parse mode and a fingerprint of the parser (package version, Python
version, the lexer/parser/node sources): a changed template or parser never
sees an old entry.

Entries are written to a private temporary file and renamed into place, so
concurrent runs never read a partial entry. An entry that cannot be read,
unpickles to anything but what was stored, or names another key is ignored
(the text is parsed and the entry replaced); an unwritable cache is ignored.
Compiled closures are not cached (they do not pickle); parse errors are not
cached. `DEPLOY_RUNNER_NO_CACHE=1` turns the cache off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from functools import cache
from pathlib import Path

from runner.template.parse import ParseResult

_SOURCES = ("lex.py", "parse.py", "nodes.py", "numbers.py", "cache.py")
_MAGIC = b"drtpl1\n"


def enabled() -> bool:
    return not os.environ.get("DEPLOY_RUNNER_NO_CACHE")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "deploy-runner" / "templates"


@cache
def _fingerprint() -> bytes:
    """The package version, Python's, and the parser's own sources."""
    from runner import __version__

    digest = hashlib.sha256(f"{__version__}\0{sys.version}\0".encode())
    here = Path(__file__).parent
    for name in _SOURCES:
        try:
            digest.update((here / name).read_bytes())
        except OSError:
            digest.update(name.encode())
    return digest.digest()


def entry_key(name: str, text: str, mode: str) -> str:
    """The hex key of one parse: template name, text, mode, parser fingerprint."""
    digest = hashlib.sha256(_fingerprint())
    digest.update(f"{mode}\0{name}\0".encode("utf-8", "surrogatepass"))
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / key[:2] / key


def load(key: str) -> ParseResult | None:
    """The cached parse for `key`, or None when absent, unreadable or not ours."""
    try:
        with open(_path(key), "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    header = _MAGIC + key.encode() + b"\n"
    if not data.startswith(header):
        return None
    try:
        from pickle import loads

        result = loads(memoryview(data)[len(header):])
    except Exception:  # noqa: BLE001 - a corrupt entry can raise anything; parse instead
        return None
    return result if isinstance(result, ParseResult) else None


def store(key: str, result: ParseResult) -> None:
    """Write the entry atomically (temporary file, then rename); errors are ignored."""
    path = _path(key)
    tmp = path.with_name(f".{key}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        from pickle import HIGHEST_PROTOCOL, dumps

        payload = dumps(result, protocol=HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - e.g. RecursionError on a pathologically deep tree
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "xb") as handle:
            handle.write(_MAGIC + key.encode() + b"\n")
            handle.write(payload)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
