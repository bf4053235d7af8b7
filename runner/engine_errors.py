"""Helm 4.1.4's rewriting of text/template errors (pkg/engine: cleanupParseError,
reformatExecErrorMsg), done on the error text.

`required` and `fail` wrap their message in HELM_ERR_START/END and surface as
`execution error at (FILE:LINE:COL): MSG`; chains of include errors become an
indented trace, one entry per template; anything Helm cannot parse (a
function's own error, tpl's wrapping) stays Go's raw text.
"""

from __future__ import annotations

from runner.lazy_pattern import LazyPattern

_WARN_RE = LazyPattern(r"HELM_ERR_START((?s:.*))HELM_ERR_END")


def cleanup_parse_error(filename: str, message: str) -> str:
    """cleanupParseError: `parse error at (FILE:LINE): REASON`."""
    tokens = message.split(": ")
    if len(tokens) == 1:
        return f"parse error in ({filename}): {message}"
    return f"parse error at ({tokens[1]}): {tokens[-1]}"


class _Trace:
    """One entry of the trace (a plain class: a dataclass costs ~1 ms to create at start)."""

    __slots__ = ("location", "message", "executed")

    def __init__(self, location: str = "", message: str = "", executed: str = "") -> None:
        self.location = location
        self.message = message
        self.executed = executed

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Trace):
            return NotImplemented
        return (self.location, self.message, self.executed) == (
            other.location, other.message, other.executed)

    def text(self) -> str:
        out = ""
        if self.location:
            out += f"{self.location}\n  "
        if self.executed:
            out += f"{self.executed}\n    "
        if self.message:
            out += f"{self.message}\n"
        return out


def reformat_exec_error(filename: str, message: str, is_exec_error: bool = True) -> str:
    """Helm 4.1.4's reformatExecErrorMsg, on the error text.

    Go walks the errors.Unwrap chain; text/template wraps a function's error
    as `error calling NAME: %w`, so the chain is recovered from the text: an
    entry's inner error is what follows `error calling NAME: `.
    """
    if not is_exec_error:
        return message
    tokens = message.split(": ", 2)
    if len(tokens) != 3:
        return f"execution error in ({filename}): {message}"
    warn = _WARN_RE.search(tokens[2])
    if warn:
        return f"execution error at ({tokens[1]}): {warn.group(1)}"
    traces: list[_Trace] = []
    current: str | None = message
    while current is not None:
        parsed = _parse_exec_text(current)
        if parsed is None:
            return message
        trace, current = parsed
        if not traces or traces[-1] != trace:
            traces.append(trace)
    return "".join(t.text() for t in traces).strip()


_CALLING = LazyPattern(r"error calling [^:]+: ")


def _parse_exec_text(text: str) -> tuple[_Trace, str | None] | None:
    """One link of the chain: its trace entry and the wrapped error's text."""
    prefix = "template: "
    if not text.startswith(prefix):
        return None
    rest = text[len(prefix):]
    if rest.startswith("no template "):
        return _Trace(message=text), None
    head, sep, after = rest.partition(': executing "')
    if sep:
        func, quote, after_func = after.partition('"')
        if not quote or not after_func.startswith(" at <"):
            return None
        context, found, err_msg = after_func[len(" at <"):].partition(">: ")
        if not found:
            return None
        inner = None
        calling = _CALLING.match(err_msg)
        if calling:
            inner = err_msg[calling.end():]
        cut = err_msg.find(" template:")
        shown = err_msg[:cut] if cut != -1 else err_msg
        return _Trace(head, shown, f'executing "{func}" at <{context}>:'), inner
    index = rest.rfind(": ")
    if index == -1:
        return None
    err_msg = rest[index + 2:]
    cut = err_msg.find(" template:")
    return _Trace(rest[:index], err_msg[:cut] if cut != -1 else err_msg), None
