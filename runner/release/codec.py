"""Helm's release encoding: JSON, gzip (best compression), standard base64.

Secrets hold this string as `data.release` (so the API base64s it once more);
ConfigMaps hold it as is. Decoding accepts plain (ungzipped) JSON too, as
Helm does for records written before compression.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import zlib

from runner.errors import RunnerError
from runner.release.record import Release

_GZIP_MAGIC = b"\x1f\x8b\x08"


class RecordDecodeError(RunnerError):
    """A stored release record that cannot be read."""


def encode(release: Release) -> str:
    payload = go_json(release.to_json())
    compressed = gzip.compress(payload.encode(), compresslevel=9, mtime=0)
    return base64.b64encode(compressed).decode("ascii")


def go_json(value: object) -> str:
    """encoding/json's text for plain data: integral float64s without a fraction,
    <, >, & and U+2028/2029 escaped, as Helm's json.Marshal writes records."""
    text = json.dumps(_go_numbers(value), separators=(",", ":"), ensure_ascii=False)
    for char, escape in _GO_ESCAPES:
        text = text.replace(char, escape)
    return text


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


def decode(data: str | bytes, *, key: str = "release") -> Release:
    try:
        raw = base64.b64decode(data, validate=True)
        if raw.startswith(_GZIP_MAGIC):
            raw = gzip.decompress(raw)
        # Numbers decode as float64, as Go reads a record into interface{} values.
        return Release.from_json(json.loads(raw, parse_int=float))
    except (binascii.Error, OSError, EOFError, zlib.error, ValueError, TypeError) as err:
        raise RecordDecodeError(f"release record {key}: cannot decode: {err}") from err
