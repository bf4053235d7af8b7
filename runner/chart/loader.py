"""Loading charts from directories and .tgz archives (Helm's pkg/chart/loader and v2/loader).

`load_chart(path)` is the entry point. A directory is walked in lexical order
(following symlinks, as Helm's sympath does) minus what .helmignore and
Helm's default rule (`templates/.?*`) exclude; an archive is read in memory by
`archive.read_archive`. Both end in `load_files`, which sorts files into the
Chart the way LoadFiles does and loads charts/ recursively.
"""

from __future__ import annotations

import os
import stat

from runner.chart import archive
from runner.chart.chartfile import (
    decode_lock,
    decode_metadata,
    load_yaml_document,
    validate_metadata,
)
from runner.chart.errors import ArchiveError, ChartError
from runner.chart.ignore import HELM_IGNORE, Rules
from runner.chart.logs import Warning, Warnings  # noqa: A004 - Helm's log line
from runner.chart.model import API_VERSION_V1, API_VERSION_V3, Chart, ChartFile, Metadata

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

# What Helm's actions say of a chart its v3 loader read: they take chart v2 only.
INVALID_API_VERSION = "invalid chart apiVersion"
_REQUIREMENTS_WARNING = (
    'Warning: Dependencies are handled in Chart.yaml since apiVersion "v2". '
    "We recommend migrating dependencies to Chart.yaml."
)
_REQUIREMENTS_LOCK_WARNING = (
    'Warning: Dependency locking is handled in Chart.lock since apiVersion "v2". '
    "We recommend migrating to Chart.lock."
)


def load_chart(path: str | os.PathLike[str], detect: bool = True) -> Chart:
    """Load a chart directory or a chart archive (.tgz) with its subcharts. `detect`:
    first read the apiVersion as Helm 4's version-detecting loader does (`show` uses
    the chart v2 loader straight, which does not)."""
    if not os.path.exists(path):
        raise ChartError(f"stat {path}: no such file or directory")
    if os.path.isdir(path):
        return load_directory(path, detect)
    return load_archive_file(path, detect)


def load_directory(directory: str | os.PathLike[str], detect: bool = True) -> Chart:
    # os.path rather than pathlib: importing pathlib (urllib.parse, ipaddress) costs ~3 ms a run.
    top = os.path.realpath(directory)
    chart_yaml = os.path.join(top, "Chart.yaml")
    if detect and not os.path.isfile(chart_yaml):
        raise ChartError(
            f"unable to detect chart at {chart_yaml}: open {chart_yaml}: no such file or directory"
        )
    v3 = False
    if detect:
        with open(chart_yaml, "rb") as handle:
            v3 = _is_v3(handle.read())
    walk = walk_chart_directory(top)
    chart = load_files(walk.files, v3=v3)
    if v3:
        raise ChartError(INVALID_API_VERSION)
    chart.load_warnings[:0] = walk.warnings.items  # the walk logs before LoadFiles runs
    return chart


def walk_chart_directory(top: str | os.PathLike[str]) -> _Walk:
    """The chart directory's files (`top`: a resolved path), as Helm's loader walks them
    with .helmignore applied."""
    top = os.fspath(top)
    rules = Rules()
    ignore_file = os.path.join(top, HELM_IGNORE)
    if os.path.isfile(ignore_file):
        with open(ignore_file, errors="replace") as handle:
            rules = Rules.parse(handle.read())
    rules.add_defaults()
    walk = _Walk(rules)
    walk.directory(top, "")
    return walk


class _Walk:
    """Helm's sympath.Walk over a chart directory: lexical order, symlinks followed and logged.

    Paths are strings and entry types come from scandir: a chart has hundreds of
    files, and pathlib plus a stat per question cost more than reading them.
    A linked directory is walked through the link's path, as sympath does: a link
    to a directory above it is followed until the OS refuses the path (ELOOP,
    `too many levels of symbolic links`), which is Helm's error too.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.files: list[tuple[str, bytes]] = []
        self.warnings = Warnings()

    def directory(self, directory: str, prefix: str) -> None:
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as exc:
            raise ChartError(f"open {directory}: {_go_errno(exc)}") from None
        for entry in entries:
            name = prefix + entry.name
            if entry.is_symlink():
                real = self._resolve_link(entry.path)
                self._entry(real, entry.path, name, os.path.isdir(real))
            else:
                self._entry(entry.path, entry.path, name, entry.is_dir())

    def _resolve_link(self, link: str) -> str:
        try:
            resolved = os.path.realpath(link, strict=True)
        except OSError as exc:
            missing = exc.filename or os.readlink(link)
            raise ChartError(
                f"error evaluating symlink {link}: lstat {missing}: no such file or directory"
            ) from None
        self.warnings.info(
            "found symbolic link in path. Contents of linked file included and used",
            path=link,
            resolved=resolved,
        )
        return resolved

    def _entry(self, full: str, shown: str, name: str, is_dir: bool) -> None:
        if is_dir:
            if not self.rules.ignore(name, True):
                self.directory(shown, name + "/")
            return
        if self.rules.ignore(name, False):
            return
        info = os.stat(full)
        if not stat.S_ISREG(info.st_mode):
            raise ChartError(
                f"cannot load irregular file {shown} as it has file mode type bits set"
            )
        if info.st_size > archive.MAX_FILE_SIZE:
            raise ChartError(
                f'chart file "{os.path.basename(shown)}" is larger than the maximum file size '
                f"{archive.MAX_FILE_SIZE}"
            )
        with open(full, "rb") as handle:
            self.files.append((name, handle.read().removeprefix(archive.UTF8_BOM)))


def _go_errno(exc: OSError) -> str:
    """Go's text for an errno (lower case, as syscall.Errno prints it)."""
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


def load_archive_file(archive_path: str | os.PathLike[str], detect: bool = True) -> Chart:
    """A chart archive named on the command line (Helm 4's archive loader and its messages;
    `detect`: see load_chart)."""
    from pathlib import Path

    path = Path(archive_path).absolute()
    data = path.read_bytes()
    if not archive.is_gzip(data):
        if path.name.endswith((".yml", ".yaml")):
            raise ChartError(
                f"file '{path}' seems to be a YAML file, but expected a gzipped archive"
            )
        raise ChartError(
            f"file '{path}' does not appear to be a gzipped archive; got 'application/octet-stream'"
        )
    try:
        files = archive.read_archive(data)
    except ArchiveError as exc:
        # Helm 4 says only "unable to load chart archive"; we keep its words and add why.
        raise ArchiveError(f"unable to load chart archive: {exc}") from exc
    if not detect:  # the chart v2 loader straight: it reports a missing Chart.yaml itself
        return load_files(files)
    if not any(name == "Chart.yaml" for name, _ in files):
        raise ChartError("unable to detect chart version, no Chart.yaml found")
    return _load_archive_files(files)


def load_archive_bytes(data: bytes, v3: bool = False) -> Chart:
    """A chart archive held in memory (a subchart's .tgz: no apiVersion dispatch, as in Go:
    it is read by the loader of its parent's apiVersion)."""
    return load_files(archive.read_archive(data), v3=v3)


def _load_archive_files(files: list[tuple[str, bytes]]) -> Chart:
    chart_yaml = next((d for n, d in files if n == "Chart.yaml"), None)
    v3 = chart_yaml is not None and _is_v3(chart_yaml)
    chart = load_files(files, v3=v3)
    if v3:
        raise ChartError(INVALID_API_VERSION)
    return chart


def _is_v3(chart_yaml: bytes) -> bool:
    """Helm 4 picks a loader by apiVersion: v1/v2 (or none) the chart v2 loader, v3 the
    chart v3 loader, anything else is refused. A v3 chart is loaded and validated in full
    (Chart.yaml, values, files, subcharts) before the action refuses its apiVersion, so
    its load errors come first, as in Helm."""
    doc = load_yaml_document(chart_yaml, "Chart.yaml")
    if doc is not None and not isinstance(doc, dict):
        kind = "array" if isinstance(doc, list) else "string" if isinstance(doc, str) else "number"
        raise ChartError(
            "cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: "
            f"json: cannot unmarshal {kind} into Go value of type loader.chartBase"
        )
    version = (doc or {}).get("apiVersion") or ""
    if version in ("", "v1", "v2"):
        return False
    if version == API_VERSION_V3:
        return True
    raise ChartError("unsupported chart version")


def load_files(files: list[tuple[str, bytes]], v3: bool = False) -> Chart:
    """Sort named files into a Chart (Helm's LoadFiles) and load its charts/ recursively.
    `v3`: as the chart v3 loader (an apiVersion defaults to v3; requirements.yaml and
    requirements.lock are plain files)."""
    metadata: Metadata | None = None
    for name, data in files:
        if name == "Chart.yaml":
            metadata = decode_metadata(load_yaml_document(data, "Chart.yaml", ints=True))
            metadata.api_version = metadata.api_version or (API_VERSION_V3 if v3 else API_VERSION_V1)
    chart = Chart(metadata=metadata or Metadata())
    chart.raw = [ChartFile(n, d) for n, d in files]
    subcharts: dict[str, list[tuple[str, bytes]]] = {}
    for name, data in files:
        if name == "Chart.yaml":
            continue
        if name.startswith("charts/") and not name.endswith(".prov"):
            rest = name[len("charts/") :]
            subcharts.setdefault(rest.split("/", 1)[0], []).append((rest, data))
            continue
        if v3 and name in ("requirements.yaml", "requirements.lock"):
            chart.files.append(ChartFile(name, data))
            continue
        metadata = _place_file(chart, metadata, name, data)
    if metadata is None:
        raise ChartError("Chart.yaml file is missing")
    chart.metadata = metadata
    validate_metadata(metadata)
    for sub_name in sorted(subcharts):
        sub = _load_subchart(chart, sub_name, subcharts[sub_name], v3)
        if sub is not None:
            chart.add_dependency(sub)
            chart.load_warnings.extend(sub.load_warnings)  # logged in load order
    return chart


def _place_file(chart: Chart, metadata: Metadata | None, name: str, data: bytes) -> Metadata | None:
    if name == "Chart.lock":
        chart.lock = decode_lock(load_yaml_document(data, name, ints=True), name)
    elif name == "values.yaml":
        chart.values = load_values(data, "values.yaml")
        chart.raw_values = data
    elif name == "values.schema.json":
        chart.schema = data
    elif name == "requirements.yaml":
        metadata = metadata or Metadata()
        if metadata.api_version != API_VERSION_V1:
            chart.load_warnings.append(Warning(_REQUIREMENTS_WARNING))
        decode_metadata(load_yaml_document(data, name, ints=True), metadata, name)
        if metadata.api_version == API_VERSION_V1:
            chart.files.append(ChartFile(name, data))
    elif name == "requirements.lock":
        chart.lock = decode_lock(load_yaml_document(data, name, ints=True), name)
        metadata = metadata or Metadata()
        if metadata.api_version != API_VERSION_V1:
            chart.load_warnings.append(Warning(_REQUIREMENTS_LOCK_WARNING))
        else:
            chart.files.append(ChartFile(name, data))
    elif name.startswith("templates/"):
        chart.templates.append(ChartFile(name, data))
    else:
        chart.files.append(ChartFile(name, data))
    return metadata


def _load_subchart(parent: Chart, name: str, files: list[tuple[str, bytes]],
                   v3: bool) -> Chart | None:
    if name[:1] in ("_", "."):
        return None
    if name.endswith(".tgz") and files[0][0] != name:  # a directory named *.tgz: not wrapped
        raise ChartError(
            f"error unpacking subchart tar in {parent.name()}: expected {name}, got {files[0][0]}"
        )
    try:
        if name.endswith(".tgz"):
            return load_archive_bytes(files[0][1], v3=v3)
        inner = [(n.split("/", 1)[1], d) for n, d in files if "/" in n]
        return load_files(inner, v3)
    except ChartError as exc:
        raise ChartError(f"error unpacking subchart {name} in {parent.name()}: {exc}") from exc


def load_values(data: bytes, what: str = "values.yaml", *, remember: bool = True) -> dict[str, Any]:
    """Helm's LoadValues: every YAML document must be a map; documents merge, later wins.
    `remember=False` for a user's file: see chartfile.load_yaml_document."""
    values: dict[str, Any] = {}
    for document in _split_documents(data, what):
        try:
            doc = load_yaml_document(document, what, remember=remember)
        except ChartError as exc:
            detail = str(exc).split(": ", 1)[1]
            raise ChartError(
                f"cannot load {what}: cannot unmarshal yaml document: {detail}"
            ) from exc
        if doc is None:
            continue
        if not isinstance(doc, dict):
            kind = (
                "array" if isinstance(doc, list) else "string" if isinstance(doc, str) else "number"
            )
            raise ChartError(
                f"cannot load {what}: cannot unmarshal yaml document: error unmarshaling JSON: "
                f"while decoding JSON: json: cannot unmarshal {kind} into Go value of type "
                "map[string]interface {}"
            )
        values = merge_maps(values, doc)
    return values


def _split_documents(data: bytes, what: str) -> list[bytes]:
    """k8s.io/apimachinery's YAMLReader: `---` lines split; only a comment may follow them."""
    documents: list[bytes] = []
    start = 0
    separator = 0 if data.startswith(b"---") else _next_separator(data, 0)
    while separator >= 0:
        line_end = data.find(b"\n", separator)
        line_end = len(data) if line_end < 0 else line_end
        rest = data[separator + 3 : line_end].strip()
        if rest and not rest.startswith(b"#"):
            raise ChartError(
                f"cannot load {what}: error reading yaml document: "
                f"invalid Yaml document separator: {rest.decode(errors='replace')}"
            )
        documents.append(data[start : max(separator - 1, start)])  # without the newline before it
        start = line_end + 1
        separator = _next_separator(data, line_end)
    documents.append(data[start:])
    return [d for d in documents if d.strip()]


def _next_separator(data: bytes, pos: int) -> int:
    """Where the next line starting with `---` after `pos` starts, or -1."""
    found = data.find(b"\n---", pos)
    return found + 1 if found >= 0 else -1


def merge_maps(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Helm's MergeMaps: b wins, nested maps merge recursively."""
    out = dict(a)
    for key, value in b.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_maps(out[key], value)
        else:
            out[key] = value
    return out
