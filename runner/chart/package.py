"""`helm package`: a chart directory written as <name>-<version>.tgz (Helm's chartutil.Save).

The archive holds what the loader kept (so .helmignore is honoured): Chart.yaml
re-encoded from the metadata (sigs.k8s.io/yaml, sorted keys; a v1 chart's
requirements are not written into it), Chart.lock for v2 charts, values.yaml
as written, values.schema.json, templates, other files, then each subchart
expanded under charts/. The gzip header carries Helm's extra field and
comment.
"""

from __future__ import annotations

import math
import os
import struct
import tarfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runner.chart.errors import ChartError
from runner.chart.gostructs import lock_struct, metadata_struct
from runner.chart.model import API_VERSION_V1, API_VERSION_V2, Chart
from runner.encoding.yamlemit import dump
from runner.golang import semver

HEADER_EXTRA = b"+aHR0cHM6Ly95b3V0dS5iZS96OVV6MWljandyTQo="
HEADER_COMMENT = b"Helm"


@dataclass(frozen=True)
class PackageOptions:
    version: str = ""
    app_version: str = ""
    destination: str = "."


def package_chart(path: str, options: PackageOptions,
                  on_warning: Callable[[str], None] = lambda line: None) -> Path:
    """Load the chart at `path`, apply --version/--app-version, check charts/, save the archive.
    What loading logs (a followed symlink, ...) goes to `on_warning`, as Helm logs it."""
    from runner.chart.loader import load_directory

    directory = Path(path)
    if not directory.exists():
        raise ChartError(f"stat {path}: no such file or directory")
    if not directory.is_dir():
        chart_yaml = directory.absolute() / "Chart.yaml"
        raise ChartError(f"unable to detect chart at {chart_yaml}: open {chart_yaml}: not a directory")
    chart = load_directory(directory)
    for line in chart.load_warnings:
        on_warning(str(line))
    if options.version:
        try:
            semver.new_version(options.version)
        except semver.SemverError as exc:
            raise ChartError("invalid semantic version") from exc
        chart.metadata.version = options.version
    if options.app_version:
        chart.metadata.app_version = options.app_version
    check_dependencies(chart)
    try:
        return save(chart, Path(options.destination), source=directory)
    except ChartError as exc:  # action.Package.Run wraps chartutil.Save's errors
        raise ChartError(f"failed to save: {exc}") from exc


def check_dependencies(chart: Chart) -> None:
    """CheckDependencies: every Chart.yaml dependency has a chart under charts/."""
    present = {dep.name() for dep in chart.dependencies}
    missing = [d.name for d in chart.metadata.dependencies if d.name not in present]
    if missing:
        raise ChartError(
            "an error occurred while checking chart dependencies. You may need to run "
            "`helm dependency build` to fetch missing dependencies: found in Chart.yaml, "
            f"but missing in charts/ directory: {', '.join(missing)}"
        )


def save(chart: Chart, out_dir: Path, source: Path | None = None) -> Path:
    """chartutil.Save: write <out_dir>/<name>-<version>.tgz and return its path.

    With the chart's directory as `source`, entries carry their files' modification
    times (rounded to the second, as Go's tar writer does), so packaging is reproducible.
    """
    target = out_dir / f"{chart.name()}-{chart.metadata.version}.tgz"
    if out_dir.exists() and not out_dir.is_dir():
        raise ChartError(f"is not a directory: {out_dir}")
    out_dir.mkdir(parents=True, exist_ok=True)
    data = archive_bytes(chart, source)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    partial.replace(target)
    return target


class _Stamps:
    """Modification times for archive entries: the file's own under `directory`, else a fallback."""

    def __init__(self, directory: Path | None, fallback: float) -> None:
        self.directory = directory
        self.fallback = fallback

    def of(self, name: str) -> int:
        if self.directory is not None:
            try:
                return _go_round((self.directory / name).stat().st_mtime)
            except OSError:
                pass
        return _go_round(self.fallback)

    def sub(self, name: str) -> _Stamps:
        directory = self.directory / "charts" / name if self.directory is not None else None
        if directory is not None and not directory.is_dir():
            directory = None
        return _Stamps(directory, self.of("Chart.yaml"))


def _go_round(seconds: float) -> int:
    return math.floor(seconds + 0.5)


def archive_bytes(chart: Chart, source: Path | None = None) -> bytes:
    tar: list[bytes] = []
    _write_chart(tar, chart, "", _Stamps(source, time.time()))
    tar.append(b"\0" * 1024)  # Go's tar.Writer.Close: two zero blocks, no record padding
    return gzip_with_header(b"".join(tar))


def _write_chart(tar: list[bytes], chart: Chart, prefix: str, stamps: _Stamps) -> None:
    base = f"{prefix}{chart.name()}"
    md = chart.metadata
    meta = metadata_struct(md, with_dependencies=md.api_version != API_VERSION_V1)
    _add(tar, f"{base}/Chart.yaml", dump(meta.as_map()).encode(), stamps.of("Chart.yaml"))
    if md.api_version == API_VERSION_V2 and chart.lock is not None:
        lock = lock_struct(chart.lock).as_map()
        lock["generated"] = str(lock["generated"])
        _add(tar, f"{base}/Chart.lock", dump(lock).encode(), stamps.of("Chart.lock"))
    for raw in chart.raw:
        if raw.name == "values.yaml":
            _add(tar, f"{base}/values.yaml", raw.data, stamps.of("values.yaml"))
    if chart.schema is not None:
        _check_schema_json(chart.schema)
        _add(tar, f"{base}/values.schema.json", chart.schema, stamps.of("values.schema.json"))
    for file in [*chart.templates, *chart.files]:
        _add(tar, f"{base}/{file.name}", file.data, stamps.of(file.name))
    for dep in chart.dependencies:
        _write_chart(tar, dep, f"{base}/charts/", stamps.sub(dep.name()))


def _check_schema_json(schema: bytes) -> None:
    """Go's json.Valid (NaN and Infinity, which Python's json reads, are not JSON)."""
    from runner.encoding.jsonscan import syntax_error

    if syntax_error(schema.decode("utf-8", "replace")) is not None:
        raise ChartError("invalid JSON in values.schema.json")


def _add(tar: list[bytes], name: str, data: bytes, mtime: int) -> None:
    """One regular-file entry framed as Go's archive/tar writes it (USTAR; PAX for long names)."""
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    info.mtime = mtime
    try:
        header = _go_ustar(info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape"))
    except ValueError:  # a name USTAR cannot hold
        header = info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")
    tar.append(header + data + b"\0" * (-len(data) % tarfile.BLOCKSIZE))


def _go_ustar(header: bytes) -> bytes:
    """Go writes devmajor/devminor as zero octal fields; Python leaves them empty for files."""
    block = bytearray(header)
    block[329:337] = b"0000000\0"
    block[337:345] = b"0000000\0"
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block)


def gzip_with_header(payload: bytes) -> bytes:
    """gzip as Go's gzip.Writer writes it with Helm's Extra and Comment set."""
    flags = 0x04 | 0x10  # FEXTRA | FCOMMENT
    header = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", 0) + b"\x00\xff"
    header += struct.pack("<H", len(HEADER_EXTRA)) + HEADER_EXTRA + HEADER_COMMENT + b"\x00"
    compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    body = compressor.compress(payload) + compressor.flush()
    trailer = struct.pack("<II", zlib.crc32(payload) & 0xFFFFFFFF, len(payload) & 0xFFFFFFFF)
    return header + body + trailer
