"""encoding/base64 and encoding/base32 decoding as Go does it, error offsets included.

Sprig's b64dec/b32dec return the decoder's error text in place of the
result (`illegal base64 data at input byte 4`), so the offsets must be Go's:
base64 skips \\r and \\n while it decodes (offsets count them), base32 strips
them first (offsets do not).
"""

from __future__ import annotations

import binascii
import re

from runner.funcs.gotext import from_utf8, to_utf8


def b64_decode(s: str) -> str:
    """base64.StdEncoding.DecodeString, or its error text."""
    if _B64_CLEAN.fullmatch(s):
        return from_utf8(binascii.a2b_base64(s))
    try:
        return from_utf8(_b64_decode_go(to_utf8(s)))
    except ValueError as err:
        return f"illegal base64 data at input byte {err.args[0]}"


def b32_decode(s: str) -> str:
    """base32.StdEncoding.DecodeString, or its error text."""
    data = to_utf8(s).replace(b"\r", b"").replace(b"\n", b"")
    try:
        return from_utf8(_b32_decode_go(data))
    except ValueError as err:
        return f"illegal base32 data at input byte {err.args[0]}"


_B64_CLEAN = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # string.ascii_uppercase: importing string costs ~0.6 ms
_B64_ALPHABET = {c: i for i, c in enumerate(_UPPER + _UPPER.lower() + "0123456789+/")}


def _b64_decode_go(src: bytes) -> bytes:
    """encoding/base64's decode loop (newlines skipped); ValueError(offset) on bad input."""
    out = bytearray()
    si = 0
    n = len(src)
    while True:
        quantum: list[int] = []
        while len(quantum) < 4:
            if si == n:
                if not quantum:
                    return bytes(out)
                raise ValueError(si - len(quantum))
            c = src[si]
            si += 1
            if c in (0x0A, 0x0D):
                continue
            value = _B64_ALPHABET.get(chr(c))
            if value is not None:
                quantum.append(value)
                continue
            if c != 0x3D:
                raise ValueError(si - 1)
            _b64_check_padding(src, si, len(quantum))
            _b64_pack(out, quantum)
            return bytes(out)
        _b64_pack(out, quantum)


def _b64_check_padding(src: bytes, si: int, have: int) -> None:
    """After the first "=": validate padding and trailing newlines only."""
    n = len(src)
    if have < 2:
        raise ValueError(si - 1)
    if have == 2:
        while si < n and src[si] in (0x0A, 0x0D):
            si += 1
        if si == n:
            raise ValueError(n)
        if src[si] != 0x3D:
            raise ValueError(si - 1)
        si += 1
    while si < n and src[si] in (0x0A, 0x0D):
        si += 1
    if si < n:
        raise ValueError(si)


def _b64_pack(out: bytearray, quantum: list[int]) -> None:
    vals = quantum + [0] * (4 - len(quantum))
    word = vals[0] << 18 | vals[1] << 12 | vals[2] << 6 | vals[3]
    out += word.to_bytes(3, "big")[: len(quantum) - 1]


_B32_ALPHABET = {c: i for i, c in enumerate(_UPPER + "234567")}


def _b32_decode_go(src: bytes) -> bytes:
    """encoding/base32's decode loop on newline-free input."""
    out = bytearray()
    total = len(src)
    pos = 0
    while pos < total:
        quantum: list[int] = []
        end = False
        while len(quantum) < 8:
            if pos == total:
                raise ValueError(pos - len(quantum))
            c = src[pos]
            pos += 1
            left = total - pos
            if c == 0x3D and len(quantum) >= 2 and left < 8:
                _b32_check_padding(src, pos, len(quantum))
                end = True
                break
            value = _B32_ALPHABET.get(chr(c))
            if value is None:
                raise ValueError(pos - 1)
            quantum.append(value)
        _b32_pack(out, quantum)
        if end:
            break
    return bytes(out)


def _b32_check_padding(src: bytes, pos: int, have: int) -> None:
    left = len(src) - pos
    if left + have < 7:
        raise ValueError(len(src))
    for k in range(7 - have):
        if left > k and src[pos + k] != 0x3D:
            raise ValueError(pos + k - 1)
    if have in (1, 3, 6):
        raise ValueError(pos - 1)


_B32_OUT_BYTES = {8: 5, 7: 4, 5: 3, 4: 2, 2: 1}


def _b32_pack(out: bytearray, quantum: list[int]) -> None:
    vals = quantum + [0] * (8 - len(quantum))
    word = 0
    for v in vals:
        word = word << 5 | v
    out += word.to_bytes(5, "big")[: _B32_OUT_BYTES[len(quantum)]]
