"""Reading chart archives (.tgz) safely, in memory (Helm's loader/archive.go, stricter).

Every entry is checked before its bytes are kept: names must stay under the
archive's top directory (no absolute paths, `..`, drive letters), only regular
files and directories are accepted (links, devices and FIFOs are refused),
a name may appear once, each file is capped at MAX_FILE_SIZE and the whole
decompressed stream at MAX_CHART_SIZE, so a gzip bomb stops early. Nothing is
written to disk; `extract` writes a vetted file list under a destination.
"""

from __future__ import annotations

import io
import posixpath

from runner.chart.errors import ArchiveError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    import tarfile  # imported where archives are read: with shutil, bz2 and lzma it costs ~5 ms
    from pathlib import Path  # pathlib, zlib: not loaded for a chart directory
    from typing import BinaryIO

MAX_CHART_SIZE = 100 * 1024 * 1024  # Helm's MaxDecompressedChartSize
MAX_FILE_SIZE = 5 * 1024 * 1024  # Helm's MaxDecompressedFileSize
UTF8_BOM = b"\xef\xbb\xbf"


class _LimitedReader(io.RawIOBase):
    """Decompressed stream that fails once more than `limit` bytes were produced."""

    def __init__(self, raw: BinaryIO, limit: int) -> None:
        import gzip

        self._gz = gzip.GzipFile(fileobj=raw, mode="rb")
        self._left = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        import zlib  # loaded by gzip already

        try:
            data = self._gz.read(min(len(buffer), self._left + 1))
        except (OSError, EOFError, zlib.error) as exc:
            raise ArchiveError(f"gzip: invalid archive: {exc}") from exc
        self._left -= len(data)
        if self._left < 0:
            raise ArchiveError(
                f"decompressed chart is larger than the maximum size {MAX_CHART_SIZE}"
            )
        buffer[: len(data)] = data
        return len(data)


def is_gzip(data: bytes) -> bool:
    return data[:3] == b"\x1f\x8b\x08"


def read_archive(data: bytes, source: str = "chart archive") -> list[tuple[str, bytes]]:
    """(name relative to the chart root, bytes) for every file of a chart archive."""
    import tarfile

    if not is_gzip(data):
        raise ArchiveError(f"{source}: gzip: invalid header")
    stream = io.BufferedReader(_LimitedReader(io.BytesIO(data), MAX_CHART_SIZE + 1024 * 1024))
    files: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    remaining = MAX_CHART_SIZE
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:
            for member in tar:
                if member.isdir():
                    continue
                name = _entry_name(member, source)
                _check_entry(member, name, seen, remaining, source)
                handle = tar.extractfile(member)
                content = handle.read() if handle is not None else b""
                remaining -= len(content)
                files.append((name, content.removeprefix(UTF8_BOM)))
    except tarfile.TarError as exc:
        raise ArchiveError(f"{source}: {exc}") from exc
    if not files:
        raise ArchiveError("no files in chart archive")
    return files


def _entry_name(member: tarfile.TarInfo, source: str) -> str:
    raw = member.name
    delimiter = "\\" if "\\" in raw else "/"
    parts = raw.split(delimiter)
    name = "/".join(parts[1:])
    if name.startswith("/"):
        raise ArchiveError("chart illegally contains absolute paths")
    name = posixpath.normpath(name) if name else "."
    if name == ".":
        if parts[0] == "Chart.yaml":
            raise ArchiveError("chart yaml not in base directory")
        raise ArchiveError(f'chart illegally contains content outside the base directory: "{raw}"')
    if name.startswith(".."):
        raise ArchiveError("chart illegally references parent directory")
    if _is_drive_path(name) or raw.startswith("/") or parts[0] in ("", ".."):
        raise ArchiveError("chart contains illegally named files")
    return name


def _is_drive_path(name: str) -> bool:
    """Helm's `^[a-zA-Z]:/`: a Windows drive letter."""
    return name[1:3] == ":/" and name[0].isascii() and name[0].isalpha()


def _check_entry(
    member: tarfile.TarInfo, name: str, seen: set[str], remaining: int, source: str
) -> None:
    if member.issym() or member.islnk():
        raise ArchiveError(
            f"{source}: chart contains a link, which is not allowed: {member.name!r}"
        )
    if not member.isfile():
        raise ArchiveError(
            f"{source}: chart contains an irregular file (device, FIFO): {member.name!r}"
        )
    if name in seen:
        raise ArchiveError(f"{source}: chart contains a duplicate entry: {member.name!r}")
    seen.add(name)
    if member.size > remaining:
        raise ArchiveError(f"decompressed chart is larger than the maximum size {MAX_CHART_SIZE}")
    if member.size > MAX_FILE_SIZE:
        raise ArchiveError(
            f'decompressed chart file "{member.name}" is larger than the maximum file size {MAX_FILE_SIZE}'
        )


def extract(files: list[tuple[str, bytes]], destination: Path) -> None:
    """Write vetted archive files under `destination`, refusing any path that escapes it."""
    root = destination.resolve()
    for name, content in files:
        target = (root / name).resolve()
        if root != target and root not in target.parents:
            raise ArchiveError(f"refusing to write {name!r} outside {destination}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
