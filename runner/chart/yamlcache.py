"""A content-addressed cache of parsed chart YAML (values.yaml, Chart.yaml) across runs.

Parsing a large chart's values takes longer than the rest of loading it; the
same bytes always parse to the same tree, so the tree is pickled under the
user's cache directory, keyed by the SHA-256 of the bytes, the parse mode and
a fingerprint of the YAML reader's source (a new reader never sees old
trees). Failures to parse are not cached; an unreadable or unwritable cache
is ignored. `DEPLOY_RUNNER_NO_CACHE=1` turns it off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from functools import cache
from pathlib import Path
from typing import Any


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "deploy-runner" / "chart-yaml"


@cache
def _reader_fingerprint() -> str:
    """Hash of the YAML reader's own source files, so a changed reader invalidates entries."""
    import runner.encoding as encoding

    digest = hashlib.sha256()
    for name in ("goyaml.py", "gojson.py"):
        path = Path(encoding.__file__).with_name(name)
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load(data: bytes, ints: bool) -> Any:
    """goyaml.load(data, ints=ints), from the cache when these bytes were parsed before."""
    if os.environ.get("DEPLOY_RUNNER_NO_CACHE"):
        return _parse(data, ints)
    key = hashlib.sha256(data).hexdigest() + ("i" if ints else "f") + _reader_fingerprint()
    path = _cache_dir() / key[:2] / key
    try:
        return pickle.loads(path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        pass
    value = _parse(data, ints)
    _store(path, value)
    return value


def _parse(data: bytes, ints: bool) -> Any:
    from runner.encoding import goyaml

    return goyaml.load(data, ints=ints)


def _store(path: Path, value: Any) -> None:
    import tempfile  # only on a miss: it costs ~20 ms to import

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(handle.name, path)  # atomic: readers never see a partial entry
    except (OSError, pickle.PicklingError):
        pass
