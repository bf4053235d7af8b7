"""Reading chart archives (.tgz) safely, in memory (Helm's loader/archive.go).

Every entry is checked as Helm checks it, in Helm's order and words, before its
bytes are kept: the name less its first part must stay under the chart (no
absolute path, `..`, drive letter); each file is capped at MAX_FILE_SIZE and the
whole decompressed stream at MAX_CHART_SIZE, so a gzip bomb stops early. As in
Go's archive/tar, links, devices and FIFOs carry no data: each is a file with
no content, never followed (Helm reads them so; nothing is resolved or opened).
A name that appears twice is kept twice, as Helm keeps it. Nothing is written to
disk; `extract` writes the vetted files under a destination, as chartutil.Expand
does (securejoin: nothing lands outside it).
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
        except EOFError as exc:
            raise ArchiveError("unexpected EOF") from exc  # Go's io.ErrUnexpectedEOF
        except (OSError, zlib.error) as exc:
            raise ArchiveError(_go_gzip_error(exc)) from exc
        self._left -= len(data)
        if self._left < 0:
            raise ArchiveError(
                f"decompressed chart is larger than the maximum size {MAX_CHART_SIZE}"
            )
        buffer[: len(data)] = data
        return len(data)


def _go_gzip_error(exc: BaseException) -> str:
    """Go's compress/gzip and compress/flate words for a damaged stream."""
    text = str(exc)
    if "CRC check failed" in text or "Incorrect length" in text:
        return "gzip: invalid checksum"
    if "Not a gzipped file" in text:
        return "gzip: invalid header"
    return f"flate: corrupt input ({text})"  # Go names the offset, which zlib does not give


def is_gzip(data: bytes) -> bool:
    return data[:3] == b"\x1f\x8b\x08"


def read_archive(data: bytes) -> list[tuple[str, bytes]]:
    """(name relative to the chart root, bytes) for every file of a chart archive; a
    failure in Go's words, without the archive's name (Helm reads a stream)."""
    import tarfile

    if not is_gzip(data):
        raise ArchiveError("gzip: invalid header")
    stream = io.BufferedReader(_LimitedReader(io.BytesIO(data), MAX_CHART_SIZE + 1024 * 1024))
    files: list[tuple[str, bytes]] = []
    remaining = MAX_CHART_SIZE
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:
            for member in tar:
                if member.isdir():
                    continue
                name = _entry_name(member)
                _check_size(member, remaining)
                content = _content(tar, member)
                remaining -= len(content)
                files.append((name, content.removeprefix(UTF8_BOM)))
    except (tarfile.TarError, EOFError) as exc:
        raise ArchiveError(_go_tar_error(exc)) from exc
    if not files:
        raise ArchiveError("no files in chart archive")
    return files


def _content(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    """A regular file's bytes; nothing for a link, device or FIFO (Go's tar reader gives
    such header-only entries no data, whatever size their header claims)."""
    if not member.isfile():
        return b""
    handle = tar.extractfile(member)
    return handle.read() if handle is not None else b""


def _go_tar_error(exc: BaseException) -> str:
    """What Go's gzip and tar readers say where Python's differ."""
    text = str(exc)
    if isinstance(exc, EOFError) or "truncated" in text or "unexpected end" in text:
        return "unexpected EOF"
    if "bad checksum" in text or "invalid header" in text or "empty header" in text:
        return "archive/tar: invalid tar header"
    return text


def _entry_name(member: tarfile.TarInfo) -> str:
    """The entry's name without its first part, refused in Helm's order and words."""
    raw = member.name
    delimiter = "\\" if "\\" in raw else "/"
    parts = raw.split(delimiter)
    name = "/".join(parts[1:])
    if name.startswith("/"):
        raise ArchiveError("chart illegally contains absolute paths")
    name = posixpath.normpath(name) if name else "."
    if name == ".":
        raise ArchiveError(f'chart illegally contains content outside the base directory: "{raw}"')
    if name.startswith(".."):
        raise ArchiveError("chart illegally references parent directory")
    if _is_drive_path(name):
        raise ArchiveError("chart contains illegally named files")
    if parts[0] == "Chart.yaml":
        raise ArchiveError("chart yaml not in base directory")
    return name


def _is_drive_path(name: str) -> bool:
    """Helm's `^[a-zA-Z]:/`: a Windows drive letter."""
    return name[1:3] == ":/" and name[0].isascii() and name[0].isalpha()


def _check_size(member: tarfile.TarInfo, remaining: int) -> None:
    if not member.isfile():
        return  # no data (see _content)
    if member.size > remaining:
        raise ArchiveError(f"decompressed chart is larger than the maximum size {MAX_CHART_SIZE}")
    if member.size > MAX_FILE_SIZE:
        raise ArchiveError(
            f'decompressed chart file "{member.name}" is larger than the maximum file size {MAX_FILE_SIZE}'
        )


def expand(data: bytes, destination: Path) -> Path:
    """chartutil.Expand: the archive's files under destination/<its Chart.yaml's name> (the
    last Chart.yaml names it, as Go's loop leaves it); the chart's directory."""
    from runner.chart.chartfile import load_yaml_document
    from runner.golang.strconv import quote

    files = read_archive(data)
    name = ""
    for file, content in files:
        if file == "Chart.yaml":
            doc = load_yaml_document(content, "Chart.yaml", ints=True)
            name = str(doc.get("name") or "") if isinstance(doc, dict) else ""
    if not name:
        raise ArchiveError("chart name not specified")
    if name in (".", ".."):
        raise ArchiveError(f"chart name {quote(name)} is not allowed")
    return extract(files, destination, name)


def extract(files: list[tuple[str, bytes]], destination: Path, chart_name: str) -> Path:
    """Write vetted archive files under destination/chart_name (chartutil.Expand); the
    chart's directory. Names are joined as securejoin does (`..` stops at the directory),
    and a path an existing link would lead outside it is refused."""
    from pathlib import Path

    root = Path(secure_join(str(destination.resolve()), chart_name))
    for name, content in files:
        target = Path(secure_join(str(root), name))
        real = target.parent.resolve() / target.name
        if root.resolve() not in (real, *real.parents) or target.is_symlink():
            raise ArchiveError(f"refusing to write {name!r} outside {root}")
        _write(target, content)
    return root


def _write(target: Path, content: bytes) -> None:
    """os.MkdirAll and os.WriteFile, failing in Go's words (two entries of an archive can
    ask for a file and a directory of the same name)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocking = next((p for p in (target.parent, *target.parent.parents) if p.exists()), target.parent)
        raise ArchiveError(f"mkdir {blocking}: not a directory") from exc
    try:
        target.write_bytes(content)
    except IsADirectoryError as exc:
        raise ArchiveError(f"open {target}: is a directory") from exc


def secure_join(root: str, name: str) -> str:
    """`name` under `root` as securejoin.SecureJoin cleans it: `..` never climbs above root."""
    kept: list[str] = []
    for part in name.split("/"):
        if part == "..":
            if kept:
                kept.pop()
        elif part not in ("", "."):
            kept.append(part)
    return posixpath.join(root, *kept)
