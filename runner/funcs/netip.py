"""Go's net/netip.ParseAddr, for the checks it performs and the errors it
reports (net/url validates bracketed hosts with it since Go 1.25.2)."""

from __future__ import annotations

from runner.golang.strconv import quote


class AddrError(ValueError):
    """netip's parseAddrError: `ParseAddr("in"): msg (at "rest")`."""

    def __init__(self, text: str, msg: str, at: str | None = None) -> None:
        message = f"ParseAddr({quote(text)}): {msg}"
        if at:
            message += f" (at {quote(at)})"
        super().__init__(message)


def parse_addr_version(text: str) -> int:
    """4 or 6 for a valid address; raises AddrError with Go's message otherwise."""
    for ch in text:
        if ch == ".":
            _ipv4_fields(text, text)
            return 4
        if ch == ":":
            _ipv6(text)
            return 6
        if ch == "%":
            raise AddrError(text, "missing IPv6 address")
    raise AddrError(text, "unable to parse IP")


def _ipv4_fields(whole: str, s: str) -> None:
    """parseIPv4Fields over s (a suffix of whole)."""
    value, fields, digits = 0, 0, 0
    for i, ch in enumerate(s):
        if "0" <= ch <= "9":
            if digits == 1 and value == 0:
                raise AddrError(whole, "IPv4 field has octet with leading zero")
            value, digits = value * 10 + ord(ch) - 48, digits + 1
            if value > 255:
                raise AddrError(whole, "IPv4 field has value >255")
        elif ch == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise AddrError(whole, "IPv4 field must have at least one digit", s[i:])
            if fields == 3:
                raise AddrError(whole, "IPv4 address too long")
            fields, value, digits = fields + 1, 0, 0
        else:
            raise AddrError(whole, "unexpected character", s[i:])
    if fields < 3:
        raise AddrError(whole, "IPv4 address too short")


def _hex_group(whole: str, s: str) -> int:
    """Length of the hex group at the start of s (Go's inlined loop and its errors)."""
    off, acc = 0, 0
    while off < len(s) and s[off] in "0123456789abcdefABCDEF":
        acc = (acc << 4) + int(s[off], 16)
        if off > 3:
            raise AddrError(whole, "each group must have 4 or less digits", s)
        if acc > 0xFFFF:
            raise AddrError(whole, "IPv6 field has value >=2^16", s)
        off += 1
    if off == 0:
        raise AddrError(whole, "each colon-separated field must have at least one digit", s)
    return off


def _ipv6(whole: str) -> None:
    s, zone = whole, ""
    if "%" in s:
        s, zone = s.split("%", 1)
        if not zone:
            raise AddrError(whole, "zone must be a non-empty string")
    ellipsis = -1
    if s.startswith("::"):
        ellipsis, s = 0, s[2:]
        if not s:
            return
    i = 0
    while i < 16:
        off = _hex_group(whole, s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise AddrError(whole, "embedded IPv4 address must replace the final 2 fields of the address", s)
            if i + 4 > 16:
                raise AddrError(whole, "too many hex fields to fit an embedded IPv4 at the end of the address", s)
            _ipv4_fields(whole, s)
            s, i = "", i + 4
            break
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            raise AddrError(whole, "unexpected character, want colon", s)
        if len(s) == 1:
            raise AddrError(whole, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise AddrError(whole, "multiple :: in address", s)
            ellipsis, s = i, s[1:]
            if not s:
                break
    if s:
        raise AddrError(whole, "trailing garbage after address", s)
    if i < 16 and ellipsis < 0:
        raise AddrError(whole, "address string too short")
    if i >= 16 and ellipsis >= 0:
        raise AddrError(whole, "the :: must expand to at least one field of zeros")
