"""Where rendered output came from: source positions, recorded only when asked.

`Template.execute_with_positions(name, data)` runs a template with code
generated for tracking (a second compiled form per tree; the ordinary one is
untouched, so tracking costs nothing when off). Each piece written to the
output (a text node, an action's value) is recorded with a `Mark`: the tree
that wrote it, the file that tree was parsed from and its line. Text nodes
are written verbatim, so a character inside one is at the node's line plus
the newlines before it. Pieces written inside `{{template}}` calls are also
attributed to the call site in the file being rendered. Templates executed
while a tracked execution runs on the same thread (`include`, `tpl`: the
engine calls `Template.execute` again) are tracked too; their maps are kept
with the action that printed their output, and a line of that action's
output is traced into them when its text lines up with theirs (`indent`,
`nindent`, `trim` keep it so; `toYaml` of `fromYaml` does not).

`SourceMap.position_at(offset)` / `position_of_line(line)` answer with a
`SourcePos`: the file being rendered and its line, plus the innermost
`define` that produced the text, when there is one.
"""

from __future__ import annotations

import _thread  # threading.local is _thread._local; importing threading costs ~0.7 ms
import re
from bisect import bisect_left, bisect_right
from itertools import accumulate

NO_VALUE = "<no value>"
_BLANK = " \t\r"


class Mark:
    """What wrote one output piece: tree name, its file, line; verbatim for text nodes."""

    __slots__ = ("template", "file", "line", "verbatim")

    def __init__(self, template: str, file: str, line: int, verbatim: bool) -> None:
        self.template = template
        self.file = file
        self.line = line
        self.verbatim = verbatim

    def __repr__(self) -> str:
        return f"Mark({self.template!r}, {self.file!r}, {self.line}, {self.verbatim})"


class Recorder:
    """Marks parallel to a State's output pieces, template calls, nested executions
    (the last three made on first use: fewer allocations per include)."""

    __slots__ = ("marks", "calls", "subs", "action_subs")

    def __init__(self) -> None:
        self.marks: list[Mark] = []
        self.calls: list[tuple[int, int, Mark]] | None = None  # (first piece, end piece, call site)
        self.subs: list[SourceMap] | None = None  # executions not yet claimed by a printing action
        self.action_subs: dict[int, list[SourceMap]] | None = None


class _Tracking(_thread._local):
    rec: Recorder | None = None


TRACKING = _Tracking()


class SourcePos:
    """A place in the templates: `path`:`line` in the file being rendered; `define`
    (`define_path`:`define_line`) the innermost define that wrote the text, if any.

    A value: equal when every field is. A plain class, not a dataclass: building
    a dataclass costs more at import than all of this module's other code.
    """

    __slots__ = ("path", "line", "define", "define_path", "define_line")

    def __init__(
        self,
        path: str,
        line: int,
        define: str | None = None,
        define_path: str | None = None,
        define_line: int | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.define = define
        self.define_path = define_path
        self.define_line = define_line

    def _fields(self) -> tuple[str, int, str | None, str | None, int | None]:
        return self.path, self.line, self.define, self.define_path, self.define_line

    def __eq__(self, other: object) -> bool:
        return type(other) is SourcePos and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"SourcePos(path={self.path!r}, line={self.line!r}, define={self.define!r}, "
            f"define_path={self.define_path!r}, define_line={self.define_line!r})"
        )


_LINE_TABLES: dict[str, list[int]] = {}


def line_of(text: str, pos: int) -> int:
    """1-based line of byte offset `pos` in `text` (node positions count UTF-8 bytes)."""
    table = _LINE_TABLES.get(text)
    if table is None:
        if len(_LINE_TABLES) > 4096:
            _LINE_TABLES.clear()
        table = _LINE_TABLES[text] = [m.start() for m in re.finditer(b"\n", text.encode("utf-8", "surrogatepass"))]
    return bisect_left(table, pos) + 1


class SourceMap:
    """Output of one execution and the source of each piece of it."""

    __slots__ = ("text", "marks", "calls", "subs", "name", "anonymous", "_pieces", "_starts", "_shifts")

    def __init__(self, text: str, pieces: list[str], rec: Recorder, name: str) -> None:
        self.text = text
        self.marks = rec.marks
        self.calls = rec.calls or []
        self.subs = rec.action_subs or {}
        self.name = name
        self.anonymous = False  # a tpl text: its lines are no file's
        self._pieces: list[str] | None = pieces  # offsets are worked out on the first query
        self._starts: list[int] = []
        self._shifts: dict[tuple[int, int], int | None] | None = None

    @classmethod
    def build(cls, out: list[str], rec: Recorder, name: str) -> SourceMap:
        return cls("".join(out), out, rec, name)

    @property
    def starts(self) -> list[int]:
        """Output offset where each piece starts."""
        if self._pieces is not None:
            self._starts = [0, *accumulate(map(len, self._pieces))][:-1]
            self._pieces = None
        return self._starts

    # ------------------------------------------------------------ queries

    def position_at(self, offset: int) -> SourcePos | None:
        """Where the character at `offset` of the output came from."""
        if not self.marks:
            return None
        i = max(bisect_right(self.starts, offset) - 1, 0)
        mark = self.marks[i]
        line = self._line(i, offset)
        inner = self._inner(i, offset)
        k = bisect_right(self.calls, i, key=lambda c: c[0]) - 1
        if k >= 0 and i < self.calls[k][1]:
            site = self.calls[k][2]
            return SourcePos(site.file, site.line, *(inner or (mark.template, mark.file, line)))
        return SourcePos(mark.file, line, *(inner or (None, None, None)))

    def position_of_line(self, line: int) -> SourcePos | None:
        """Where line `line` (1-based) of the output came from: its first non-blank character."""
        offset = self.line_offset(line)
        return None if offset is None else self.position_at(first_nonblank(self.text, offset))

    def line_offset(self, line: int) -> int | None:
        offset = 0
        for _ in range(line - 1):
            offset = self.text.find("\n", offset) + 1
            if offset == 0:
                return None
        return offset

    def without(self, needle: str = NO_VALUE) -> SourceMap:
        """The map of this output with every `needle` removed (str.replace(needle, ""))."""
        if needle not in self.text:
            return self
        found = [m.start() for m in re.finditer(re.escape(needle), self.text)]
        size = len(needle)

        def moved(o: int) -> int:
            k = bisect_right(found, o) - 1
            if k < 0:
                return o
            if o < found[k] + size:
                return found[k] - size * k
            return o - size * (k + 1)

        clone = SourceMap.__new__(SourceMap)
        for slot in SourceMap.__slots__:
            setattr(clone, slot, getattr(self, slot))
        clone.text = self.text.replace(needle, "")
        clone._starts = [moved(s) for s in self.starts]
        clone._pieces = None
        clone._shifts = None
        return clone

    # ------------------------------------------------------------ internals

    def _end(self, i: int) -> int:
        return self.starts[i + 1] if i + 1 < len(self.starts) else len(self.text)

    def _line(self, i: int, offset: int) -> int:
        mark = self.marks[i]
        if not mark.verbatim:
            return mark.line
        return mark.line + self.text.count("\n", self.starts[i], max(offset, self.starts[i]))

    def _inner(self, i: int, offset: int) -> tuple[str, str, int] | None:
        """The innermost define behind the character at `offset` of action piece `i`."""
        subs = self.subs.get(i)
        if not subs:
            return None
        row = self.text.count("\n", self.starts[i], max(offset, self.starts[i]))
        for j in range(len(subs) - 1, -1, -1):
            key = (i, j)
            if self._shifts is None:
                self._shifts = {}
            if key not in self._shifts:
                self._shifts[key] = _align(self.text[self.starts[i] : self._end(i)], subs[j].text)
            shift = self._shifts[key]
            if shift is not None and 0 <= row - shift <= subs[j].text.count("\n"):
                return subs[j]._innermost(row - shift + 1)
        return None

    def _innermost(self, line: int) -> tuple[str, str, int] | None:
        offset = self.line_offset(line)
        if offset is None or not self.marks:
            return None
        offset = first_nonblank(self.text, offset)
        i = max(bisect_right(self.starts, offset) - 1, 0)
        deeper = self._inner(i, offset)
        if deeper is not None or self.anonymous:
            return deeper
        mark = self.marks[i]
        return mark.template, mark.file, self._line(i, offset)


def first_nonblank(text: str, offset: int) -> int:
    """The first character at or after `offset` on its line that is not blank (else `offset`)."""
    i = offset
    while i < len(text) and text[i] in _BLANK:
        i += 1
    return offset if i == len(text) or text[i] == "\n" else i


def _core(text: str) -> tuple[int, list[str]]:
    """Leading blank-line count and the stripped lines between the first and last non-blank."""
    lines = [line.replace(NO_VALUE, "").strip() for line in text.split("\n")]
    lead = 0
    while lead < len(lines) and not lines[lead]:
        lead += 1
    end = len(lines)
    while end > lead and not lines[end - 1]:
        end -= 1
    return lead, lines[lead:end]


def _align(piece: str, sub: str) -> int | None:
    """Shift s with piece line r = sub line r - s (0-based), when sub's text lines up in piece."""
    lead, core = _core(sub)
    if not core:
        return None
    lines = [line.strip() for line in piece.split("\n")]
    for d in range(len(lines) - len(core) + 1):
        if lines[d] == core[0] and lines[d : d + len(core)] == core:
            return d - lead
    return None

