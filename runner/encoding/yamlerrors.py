"""go-yaml v2's errors: GoYAMLError and the texts go-yaml gives what libyaml reports.

PyYAML (libyaml) does the parsing (runner.encoding.yamldecode); these turn
its exceptions into go-yaml's words, and refuse what go-yaml's reader refuses
before any parsing. runner.encoding.kyaml words its reader's errors alike.
"""

from __future__ import annotations

import re

from runner.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


class GoYAMLError(ValueError):
    """A YAML document Helm would reject; str() is go-yaml's (or encoding/json's) text.

    `unmarshal_message` is the whole sigs.k8s.io/yaml.Unmarshal error, as
    fromYaml shows it: "error converting YAML to JSON: yaml: line 2: ...".
    """

    def __init__(self, message: str, *, stage: str = "error converting YAML to JSON") -> None:
        super().__init__(message)
        self.unmarshal_message = f"{stage}: {message}"


def error_text(exc: Exception, text: str) -> str:
    """go-yaml v2 parser.fail(): "yaml: line N: problem" with its line quirks (of a YAMLError)."""
    from yaml import MarkedYAMLError  # loaded: PyYAML raised `exc`

    if not isinstance(exc, MarkedYAMLError):
        return "yaml: " + str(exc)
    name = type(exc).__name__
    if name == "ReaderError":
        return "yaml: control characters are not allowed"
    problem = exc.problem or "unknown problem parsing YAML content"
    if name == "ComposerError":
        return "yaml: " + _composer_problem(exc, problem, text)
    line = 0
    if exc.problem_mark is not None and exc.problem_mark.line != 0:
        line = exc.problem_mark.line + (1 if name == "ScannerError" else 0)
    elif exc.context_mark is not None:
        line = exc.context_mark.line
    where = f"line {line}: " if line else ""
    return f"yaml: {where}{problem}"


def _composer_problem(exc: Any, problem: str, text: str) -> str:
    if problem.startswith("found undefined alias") and exc.problem_mark is not None:
        # libyaml does not name the alias; read it at the mark as go-yaml shows it.
        line = text.splitlines()[exc.problem_mark.line] if text else ""
        match = re.match(r"\*([0-9A-Za-z_-]*)", line[exc.problem_mark.column :])
        return f"unknown anchor '{match[1] if match else ''}' referenced"
    return problem


def reader_guard(text: str) -> None:
    # go-yaml's reader rejects these before parsing (libyaml reports them later).
    found = _CONTROL.search(text)
    if found is None:
        return
    if "\ud800" <= found[0] <= "\udfff":
        raise GoYAMLError("yaml: " + _utf8_problem(text, found.start()))
    raise GoYAMLError("yaml: control characters are not allowed")


def _utf8_problem(text: str, at: int) -> str:
    """go-yaml's reader complaint for an invalid byte (kept as a surrogate escape)."""
    octet = ord(text[at]) - 0xDC00
    if 0xC2 <= octet <= 0xF4:
        return (
            "incomplete UTF-8 octet sequence"
            if at + 1 == len(text)
            else "invalid trailing UTF-8 octet"
        )
    return "invalid leading UTF-8 octet"


_CONTROL = LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
