"""Kubernetes object-name validation as Helm's validateMetadataName applies it (apimachinery texts)."""

from __future__ import annotations

import re
from collections.abc import Callable

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL = re.compile(f"^{_LABEL_FMT}$")
_SUBDOMAIN = re.compile(f"^{_SUBDOMAIN_FMT}$")
_DNS1035 = re.compile(f"^{_DNS1035_FMT}$")
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                  "'-' or '.', and must start and end with an alphanumeric character")
_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
              "and must start and end with an alphanumeric character")
_DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
                "an alphabetic character, and end with an alphanumeric character")

NameCheck = Callable[[str], list[str]]


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def regex_error(message: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    text = message + " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def _fullmatch(pattern: re.Pattern[str], value: str) -> bool:
    return pattern.match(value) is not None and "\n" not in value


def dns1123_subdomain(value: str) -> list[str]:
    errs = [max_len_error(253)] if len(value.encode()) > 253 else []
    if not _fullmatch(_SUBDOMAIN, value):
        errs.append(regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errs


def dns1123_label(value: str) -> list[str]:
    errs = [max_len_error(63)] if len(value.encode()) > 63 else []
    if not _fullmatch(_LABEL, value):
        if _fullmatch(_SUBDOMAIN, value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
    return errs


def dns1035_label(value: str) -> list[str]:
    errs = [max_len_error(63)] if len(value.encode()) > 63 else []
    if not _fullmatch(_DNS1035, value):
        errs.append(regex_error(_DNS1035_MSG, _DNS1035_FMT, "my-name", "abc-123"))
    return errs


def path_segment_name(value: str) -> list[str]:
    for bad in ("..", "."):
        if value == bad:
            return [f"may not be '{bad}'"]
    return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in value]


def _no_check(_value: str) -> list[str]:
    return []


def check_for_kind(kind: str) -> NameCheck:
    """validateMetadataNameFunc: the name rule of an object kind (RFC 1123 subdomain by default)."""
    lowered = kind.lower()
    if lowered == "service":
        return dns1035_label
    if lowered == "namespace":
        return dns1123_label
    if lowered == "certificatesigningrequest":
        return _no_check
    if lowered in ("role", "clusterrole", "rolebinding", "clusterrolebinding"):
        return path_segment_name
    return dns1123_subdomain
