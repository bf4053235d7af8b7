"""The asaskevich/govalidator checks Helm's Chart.yaml rules use (IsEmail, IsURL, IsRequestURL)."""

from __future__ import annotations

import re

_UCS = "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
_ATEXT = rf"[a-zA-Z0-9!#$%&'*+\-/=?^_`{{|}}~{_UCS}]"
_LABEL = rf"([a-zA-Z0-9{_UCS}]|[a-zA-Z0-9{_UCS}][a-zA-Z0-9\-.~_{_UCS}]*[a-zA-Z0-9{_UCS}])"
_TLD = rf"([a-zA-Z{_UCS}]|[a-zA-Z{_UCS}][a-zA-Z0-9\-.~_{_UCS}]*[a-zA-Z{_UCS}])"
_EMAIL = re.compile(rf"^{_ATEXT}+(\.{_ATEXT}+)*@({_LABEL}\.)+{_TLD}\.?$")

_IP6 = r"[0-9a-fA-F:.]+(%[0-9a-zA-Z]+)?"
_URL_IP = (r"([1-9]\d?|1\d\d|2[01]\d|22[0-3]|24\d|25[0-5])(\.(\d{1,2}|1\d\d|2[0-4]\d|25[0-5])){2}"
           r"(?:\.([0-9]\d?|1\d\d|2[0-4]\d|25[0-5]))")
_URL_SUBDOMAIN = r"((www\.)|([a-zA-Z0-9]+([-_.]?[a-zA-Z0-9])*[a-zA-Z0-9]\.[a-zA-Z0-9]+))"
_WIDE = "a-zA-Z\u00a1-\uffff0-9"
_URL = re.compile(
    r"^((ftp|tcp|udp|wss?|https?)://)?(\S+(:\S*)?@)?"
    rf"(({_URL_IP}|(\[{_IP6}\])|(([a-zA-Z0-9]([a-zA-Z0-9-_]+)?[a-zA-Z0-9]([-.][a-zA-Z0-9]+)*)|"
    rf"({_URL_SUBDOMAIN}?))?(([{_WIDE}]+-?-?)*[{_WIDE}]+)(?:\.([a-zA-Z\u00a1-\uffff]+))?))\.?"
    r"(:(\d{1,5}))?((/|\?|#)[^\s]*)?$"
)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_HOST_OK = re.compile(r"^[A-Za-z0-9\-._~!$&'()*+,;=:\[\]<>\"%]*$")


def is_email(text: str) -> bool:
    return _EMAIL.match(text) is not None


def is_url(text: str) -> bool:
    """govalidator.IsURL: url.Parse must accept it, then the URL pattern must match."""
    if not text or len(text) >= 2083 or len(text) <= 3 or text.startswith("."):
        return False
    parsed = text
    if ":" in text and "://" not in text:
        parsed = "http://" + text
    host, path, ok = _split_url(parsed)
    if not ok or host.startswith("."):
        return False
    if host == "" and path != "" and "." not in path:
        return False
    return _URL.match(text) is not None


def is_request_url(text: str) -> bool:
    """govalidator.IsRequestURL: url.ParseRequestURI accepts it and it has a scheme."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return False
    match = _SCHEME.match(text)
    if match is None:
        return False
    rest = text[match.end():]
    if not rest.startswith("/"):
        return True  # a rootless path after a scheme is opaque: accepted
    if rest.startswith("//"):
        authority = re.split(r"[/?]", rest[2:], maxsplit=1)[0]
        return _valid_authority(authority)
    return True


def _split_url(text: str) -> tuple[str, str, bool]:
    """url.Parse, far enough for IsURL: (host, path, parsed without error)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return "", "", False
    text = text.split("#", 1)[0].split("?", 1)[0]
    match = _SCHEME.match(text)
    rest = text[match.end():] if match else text
    if match is None and ":" in text.split("/", 1)[0]:
        return "", "", False
    if not rest.startswith("//"):
        return "", rest, True
    authority, _, path = rest[2:].partition("/")
    if not _valid_authority(authority):
        return "", "", False
    host = authority.rsplit("@", 1)[-1]
    return host, "/" + path if path or rest[2:].endswith("/") else "", True


def _valid_authority(authority: str) -> bool:
    host = authority.rsplit("@", 1)[-1]
    if host.startswith("["):
        return "]" in host
    name, _, port = host.partition(":")
    if port and not port.isdigit():
        return False
    return _HOST_OK.match(name) is not None and "%" not in name
