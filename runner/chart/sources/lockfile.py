"""Chart.lock digests and files (Helm's resolver.HashReq and manager.writeLock)."""

from __future__ import annotations

import datetime
import hashlib
from pathlib import Path

from runner.chart.gostructs import dependency_struct, lock_struct, marshal
from runner.chart.model import Dependency, Lock
from runner.encoding.gojson import time_text
from runner.encoding.yamlemit import dump


def _deps_json(deps: list[Dependency] | None) -> str:
    if deps is None:
        return "null"
    return marshal([dependency_struct(d) for d in deps])


def hash_req(req: list[Dependency] | None, lock: list[Dependency] | None) -> str:
    """sha256 of json.Marshal([2][]*Dependency{req, lock}), prefixed "sha256:"."""
    data = f"[{_deps_json(req)},{_deps_json(lock)}]".encode()
    return "sha256:" + hashlib.sha256(data).hexdigest()


def now_text() -> str:
    """time.Now() as encoding/json writes it (local zone, nanoseconds trimmed to micro)."""
    return time_text(datetime.datetime.now().astimezone())


def lock_yaml(lock: Lock) -> str:
    doc = lock_struct(lock).as_map()
    doc["generated"] = str(doc["generated"])
    return dump(doc)


def write_lock(chart_dir: Path, lock: Lock, legacy: bool) -> Path:
    target = chart_dir / ("requirements.lock" if legacy else "Chart.lock")
    target.write_text(lock_yaml(lock))
    return target
