"""Compiled templates cached across runs, keyed by content.

Parsing and compiling is most of what rendering a large chart costs, and the
same text always compiles to the same code, so each file's compiled form
(runtime.pending_entries: the function names it uses and, per tree, its
flags, marshalled functions (code objects, or the source of those no run has
called yet) and call-site table) is kept, keyed by the BLAKE2b of its text (and of the template name
when the text contains it: a define could be named after it), the parse
mode and a fingerprint of the compiler (Python's version, which marshal's
format follows, and the size and modification time of the template
package's sources): a changed template or compiler never sees an old entry.

The entries of one render live in one file, its pack (`Pack`), under the user's
cache directory (`$XDG_CACHE_HOME/deploy-runner/templates`, else
`~/.cache/...`), named by the fingerprint and the names of the templates the
render parses: a cold run writes one file rather than one per template (a
create and a rename each), a warm run reads one, and an edited template
changes one entry of its chart's pack. The engine opens the pack before
parsing (`open_pack`) and stores it once the render is done
(runner.template.store_pending); texts parsed outside a chart render share a
default pack.

Packs are stored through runner.diskcache (atomic writes, a size budget).
A pack that cannot be read or unmarshals to anything but a dict, or an entry
in it that is not what was stored, is ignored (the text is compiled and the
pack written again); an unwritable cache is ignored. Parse errors are not
cached. `DEPLOY_RUNNER_NO_CACHE=1` turns the cache off.
"""

from __future__ import annotations

import marshal
import os
import sys
from functools import cache

from runner import diskcache

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

_MAGIC = b"drtpk3\n"
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


class Pack:
    """One render's entries, kept in one file: a cold run writes one file, not one per
    template, and a warm run reads one. Named by the template names the render parses
    (not their texts): an edited template changes one entry of the pack, not its name."""

    __slots__ = ("key", "keys", "stored")

    def __init__(self, key: str, stored: dict[str, Any]) -> None:
        self.key = key
        self.keys: set[str] = set()  # the entries this render used, the next pack's content
        self.stored = stored  # the pack as read


_LOADED: dict[str, Any] = {}  # every pack read by this process, by entry key
_DEFAULT: list[Pack] = []  # texts parsed outside a chart render (no pack of their own)


def open_pack(names: Iterable[str]) -> Pack:
    """The pack of a render parsing templates `names`, read from disk (empty when absent,
    damaged or not ours); its entries are found by `load` from now on."""
    key = diskcache.digest(_fingerprint(), "\0".join(sorted(names)).encode("utf-8", "surrogatepass"))
    stored = _read_pack(key)
    if len(_LOADED) + len(stored) > _LOADED_LIMIT:
        _LOADED.clear()
    _LOADED.update(stored)
    return Pack(key, stored)


_LOADED_LIMIT = 16384


def default_pack() -> Pack:
    if not _DEFAULT:
        _DEFAULT.append(open_pack(()))
    return _DEFAULT[0]


def _read_pack(key: str) -> dict[str, Any]:
    data = diskcache.read(KIND, key)
    if data is None:
        return {}
    header = _MAGIC + key.encode() + b"\n"
    if not data.startswith(header):
        return {}
    try:
        stored = marshal.loads(memoryview(data)[len(header):])
    except Exception:  # noqa: BLE001 - a corrupt pack can raise anything; compile instead
        return {}
    return stored if isinstance(stored, dict) else {}


def load(key: str) -> tuple[Any, ...] | None:
    """The cached entry for `key` from the packs read, or None when absent or not ours."""
    entry = _LOADED.get(key)
    if entry is None and not _DEFAULT:
        entry = default_pack().stored.get(key)
    return entry if entry is not None and _well_formed(entry) else None


def _well_formed(entry: Any) -> bool:
    if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], tuple)):
        return False
    return all(isinstance(d, tuple) and len(d) == 4 and isinstance(d[2], bytes) for d in entry[1])


def store(pack: Pack, fresh: dict[str, tuple[Any, ...]]) -> None:
    """Write the pack again when this render compiled anything (`fresh` entries) or used an
    entry it does not hold: the entries it used, fresh or as read (atomically, see
    runner.diskcache); errors are ignored. Entries of texts no longer parsed are dropped."""
    if not fresh and pack.keys <= pack.stored.keys():
        return
    entries = {}
    for key in pack.keys:
        entry = fresh.get(key) or pack.stored.get(key) or _LOADED.get(key)
        if entry is not None:
            entries[key] = entry
    try:
        payload = marshal.dumps(entries)
    except ValueError:  # something marshal can't hold: keep it uncached
        return
    _LOADED.update(fresh)
    pack.stored = entries
    diskcache.write(KIND, pack.key, _MAGIC + pack.key.encode() + b"\n" + payload)
