"""Helm's release encoding: JSON, gzip (best compression), standard base64.

Secrets hold this string as `data.release` (so the API base64s it once more);
ConfigMaps hold it as is. Decoding is Helm's decodeRelease (base64, gunzip
when the gzip magic is there: records written before compression are plain
JSON, json.Unmarshal into the Release struct) and says what is wrong as Helm
does: `get: failed to decode data "sh.helm.release.v1.x.v3": <Go's error>`.
Beyond Helm, a record may not decompress past MAX_RECORD_BYTES (a gzip bomb
in a 700 KB Secret would cost every command 1 GiB), and one Helm would read
but could not place is refused (runner.release.recordcheck).

Encoding refuses what Helm could not read back (NaN or infinities, which
json.Marshal rejects; nesting over encoding/json's 10000), before anything
is written; invalid UTF-8 becomes U+FFFD, as json.Marshal writes it.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import math
import zlib

from runner.errors import RunnerError
from runner.release.record import Release

_GZIP_MAGIC = b"\x1f\x8b\x08"
# A real record is a Secret or ConfigMap (at most 1 MiB, etcd's limit) of gzipped JSON,
# whose chart files are base64 inside it: it decompresses to ~10 MiB at most.
MAX_RECORD_BYTES = 64 << 20


class RecordDecodeError(RunnerError):
    """A stored release record that cannot be read: its key and what is wrong."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f'get: failed to decode data "{key}": {problem}')
        self.key = key
        self.problem = problem


class RecordEncodeError(RunnerError):
    """A release Helm could not read back: nothing is written."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"cannot write release record {key}: {problem}")
        self.key = key
        self.problem = problem


def encode(release: Release) -> str:
    payload = go_json(release.to_json(), key=release.storage_key)
    compressed = gzip.compress(payload.encode(), compresslevel=9, mtime=0)
    return base64.b64encode(compressed).decode("ascii")


def go_json(value: object, key: str = "release") -> str:
    """encoding/json's text for plain data: integral float64s without a fraction,
    <, >, & and U+2028/2029 escaped, as Helm's json.Marshal writes records.
    RecordEncodeError for what json.Marshal refuses or json.Unmarshal could not read back."""
    from runner.deepstack import run_deep

    try:
        text = run_deep(lambda: json.dumps(_go_numbers(value), separators=(",", ":"),
                                           ensure_ascii=False, allow_nan=False))
    except ValueError:
        raise RecordEncodeError(key, f"json: unsupported value: {_first_non_finite(value)}") from None
    if _too_deep(text):
        raise RecordEncodeError(key, "it nests deeper than 10000 levels, which Helm cannot read back")
    for char, escape in _GO_ESCAPES:
        text = text.replace(char, escape)
    return _valid_utf8(text)


_GO_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
               ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def _go_numbers(value: object) -> object:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: _go_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_numbers(v) for v in value]
    return value


def _first_non_finite(value: object) -> str:
    from runner.golang.strconv import format_float

    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return format_float(item)
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return "NaN"


def _too_deep(text: str) -> bool:
    from runner.encoding.gojson import UnmarshalError, check_depth

    try:
        check_depth(text)
    except UnmarshalError:
        return True
    return False


def _valid_utf8(text: str) -> str:
    """Lone surrogates (invalid bytes kept from a file, a \\ud800 escape) as U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        import re

        return re.sub("[\ud800-\udfff]", "\ufffd", text)
    return text


def decode(data: str | bytes, *, key: str = "release") -> Release:
    """A stored record's Release; RecordDecodeError naming `key` and the problem."""
    from runner.encoding.gojson import UnmarshalError, unmarshal
    from runner.release.recordcheck import RecordProblem, check

    try:
        raw = _base64(data)
        if len(raw) > 3 and raw.startswith(_GZIP_MAGIC):
            raw = _gunzip(raw)
        value = unmarshal(raw)  # Go's rules: float64 numbers, no NaN, 10000 deep at most
        check(value, key)
        return Release.from_json(value)
    except (RecordProblem, UnmarshalError) as err:
        raise RecordDecodeError(key, str(err)) from None


def _base64(data: str | bytes) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        from runner.release.recordcheck import RecordProblem, _base64_offset

        text = data.decode("latin-1") if isinstance(data, bytes) else data
        raise RecordProblem(f"illegal base64 data at input byte {_base64_offset(text)}") from None


def _gunzip(raw: bytes) -> bytes:
    """gzip.NewReader + io.ReadAll, stopping past MAX_RECORD_BYTES."""
    from runner.release.recordcheck import RecordProblem

    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    chunks: list[bytes] = []
    total = 0
    pending = raw
    try:
        while True:  # a MiB at a time: a bomb is stopped holding no more than the cap
            chunk = inflater.decompress(pending, 1 << 20)
            total += len(chunk)
            if total > MAX_RECORD_BYTES:
                raise RecordProblem(f"it decompresses to more than {MAX_RECORD_BYTES >> 20} MiB "
                                    "(no release is that large: a gzip bomb?)")
            chunks.append(chunk)
            pending = inflater.unconsumed_tail
            if inflater.eof or not (pending or len(chunk) == 1 << 20):
                break
    except zlib.error as err:
        problem = "gzip: invalid header" if "header" in str(err) else "flate: corrupt input"
        raise RecordProblem(problem) from None
    if not inflater.eof:
        raise RecordProblem("unexpected EOF")
    return b"".join(chunks)
