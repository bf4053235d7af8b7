"""Malformed and malicious chart archives (.tgz bytes), built with tarfile: path escapes,
links, device files and FIFOs, bombs, huge and duplicate entries, names that are not
UTF-8. Each starts from a small valid chart `hostile` (Chart.yaml, values.yaml, one
template) unless the case is about the chart's own files."""

from __future__ import annotations

import gzip
import io
import tarfile
import zlib
from collections.abc import Callable, Iterable

CHART_YAML = b"apiVersion: v2\nname: hostile\nversion: 0.1.0\n"
VALUES = b"message: hello\n"
TEMPLATE = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  m: {{ .Values.message | quote }}\n"
BASE = (("hostile/Chart.yaml", CHART_YAML), ("hostile/values.yaml", VALUES),
        ("hostile/templates/cm.yaml", TEMPLATE))
MIB = 1 << 20


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    return info, data


def _special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, linkname, 0o644
    if kind in (tarfile.CHRTYPE, tarfile.BLKTYPE):
        info.devmajor, info.devminor = 1, 5  # /dev/zero
    return info, b""


def tgz(entries: Iterable[tuple[tarfile.TarInfo, bytes]], *, base: bool = True,
        encoding: str = "utf-8", level: int = 6) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT, encoding=encoding,
                      errors="surrogateescape") as tar:
        for name, data in BASE if base else ():
            tar.addfile(*_file(name, data)[:1], io.BytesIO(data))
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return gzip.compress(raw.getvalue(), compresslevel=level)


def _zeros_tgz(name: str, size: int) -> bytes:
    """The base chart and `size` zero bytes under `name`, gzipped as they are streamed (a
    bomb is ~1000x smaller than what it expands to; nothing that large is held in memory)."""
    info = tarfile.TarInfo(name)
    info.size, info.mode = size, 0o644
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: the gzip format
    out = [compressor.compress(_base_tar() + info.tobuf(tarfile.GNU_FORMAT))]
    chunk = b"\0" * MIB
    for start in range(0, size, MIB):
        out.append(compressor.compress(chunk[: min(MIB, size - start)]))
    end = b"\0" * ((-size) % tarfile.BLOCKSIZE + 2 * tarfile.BLOCKSIZE)  # padding, end of archive
    out += [compressor.compress(end), compressor.flush()]
    return b"".join(out)


def _base_tar() -> bytes:
    """The base files as tar blocks, without the end-of-archive marker."""
    raw = b""
    for name, data in BASE:
        info, _ = _file(name, data)
        raw += info.tobuf(tarfile.GNU_FORMAT) + data + b"\0" * ((-len(data)) % tarfile.BLOCKSIZE)
    return raw


def _gzip_of_gzip() -> bytes:
    return gzip.compress(tgz(()))


ARCHIVES: dict[str, Callable[[], bytes]] = {
    "valid": lambda: tgz(()),
    # path escapes
    "dot-dot in the chart": lambda: tgz([_file("hostile/../evil.yaml", b"x: 1\n")]),
    "dot-dot deep": lambda: tgz([_file("hostile/templates/../../../../tmp/evil.yaml", b"x: 1\n")]),
    "dot-dot top": lambda: tgz([_file("../evil.yaml", b"x: 1\n")]),
    "absolute": lambda: tgz([_file("/tmp/evil.yaml", b"x: 1\n")]),
    "absolute inside": lambda: tgz([_file("hostile//tmp/evil.yaml", b"x: 1\n")]),
    "backslashes": lambda: tgz([_file("hostile\\templates\\..\\..\\evil.yaml", b"x: 1\n")]),
    "drive letter": lambda: tgz([_file("hostile/c:/evil.yaml", b"x: 1\n")]),
    "Chart.yaml at the top": lambda: tgz([_file("Chart.yaml", CHART_YAML)], base=False),
    "chart named ..": lambda: tgz([_file("hostile/Chart.yaml", CHART_YAML.replace(b"name: hostile", b"name: .."))]),
    # links
    "symlink out": lambda: tgz([_special("hostile/templates/passwd.yaml", tarfile.SYMTYPE, "/etc/passwd")]),
    "symlink up": lambda: tgz([_special("hostile/templates/up.yaml", tarfile.SYMTYPE, "../../../etc/passwd")]),
    "symlink dir then file": lambda: tgz([_special("hostile/templates/d", tarfile.SYMTYPE, "/tmp"),
                                          _file("hostile/templates/d/evil.yaml", b"x: 1\n")]),
    "hard link in": lambda: tgz([_special("hostile/templates/hard.yaml", tarfile.LNKTYPE,
                                          "hostile/templates/cm.yaml")]),
    "hard link out": lambda: tgz([_special("hostile/templates/hard.yaml", tarfile.LNKTYPE, "/etc/passwd")]),
    # special files
    "char device": lambda: tgz([_special("hostile/templates/zero.yaml", tarfile.CHRTYPE)]),
    "block device": lambda: tgz([_special("hostile/templates/disk.yaml", tarfile.BLKTYPE)]),
    "fifo": lambda: tgz([_special("hostile/templates/fifo.yaml", tarfile.FIFOTYPE)]),
    # bombs and sizes
    "gzip bomb (200 MiB of zeros)": lambda: _zeros_tgz("hostile/files/zeros", 200 * MIB),
    "file over 5 MiB": lambda: _zeros_tgz("hostile/files/big", 5 * MIB + 1),
    "file of 5 MiB": lambda: _zeros_tgz("hostile/files/big", 5 * MIB),
    "many files (20000)": lambda: tgz([_file(f"hostile/files/f{i}", b"") for i in range(20000)]),
    "gzip inside gzip": _gzip_of_gzip,
    "not gzip": lambda: b"plain text, not an archive\n" * 10,
    "truncated": lambda: tgz(())[:-40],
    "empty tar": lambda: tgz((), base=False),
    # duplicates and names
    "duplicate template": lambda: tgz([_file("hostile/templates/cm.yaml", TEMPLATE.replace(b"m:", b"n:"))]),
    "duplicate values": lambda: tgz([_file("hostile/values.yaml", b"message: second\n")]),
    "duplicate Chart.yaml": lambda: tgz([_file("hostile/Chart.yaml", CHART_YAML.replace(b"0.1.0", b"0.2.0"))]),
    "non-UTF-8 name": lambda: tgz([_file("hostile/templates/\udcff\udcfe.yaml", TEMPLATE.replace(b"name: {{ .Release.Name }}", b"name: x2"))],
                                  encoding="utf-8"),
    "non-UTF-8 name outside templates": lambda: tgz([_file("hostile/files/\udce9t\udce9.txt", b"x")]),
    "long name (PAX/GNU)": lambda: tgz([_file("hostile/files/" + "d" * 120 + "/" + "n" * 150 + ".txt", b"x")]),
}
