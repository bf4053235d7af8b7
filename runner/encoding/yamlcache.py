"""A content-addressed cache of parsed YAML across runs: a chart's own files
(Chart.yaml, values.yaml, Chart.lock, requirements; through chartfile.load_yaml_document),
keyed by their digests, and where rendered documents write their heads (runner.heads_cache).
Nothing a user passes (-f values) or a render produces is stored as text or
tree: it may hold secrets, and the cache directory is often saved by CI.

Parsing a large chart's values takes longer than the rest of loading it, and
importing the parser (PyYAML, runner.encoding.yamldecode) costs more than a
small chart's render; the same text always parses to the same tree, so the
tree is stored under the user's cache directory (runner.diskcache), keyed by
a digest of the text, the parse mode and a fingerprint of the YAML reader
(our reader's files and PyYAML's, so a new reader never sees old trees).
Failures to parse are not cached: errors always come from the parser.

Trees are plain dict/list/str/int/float/bool/None, stored with marshal
(builtin, exact for those types, refuses anything else) in a frame that
tells a damaged entry from a good one. Nothing here imports PyYAML: a warm
run whose YAML is all cached never loads the parser.
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

KIND = "yaml"
MISSING: Any = object()  # what `get` returns for no (usable) entry
_MAGIC = b"DRY" + bytes([marshal.version])


def get(kind: str, key: str) -> Any:
    """The tree stored under `key`, or MISSING when absent, damaged or caching is off."""
    if not diskcache.enabled():
        return MISSING
    stored = diskcache.read(kind, key)
    if stored is None or stored[:4] != _MAGIC or int.from_bytes(stored[4:8], "little") != len(stored) - 8:
        return MISSING
    try:
        return marshal.loads(memoryview(stored)[8:])
    except (EOFError, ValueError, TypeError):
        return MISSING


def put(kind: str, key: str, tree: Any) -> None:
    """Store `tree` under `key`; a tree marshal cannot hold exactly is not stored."""
    if not diskcache.enabled():
        return
    try:
        payload = marshal.dumps(tree)
    except ValueError:  # a type other than the plain ones (str subclasses included)
        return
    diskcache.write(kind, key, _MAGIC + len(payload).to_bytes(4, "little") + payload)


def load(data: str | bytes, ints: bool) -> Any:
    """goyaml.load(data, ints=ints), from the cache when this text was parsed before.

    Bytes are read as goyaml reads them (UTF-8, bad bytes kept as surrogate
    escapes), so a text has one key whichever form it comes in.
    """
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    key = diskcache.digest(text.encode("utf-8", "surrogatepass")) + ("i" if ints else "f")
    key += reader_fingerprint()
    tree = get(KIND, key)
    if tree is MISSING:
        from runner.encoding import goyaml  # imports the parser only now

        tree = goyaml.load(text, ints=ints)
        put(KIND, key, tree)
    return tree


@cache
def reader_fingerprint() -> str:
    """Size and mtime of the YAML reader's files, ours and PyYAML's (Python's own .pyc
    check), so a changed reader invalidates entries."""
    encoding_dir = os.path.dirname(os.path.abspath(__file__))
    golang_dir = os.path.join(os.path.dirname(encoding_dir), "golang")
    parts = [_stat_text(os.path.join(golang_dir, name)) for name in ("types.py", "strconv.py")]
    for directory in (encoding_dir, _pyyaml_directory()):
        parts.extend(_stat_text(path) for path in sorted(_files(directory)))
    return diskcache.digest("\n".join(parts).encode("utf-8", "surrogateescape"))[:16]


def _files(directory: str) -> list[str]:
    try:
        with os.scandir(directory) as entries:
            return [entry.path for entry in entries if entry.is_file()]
    except OSError:
        return []


def _stat_text(path: str) -> str:
    try:
        info = os.stat(path)
    except OSError:
        return f"{path} -"
    return f"{path} {info.st_size} {info.st_mtime_ns}"


def _pyyaml_directory() -> str:
    """Where `import yaml` finds (or found) PyYAML, without importing it."""
    module = sys.modules.get("yaml")
    if module is not None and getattr(module, "__file__", None):
        return os.path.dirname(module.__file__)
    for entry in sys.path:
        candidate = os.path.join(entry or os.getcwd(), "yaml")
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            return candidate
    return ""
