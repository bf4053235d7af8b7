"""Template errors with Go's text/template message shapes.

Parse errors read `template: NAME:LINE: REASON`; execution errors read
`template: NAME:LINE:COL: executing "TMPL" at <NODE>: REASON`, exactly as
text/template formats them (Helm passes them on and rewrites them later).
"""

from __future__ import annotations

from runner.errors import RunnerError
from runner.golang.strconv import quote


class TemplateError(RunnerError):
    """Base of every template error; str() is Go's full error text."""


class ParseError(TemplateError):
    """The template text does not parse (parse.Tree.errorf)."""

    def __init__(self, name: str, line: int, reason: str) -> None:
        super().__init__(f"template: {name}:{line}: {reason}")
        self.name = name
        self.line = line
        self.reason = reason


class ExecError(TemplateError):
    """Execution failed (text/template's ExecError); str() is the full Go text."""

    def __init__(
        self,
        text: str,
        name: str,
        *,
        location: str = "",
        context: str = "",
        reason: str = "",
    ) -> None:
        super().__init__(text)
        self.name = name  # the template being executed
        self.location = location  # "FILE:LINE:COL", empty when no node is known
        self.context = context  # the failing node printed back as template text
        self.reason = reason

    @classmethod
    def at(cls, name: str, location: str, context: str, reason: str) -> ExecError:
        text = f"template: {location}: executing {quote(name)} at <{context}>: {reason}"
        return cls(text, name, location=location, context=context, reason=reason)

    @classmethod
    def bare(cls, name: str, reason: str) -> ExecError:
        """An error with no node to blame (state.errorf with s.node == nil)."""
        return cls(f"template: {name}: {reason}", name, reason=reason)

    @classmethod
    def bare_text(cls, text: str, name: str) -> ExecError:
        """An error whose whole text is given (ExecuteTemplate's lookup failure)."""
        return cls(text, name)
