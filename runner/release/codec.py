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
    payload = json.dumps(release.to_json(), separators=(",", ":"), ensure_ascii=False)
    compressed = gzip.compress(payload.encode(), compresslevel=9, mtime=0)
    return base64.b64encode(compressed).decode("ascii")


def decode(data: str | bytes, *, key: str = "release") -> Release:
    try:
        raw = base64.b64decode(data, validate=True)
        if raw.startswith(_GZIP_MAGIC):
            raw = gzip.decompress(raw)
        return Release.from_json(json.loads(raw))
    except (binascii.Error, OSError, EOFError, zlib.error, ValueError, TypeError) as err:
        raise RecordDecodeError(f"release record {key}: cannot decode: {err}") from err
