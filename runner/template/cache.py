"""Compiled templates cached across runs, keyed by content.

Parsing and compiling is most of what rendering a large chart costs, and the
same text always compiles to the same code, so each file's compiled form
(runtime.pending_entries: the function names it uses and, per tree, its
flags, marshalled functions (code objects, or the source of those no run has
called yet) and call-site table) is stored, once a render is done
(runner.template.store_pending), under the user's
cache directory (`$XDG_CACHE_HOME/deploy-runner/templates`, else
`~/.cache/...`), named by the BLAKE2b of its text (and of the template name
when the text contains it: a define could be named after it), the parse
mode and a fingerprint of the compiler (package version, Python version,
which marshal's format follows, and the size and modification time of the
sources of the lexer, parser, nodes, code generator and runtime): a changed
template or compiler never sees an old entry, and a library chart vendored
twice shares its entries.

Entries are stored through runner.diskcache (atomic writes, a size budget).
An entry that cannot be read, unmarshals to anything but what was stored, or names another key is ignored
(the text is compiled and the entry replaced); an unwritable cache is
ignored. Parse errors are not cached. `DEPLOY_RUNNER_NO_CACHE=1` turns the
cache off.
"""

from __future__ import annotations

import marshal
import os
import sys
from functools import cache

from runner import diskcache

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_MAGIC = b"drtpl2\n"
KIND = "templates"


def enabled() -> bool:
    return diskcache.enabled()


@cache
def _fingerprint() -> bytes:
    """Python's version and which template package sources these are (every module, by
    size and modification time, as Python's own .pyc check does: reading and hashing them
    costs more than a small chart's lookups). Not the package's version: reading it costs
    importlib.metadata's import, and the sources already say which compiler this is."""
    here = os.path.dirname(__file__)
    parts = [sys.version]
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            stat = os.stat(os.path.join(here, name))
            parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return diskcache.digest("\0".join(parts).encode()).encode()


def entry_key(name: str, text: str, mode: str) -> str:
    """The hex key of one compiled text: template name ("" for any), text, mode, compiler
    fingerprint."""
    return diskcache.digest(_fingerprint(), f"{mode}\0{name}\0".encode("utf-8", "surrogatepass"),
                            text.encode("utf-8", "surrogatepass"))


def load(key: str) -> tuple[Any, ...] | None:
    """The cached entry for `key`, or None when absent, unreadable or not ours."""
    data = diskcache.read(KIND, key)
    if data is None:
        return None
    header = _MAGIC + key.encode() + b"\n"
    if not data.startswith(header):
        return None
    try:
        entry = marshal.loads(memoryview(data)[len(header):])
    except Exception:  # noqa: BLE001 - a corrupt entry can raise anything; compile instead
        return None
    return entry if _well_formed(entry) else None


def _well_formed(entry: Any) -> bool:
    if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], tuple)):
        return False
    return all(isinstance(d, tuple) and len(d) == 4 and isinstance(d[2], bytes) for d in entry[1])


def store(key: str, entry: tuple[Any, ...]) -> None:
    """Write the entry (atomically, see runner.diskcache); errors are ignored."""
    try:
        payload = marshal.dumps(entry)
    except ValueError:  # something marshal can't hold: keep it uncached
        return
    diskcache.write(KIND, key, _MAGIC + key.encode() + b"\n" + payload)
