"""`repo index DIR`: Helm's IndexDirectory, Merge, SortEntries and WriteFile/WriteJSONFile.

Every chart archive in DIR and its direct subdirectories becomes an entry: the
chart's metadata as encoding/json writes it, its URL (under --url when given),
the archive's SHA-256 and the time it was added. Entries of a --merge index are
kept unless DIR has the same chart version.
"""

from __future__ import annotations

import datetime
import fnmatch
import functools
import hashlib
import json
import os
import posixpath
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from runner.chart.gostructs import Struct, metadata_struct
from runner.chart.sources.errors import SourceError
from runner.chart.sources.fileutil import atomic_write_file
from runner.chart.sources.index import compare_versions
from runner.chart.sources.messages import Say
from runner.encoding.gojson import time_text


class Listed:
    """One chart version of the index being written, as Helm's ChartVersion marshals."""

    __slots__ = ("name", "version", "document")

    def __init__(self, name: str, version: str, document: Struct) -> None:
        self.name = name
        self.version = version
        self.document = document


Entries = dict[str, list[Listed]]


def index_directory(directory: Path, base_url: str) -> Entries:
    """IndexDirectory: archives that do not load as charts are passed over."""
    from runner.chart.errors import ChartError
    from runner.chart.loader import load_archive_file

    entries: Entries = {}
    for parent, archive in _archives(directory):
        try:
            chart = load_archive_file(archive)
        except (ChartError, OSError):
            continue
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
        parent_url = url_join(base_url, parent)
        url = url_join(parent_url, archive.name) if parent_url else archive.name
        md = chart.metadata
        document = metadata_struct(md)
        document.fields += [("urls", [url]), ("created", _now()), ("digest", digest)]
        entries.setdefault(md.name, []).append(Listed(md.name, md.version, document))
    return entries


def _archives(directory: Path) -> list[tuple[str, Path]]:
    """filepath.Glob of DIR/*.tgz then DIR/*/*.tgz, each in Go's (sorted) order."""
    top = [("", directory / name) for name in _matching(directory)]
    nested = []
    for sub in _matching_dirs(directory):
            nested += [(sub, directory / sub / name) for name in _matching(directory / sub)]
    return top + nested


def _matching_dirs(directory: Path) -> list[str]:
    try:
        return sorted(n for n in os.listdir(directory) if (directory / n).is_dir())
    except OSError:
        return []


def _matching(directory: Path) -> list[str]:
    try:
        names = os.listdir(directory)
    except OSError:  # Glob finds nothing where it cannot read
        return []
    return sorted(n for n in names if fnmatch.fnmatchcase(n, "*.tgz"))


def _now() -> str:
    return time_text(datetime.datetime.now(datetime.UTC))


def url_join(base_url: str, *paths: str) -> str:
    """urlutil.URLJoin: path.Join of the URL's path and `paths`, the URL written back."""
    parts = urlsplit(base_url)
    joined = _go_path_join(parts.path, *paths)
    return urlunsplit(parts._replace(path=quote(joined, safe="/$&+,:;=@")))


def _go_path_join(*parts: str) -> str:
    """path.Join: the non-empty parts joined with `/` and cleaned ("" when all are empty)."""
    given = [p for p in parts if p]
    if not given:
        return ""
    cleaned = posixpath.normpath("/".join(given))
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned


def merge_existing(entries: Entries, path: Path, as_json: bool, *, say: Say) -> None:
    """--merge: the index at `path` (made empty when missing) adds the versions DIR lacks
    (its skipped entries warned of to `say`)."""
    from runner.chart.sources.index import load_index

    if not path.exists():
        write_index({}, path, as_json)
        return
    try:
        existing = load_index(path.read_bytes(), str(path), say=say)
    except SourceError as exc:
        raise SourceError(f"merge failed: {exc}") from exc
    for versions in existing.entries.values():
        for cv in versions:
            have = entries.get(cv.name, [])
            if not any(item.version == cv.version for item in have):
                entries[cv.name] = [*have, Listed(cv.name, cv.version, _loaded_document(cv.raw))]


def _loaded_document(raw: dict[str, Any]) -> Struct:
    """An entry read from an index, as Helm writes it back after decoding it."""
    from runner.chart.chartfile import decode_metadata

    document = metadata_struct(decode_metadata(raw, what="index.yaml"))
    extra: list[tuple[str, Any]] = [("urls", [str(u) for u in raw.get("urls") or []])]
    extra.append(("created", _canonical_time(str(raw.get("created") or "0001-01-01T00:00:00Z"))))
    if raw.get("removed"):
        extra.append(("removed", True))
    if raw.get("digest"):
        extra.append(("digest", str(raw["digest"])))
    document.fields += extra
    return document


_TIME = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)")


def _canonical_time(text: str) -> str:
    """time.Time's JSON after a round trip: the fraction without trailing zeros."""
    match = _TIME.fullmatch(text)
    if match is None:
        return text
    fraction = (match.group(2) or "").rstrip("0")
    return match.group(1) + (f".{fraction}" if fraction else "") + match.group(3)


def sorted_entries(entries: Entries) -> Entries:
    """SortEntries: each chart's versions newest first."""
    order = functools.cmp_to_key(compare_versions)
    return {name: sorted(items, key=order, reverse=True) for name, items in entries.items()}


def write_index(entries: Entries, path: Path, as_json: bool) -> None:
    """WriteFile (YAML, keys sorted) or WriteJSONFile (struct order, 2-space indent), 0644."""
    generated = _now()
    if as_json:
        document = {"apiVersion": "v1", "generated": generated,
                    "entries": {name: [_ordered(item.document) for item in items]
                                for name, items in sorted(entries.items())}}
        text = _go_json_indent(document)
    else:
        from runner.encoding.goyaml import dump

        text = dump({"apiVersion": "v1", "generated": generated,
                     "entries": {name: [item.document.as_map() for item in items]
                                 for name, items in entries.items()}})
    atomic_write_file(path, text.encode(), 0o644)


def _ordered(value: Any) -> Any:
    if isinstance(value, Struct):
        return {k: _ordered(v) for k, v in value.fields}
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    if isinstance(value, dict):
        return {k: _ordered(value[k]) for k in sorted(value)}
    return value


def _go_json_indent(value: Any) -> str:
    """json.MarshalIndent(v, "", "  "): UTF-8 kept, <, >, & and U+2028/9 escaped as Go does."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


