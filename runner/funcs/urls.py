"""Template functions: Sprig's url.go (urlParse, urlJoin) on a port of the
parts of Go's net/url they use: Parse, URL.String, Userinfo, escaping.

urlParse returns a map with scheme, host, hostname, path, query, opaque,
fragment and userinfo; urlJoin builds a URL back from such a map. Sprig
panics on a parse failure, which the template reports as an error.
"""

from __future__ import annotations

from runner.funcs.netip import AddrError, parse_addr_version
from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError
from runner.golang.strconv import quote
from runner.golang.types import kind_of
from runner.records import Record

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

# Escaping modes of net/url.
PATH, PATH_SEGMENT, HOST, ZONE, USER_PASSWORD, QUERY_COMPONENT, FRAGMENT = range(1, 8)
_HEX = "0123456789ABCDEF"


class URLError(ValueError):
    """A net/url parse error; str() is Go's text without the `parse "..."` wrapper."""


def _should_escape(c: int, mode: int) -> bool:
    ch = chr(c)
    if ch.isascii() and ch.isalnum():
        return False
    if mode in (HOST, ZONE) and ch in "!$&'()*+,;=:[]<>\"":
        return False
    if ch in "-_.~":
        return False
    if ch in "$&+,/:;=?@":
        if mode == PATH:
            return ch == "?"
        if mode == PATH_SEGMENT:
            return ch in "/;,?"
        if mode == USER_PASSWORD:
            return ch in "@/?:"
        if mode == QUERY_COMPONENT:
            return True
        if mode == FRAGMENT:
            return False
    # The fragment keeps the sub-delims browsers leave alone.
    return not (mode == FRAGMENT and ch in "!()*")


def escape(s: str, mode: int) -> str:
    out: list[str] = []
    for byte in s.encode("utf-8", "surrogateescape"):
        if _should_escape(byte, mode):
            if byte == 0x20 and mode == QUERY_COMPONENT:
                out.append("+")
            else:
                out.append("%" + _HEX[byte >> 4] + _HEX[byte & 15])
        else:
            out.append(chr(byte))
    return "".join(out)


def _is_hex(ch: str) -> bool:
    return ch in "0123456789abcdefABCDEF"


def unescape(s: str, mode: int) -> str:
    """net/url unescape with its EscapeError / InvalidHostError texts."""
    data = s.encode("utf-8", "surrogateescape")
    i = 0
    while i < len(data):
        c = chr(data[i])
        if c == "%":
            chunk = data[i : i + 3].decode("utf-8", "surrogateescape")
            if len(chunk) < 3 or not _is_hex(chunk[1]) or not _is_hex(chunk[2]):
                raise URLError(f"invalid URL escape {quote(chunk)}")
            if mode == HOST and int(chunk[1], 16) < 8 and chunk != "%25":
                raise URLError(f"invalid URL escape {quote(chunk)}")
            if mode == ZONE:
                value = int(chunk[1:], 16)
                if chunk != "%25" and value != 0x20 and _should_escape(value, HOST):
                    raise URLError(f"invalid URL escape {quote(chunk)}")
            i += 3
            continue
        if mode in (HOST, ZONE) and data[i] < 0x80 and _should_escape(data[i], mode):
            raise URLError(f"invalid character {quote(c)} in host name")
        i += 1
    out = bytearray()
    i = 0
    while i < len(data):
        if data[i] == 0x25:
            out.append(int(data[i + 1 : i + 3], 16))
            i += 3
        elif data[i] == 0x2B and mode == QUERY_COMPONENT:
            out.append(0x20)
            i += 1
        else:
            out.append(data[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


class Userinfo(Record):
    """net/url.Userinfo. A Record, not a dataclass: see docs/speed.md."""

    __slots__ = ("username", "password", "password_set")

    def __init__(self, username: str, password: str = "", password_set: bool = False) -> None:
        self.username = username
        self.password = password
        self.password_set = password_set

    def String(self) -> str:  # noqa: N802 - Go's method name
        text = escape(self.username, USER_PASSWORD)
        if self.password_set:
            text += ":" + escape(self.password, USER_PASSWORD)
        return text


class URL(Record):
    """net/url.URL, the fields urlParse and urlJoin use."""

    __slots__ = ("scheme", "opaque", "user", "host", "path", "raw_path", "omit_host",
                 "force_query", "raw_query", "fragment")

    def __init__(self, *, scheme: str = "", opaque: str = "", host: str = "", path: str = "",
                 raw_query: str = "", fragment: str = "") -> None:
        self.scheme = scheme
        self.opaque = opaque
        self.user: Userinfo | None = None
        self.host = host
        self.path = path
        self.raw_path = ""
        self.omit_host = False
        self.force_query = False
        self.raw_query = raw_query
        self.fragment = fragment

    def hostname(self) -> str:
        host, _ = _split_host_port(self.host)
        return host

    def escaped_path(self) -> str:
        if self.raw_path and _valid_encoded(self.raw_path, PATH) and unescape_or_none(self.raw_path) == self.path:
            return self.raw_path
        if self.path == "*":
            return "*"
        return escape(self.path, PATH)

    def String(self) -> str:  # noqa: N802 - Go's method name
        out = ""
        if self.scheme:
            out += self.scheme + ":"
        if self.opaque:
            out += self.opaque
        else:
            out = self._authority(out)
            path = self.escaped_path()
            if path and path[0] != "/" and self.host:
                out += "/"
            if not out and ":" in path.split("/", 1)[0]:
                out += "./"  # a colon in the first segment would read as a scheme
            out += path
        if self.force_query or self.raw_query:
            out += "?" + self.raw_query
        if self.fragment:
            out += "#" + escape(self.fragment, FRAGMENT)
        return out

    def _authority(self, out: str) -> str:
        if not (self.scheme or self.host or self.user):
            return out
        if self.omit_host and not self.host and self.user is None:
            return out
        if self.host or self.path or self.user is not None:
            out += "//"
        if self.user is not None:
            out += self.user.String() + "@"
        if self.host:
            out += escape(self.host, HOST)
        return out


def unescape_or_none(s: str) -> str | None:
    try:
        return unescape(s, PATH)
    except URLError:
        return None


def _valid_encoded(s: str, mode: int) -> bool:
    for ch in s:
        if ch in "!$&'()*+,;=:@[]%":
            continue
        if _should_escape(ord(ch), mode) if ord(ch) < 0x80 else True:
            return False
    return True


def _split_host_port(host_port: str) -> tuple[str, str]:
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and _valid_optional_port(host[colon:]):
        host, port = host[:colon], host[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _valid_optional_port(port: str) -> bool:
    if port == "":
        return True
    return port[0] == ":" and all("0" <= ch <= "9" for ch in port[1:])


def _get_scheme(raw: str) -> tuple[str, str]:
    for i, ch in enumerate(raw):
        if "a" <= ch.lower() <= "z" and ch.isascii():
            continue
        if ch.isascii() and (ch.isdigit() or ch in "+-."):
            if i == 0:
                return "", raw
            continue
        if ch == ":":
            if i == 0:
                raise URLError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw  # an invalid character: no scheme
    return "", raw


def _parse_host(host: str) -> str:
    """net/url parseHost (Go 1.25.9): bracketed hosts must be IPv6 literals."""
    bracket = host.rfind("[")
    if bracket > 0:
        raise URLError("invalid IP-literal")
    if bracket == 0:
        return _parse_ip_literal(host)
    colon = host.rfind(":")
    if colon != -1 and not _valid_optional_port(host[colon:]):
        raise URLError(f"invalid port {quote(host[colon:])} after host")
    return unescape(host, HOST)


def _parse_ip_literal(host: str) -> str:
    end = host.rfind("]")
    if end < 0:
        raise URLError("missing ']' in host")
    colon_port = host[end + 1 :]
    if not _valid_optional_port(colon_port):
        raise URLError(f"invalid port {quote(colon_port)} after host")
    port = unescape(colon_port, HOST)
    hostname = host[1:end]
    zone = hostname.find("%25")
    if zone >= 0:
        address = unescape(hostname[:zone], HOST) + unescape(hostname[zone:], ZONE)
    else:
        address = unescape(hostname, HOST)
    try:
        version = parse_addr_version(address)
    except AddrError as err:
        raise URLError(f"invalid host: {err}") from None
    if version == 4:
        raise URLError("invalid IP-literal")
    return "[" + address + "]" + port


def _valid_userinfo(s: str) -> bool:
    for ch in s:
        if ch.isascii() and ch.isalnum():
            continue
        if ch in "-._:~!$&'()*+,;=%@":
            continue
        return False
    return True


def _parse_authority(authority: str) -> tuple[Userinfo | None, str]:
    at = authority.rfind("@")
    host = _parse_host(authority[at + 1 :] if at >= 0 else authority)
    if at < 0:
        return None, host
    userinfo = authority[:at]
    if not _valid_userinfo(userinfo):
        raise URLError("net/url: invalid userinfo")
    if ":" not in userinfo:
        return Userinfo(unescape(userinfo, USER_PASSWORD)), host
    username, password = userinfo.split(":", 1)
    return Userinfo(unescape(username, USER_PASSWORD), unescape(password, USER_PASSWORD), True), host


def _parse_reference(raw: str) -> URL:
    """net/url's parse(rawURL, viaRequest=false)."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in raw):
        raise URLError("net/url: invalid control character in URL")
    url = URL()
    if raw == "":
        return url
    if raw == "*":
        url.path = "*"
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        url.force_query, rest = True, rest[:-1]
    else:
        rest, _, url.raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if url.scheme:
            url.opaque = rest
            return url
        if ":" in rest.split("/", 1)[0]:
            raise URLError("first path segment in URL cannot contain colon")
    if (url.scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        url.user, url.host = _parse_authority(authority)
        rest = slash + path
    elif url.scheme and rest.startswith("/"):
        url.omit_host = True
    url.path = unescape(rest, PATH)
    escaped = escape(url.path, PATH)
    url.raw_path = "" if rest == escaped else rest
    return url


def parse_url(raw: str) -> URL:
    """url.Parse; raises URLError with Go's full `parse "<url>": ...` text.

    The error names the part before '#' for a parse failure and the whole
    input for a bad fragment, as Go does."""
    before, _, fragment = raw.partition("#")
    try:
        url = _parse_reference(before)
    except URLError as err:
        raise URLError(f"parse {quote(before)}: {err}") from None
    if fragment:
        try:
            url.fragment = unescape(fragment, FRAGMENT)
        except URLError as err:
            raise URLError(f"parse {quote(raw)}: {err}") from None
    return url


@gofunc("urlParse", ("string",), returns="map[string]interface {}")
def url_parse(text: str) -> dict[str, Any]:
    try:
        url = parse_url(text)
    except URLError as err:
        raise FuncError(f"unable to parse url: {err}") from None
    return {
        "scheme": url.scheme,
        "host": url.host,
        "hostname": url.hostname(),
        "path": url.path,
        "query": url.raw_query,
        "opaque": url.opaque,
        "fragment": url.fragment,
        "userinfo": url.user.String() if url.user is not None else "",
    }


def _dict_string(d: dict[str, Any], key: str) -> str:
    """Sprig's dictGetOrEmpty: missing is "", a non-string value panics."""
    if key not in d:
        return ""
    value = d[key]
    if value is None:
        raise FuncError("runtime error: invalid memory address or nil pointer dereference")
    if not isinstance(value, str):
        kind = kind_of(value)
        raise FuncError(f"unable to parse {key} key, must be of type string, but {kind} found")
    return value


@gofunc("urlJoin", ("map[string]interface {}",), returns="string")
def url_join(d: dict[str, Any]) -> str:
    url = URL(
        scheme=_dict_string(d, "scheme"),
        host=_dict_string(d, "host"),
        path=_dict_string(d, "path"),
        raw_query=_dict_string(d, "query"),
        opaque=_dict_string(d, "opaque"),
        fragment=_dict_string(d, "fragment"),
    )
    userinfo = _dict_string(d, "userinfo")
    if userinfo:
        try:
            url.user = parse_url(f"proto://{userinfo}@host").user
        except URLError as err:
            raise FuncError(f"unable to parse userinfo in dict: {err}") from None
    return url.String()
