"""A content-addressed cache of parsed chart YAML (values.yaml, Chart.yaml) across runs.

Parsing a large chart's values takes longer than the rest of loading it; the
same bytes always parse to the same tree, so the tree is pickled under the
user's cache directory, keyed by the SHA-256 of the bytes, the parse mode and
a fingerprint of the YAML reader's source (a new reader never sees old
trees), stored through runner.diskcache. Failures to parse are not cached.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from functools import cache
from typing import Any

from runner import diskcache

KIND = "chart-yaml"


@cache
def _reader_fingerprint() -> str:
    """Hash of the YAML reader's own source files, so a changed reader invalidates entries."""
    import runner.encoding as encoding

    parts = []
    for name in ("goyaml.py", "gojson.py"):
        path = os.path.join(os.path.dirname(encoding.__file__), name)
        if os.path.exists(path):
            with open(path, "rb") as handle:
                parts.append(handle.read())
    return diskcache.digest(*parts)[:16]


def load(data: bytes, ints: bool) -> Any:
    """goyaml.load(data, ints=ints), from the cache when these bytes were parsed before."""
    if not diskcache.enabled():
        return _parse(data, ints)
    key = diskcache.digest(data) + ("i" if ints else "f") + _reader_fingerprint()
    stored = diskcache.read(KIND, key)
    if stored is not None:
        try:
            return pickle.loads(stored)
        except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError):
            pass
    value = _parse(data, ints)
    with contextlib.suppress(pickle.PicklingError):
        diskcache.write(KIND, key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    return value


def _parse(data: bytes, ints: bool) -> Any:
    from runner.encoding import goyaml

    return goyaml.load(data, ints=ints)
