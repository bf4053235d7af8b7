"""The lexer of text/template/parse (lex.go), as state functions.

Each state scans some input and returns the next state; items carry their
byte position (of the UTF-8 text, as Go's `Pos`) and line. Trim markers
(`{{- ` and ` -}}`) are applied here, comments are dropped, and a lexing
error becomes an error item that ends the stream, as in Go.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import NamedTuple


class T:
    """Item types, in Go's order: keywords sort after KEYWORD.

    Plain int constants, not an Enum: the lexer and parser compare them on
    every token, and Enum attribute access costs several times more.
    """

    ERROR = 0
    BOOL = 1
    CHAR = 2
    CHAR_CONSTANT = 3
    COMMENT = 4
    COMPLEX = 5
    ASSIGN = 6
    DECLARE = 7
    EOF = 8
    FIELD = 9
    IDENTIFIER = 10
    LEFT_DELIM = 11
    LEFT_PAREN = 12
    NUMBER = 13
    PIPE = 14
    RAW_STRING = 15
    RIGHT_DELIM = 16
    RIGHT_PAREN = 17
    SPACE = 18
    STRING = 19
    TEXT = 20
    VARIABLE = 21
    KEYWORD = 22
    BLOCK = 23
    BREAK = 24
    CONTINUE = 25
    DOT = 26
    DEFINE = 27
    ELSE = 28
    END = 29
    IF = 30
    NIL = 31
    RANGE = 32
    TEMPLATE = 33
    WITH = 34


KEYWORDS = {
    ".": T.DOT,
    "block": T.BLOCK,
    "break": T.BREAK,
    "continue": T.CONTINUE,
    "define": T.DEFINE,
    "else": T.ELSE,
    "end": T.END,
    "if": T.IF,
    "range": T.RANGE,
    "nil": T.NIL,
    "template": T.TEMPLATE,
    "with": T.WITH,
}


class Item(NamedTuple):
    typ: int
    pos: int  # byte offset in the UTF-8 input, as Go's Pos
    val: str
    line: int

    def __str__(self) -> str:  # item.String()
        if self.typ == T.EOF:
            return "EOF"
        if self.typ == T.ERROR:
            return self.val
        if self.typ > T.KEYWORD:
            return f"<{self.val}>"
        if len(self.val.encode()) > 10:
            return go_quote_prefix(self.val, 10) + "..."
        return go_quote(self.val)


LEFT_DELIM = "{{"
RIGHT_DELIM = "}}"
LEFT_COMMENT = "/*"
RIGHT_COMMENT = "*/"
SPACE_CHARS = " \t\r\n"


def is_space(r: str) -> bool:
    return r in (" ", "\t", "\r", "\n") and r != ""


def is_alnum(r: str) -> bool:
    """Go's isAlphaNumeric: '_', unicode.IsLetter or unicode.IsDigit."""
    if r == "":
        return False
    if r == "_" or r.isascii() and r.isalnum():
        return True
    if r.isascii():
        return False
    cat = unicodedata.category(r)
    return cat[0] == "L" or cat == "Nd"


def _has_left_trim(s: str, i: int) -> bool:
    return len(s) >= i + 2 and s[i] == "-" and s[i + 1] in SPACE_CHARS


def _has_right_trim(s: str, i: int) -> bool:
    return len(s) >= i + 2 and s[i] in SPACE_CHARS and s[i + 1] == "-"


State = Callable[["Lexer"], "State | None"]


class Lexer:
    """Scans the whole input into a list of items (the parser pulls them in order)."""

    def __init__(self, text: str, *, break_ok: bool = True, continue_ok: bool = True) -> None:
        self.input = text
        self.pos = 0  # character index into input
        self.start = 0
        self.paren_depth = 0
        self.break_ok = break_ok
        self.continue_ok = continue_ok
        self.items: list[Item] = []
        self._ascii = text.isascii()
        self._line_at = 0  # character index up to which _line is counted
        self._byte_at = (0, 0)  # (character index, its byte offset)
        self._line = 1

    # ------------------------------------------------------------ helpers

    def byte_pos(self, i: int) -> int:
        """Go's Pos (a UTF-8 byte offset) of character index i, counted incrementally."""
        if self._ascii:
            return i
        at, nbytes = self._byte_at
        if i >= at:
            nbytes += len(self.input[at:i].encode("utf-8", "surrogatepass"))
        else:
            nbytes -= len(self.input[i:at].encode("utf-8", "surrogatepass"))
        self._byte_at = (i, nbytes)
        return nbytes

    def line_of(self, i: int) -> int:
        if i >= self._line_at:
            self._line += self.input.count("\n", self._line_at, i)
        else:
            self._line -= self.input.count("\n", i, self._line_at)
        self._line_at = i
        return self._line

    def next(self) -> str:
        if self.pos >= len(self.input):
            self.pos = len(self.input) + 1  # so backup() after EOF is a no-op
            return ""
        r = self.input[self.pos]
        self.pos += 1
        return r

    def peek(self) -> str:
        return self.input[self.pos] if self.pos < len(self.input) else ""

    def backup(self) -> None:
        if self.pos > len(self.input):
            self.pos = len(self.input)
        elif self.pos > 0:
            self.pos -= 1

    def emit(self, typ: int) -> None:
        start = self.start
        self.items.append(
            Item(typ, self.byte_pos(start), self.input[start : self.pos], self.line_of(start))
        )
        self.start = self.pos

    def ignore(self) -> None:
        self.start = self.pos

    def accept(self, valid: str) -> bool:
        r = self.next()
        if r and r in valid:
            return True
        self.backup()
        return False

    def accept_run(self, valid: str) -> None:
        while True:
            r = self.next()
            if not r or r not in valid:
                break
        self.backup()

    def errorf(self, msg: str) -> None:
        self.items.append(Item(T.ERROR, self.byte_pos(self.start), msg, self.line_of(self.start)))
        return None

    def at_right_delim(self) -> tuple[bool, bool]:
        s, p = self.input, self.pos
        if _has_right_trim(s, p) and s.startswith(RIGHT_DELIM, p + 2):
            return True, True
        if s.startswith(RIGHT_DELIM, p):
            return True, False
        return False, False

    def at_terminator(self) -> bool:
        r = self.peek()
        if r == "" or r in SPACE_CHARS or r in ".,|:)(":
            return True
        return self.input.startswith(RIGHT_DELIM, self.pos)

    # -------------------------------------------------------------- driver

    def run(self) -> list[Item]:
        state: State | None = lex_text
        while state is not None:
            state = state(self)
        return self.items


def lex(text: str, *, break_ok: bool = True, continue_ok: bool = True) -> list[Item]:
    """All items of `text`, ending with an EOF or an ERROR item."""
    return Lexer(text, break_ok=break_ok, continue_ok=continue_ok).run()


# ------------------------------------------------------------------ states


def lex_text(lx: Lexer) -> State | None:
    s = lx.input
    x = s.find(LEFT_DELIM, lx.pos)
    if x < 0:
        lx.pos = len(s)
        if lx.pos > lx.start:
            lx.emit(T.TEXT)
        lx.emit(T.EOF)
        return None
    if x > lx.pos or x > lx.start:
        lx.pos = x
        trim = 0
        if _has_left_trim(s, x + len(LEFT_DELIM)):
            text = s[lx.start : x]
            trim = len(text) - len(text.rstrip(SPACE_CHARS))
        lx.pos -= trim
        if lx.pos > lx.start:
            lx.emit(T.TEXT)
        lx.pos += trim
        lx.ignore()
    return lex_left_delim


def lex_left_delim(lx: Lexer) -> State | None:
    lx.pos += len(LEFT_DELIM)
    trim = _has_left_trim(lx.input, lx.pos)
    after = 2 if trim else 0
    if lx.input.startswith(LEFT_COMMENT, lx.pos + after):
        lx.pos += after
        lx.ignore()
        return lex_comment
    lx.emit(T.LEFT_DELIM)
    lx.pos += after
    lx.ignore()
    lx.paren_depth = 0
    return lex_inside_action


def lex_comment(lx: Lexer) -> State | None:
    lx.pos += len(LEFT_COMMENT)
    x = lx.input.find(RIGHT_COMMENT, lx.pos)
    if x < 0:
        return lx.errorf("unclosed comment")
    lx.pos = x + len(RIGHT_COMMENT)
    delim, trim = lx.at_right_delim()
    if not delim:
        return lx.errorf("comment ends before closing delimiter")
    if trim:
        lx.pos += 2
    lx.pos += len(RIGHT_DELIM)
    if trim:
        _skip_leading_space(lx)
    lx.ignore()
    return lex_text


def _skip_leading_space(lx: Lexer) -> None:
    lx.pos = _SPACES_OPT.match(lx.input, lx.pos).end()  # type: ignore[union-attr]


_SPACES_OPT = re.compile(r"[ \t\r\n]*")


def lex_right_delim(lx: Lexer) -> State | None:
    _, trim = lx.at_right_delim()
    if trim:
        lx.pos += 2
        lx.ignore()
    lx.pos += len(RIGHT_DELIM)
    lx.emit(T.RIGHT_DELIM)
    if trim:
        _skip_leading_space(lx)
        lx.ignore()
    return lex_text


_SINGLE = {"=": T.ASSIGN, "|": T.PIPE}


# The common tokens of an action, ASCII only; anything else takes the state
# functions below (which also produce every error).
_TERM = r"(?=[ \t\r\n.,|:()]|\}\}|$)"
_FAST = re.compile(
    r"(?P<sp>[ \t\r\n])"
    r"|(?P<field>\.[A-Za-z_][A-Za-z0-9_]*)" + _TERM
    + r"|(?P<var>\$[A-Za-z0-9_]*)" + _TERM
    + r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*)" + _TERM
    + r'|(?P<str>"(?:[^"\\\n]|\\[^\n])*")'
)


def _fast_token(lx: Lexer) -> State | None:
    m = _FAST.match(lx.input, lx.pos)
    if m is None:
        return None
    kind = m.lastgroup
    if kind == "sp":
        return lex_space
    lx.pos = m.end()
    if kind == "word":
        return _emit_word(lx, m.group())
    lx.emit(T.FIELD if kind == "field" else T.VARIABLE if kind == "var" else T.STRING)
    return lex_inside_action


def lex_inside_action(lx: Lexer) -> State | None:
    delim, _ = lx.at_right_delim()
    if delim:
        if lx.paren_depth == 0:
            return lex_right_delim
        return lx.errorf("unclosed left paren")
    state = _fast_token(lx)
    if state is not None:
        return state
    r = lx.next()
    if r == "":
        return lx.errorf("unclosed action")
    if r in SPACE_CHARS:
        lx.backup()  # put the space back in case we have " -}}"
        return lex_space
    single = _SINGLE.get(r)
    if single is not None:
        lx.emit(single)
        return lex_inside_action
    state = _literal_start(lx, r)
    if state is not None:
        return state
    return _lex_other(lx, r)


def _literal_start(lx: Lexer, r: str) -> State | None:
    if r == ":":
        if lx.next() != "=":
            lx.errorf("expected :=")
            return _STOP
        lx.emit(T.DECLARE)
        return lex_inside_action
    if r == '"':
        return lex_quote
    if r == "`":
        return lex_raw_quote
    if r == "$":
        return lex_variable
    if r == "'":
        return lex_char
    if r == ".":
        nxt = lx.peek()
        if nxt == "" or not ("0" <= nxt <= "9"):
            return lex_field
        lx.backup()
        return lex_number
    if r in "+-" or "0" <= r <= "9":
        lx.backup()
        return lex_number
    return None


def _stop(lx: Lexer) -> State | None:
    return None


_STOP: State = _stop


def _lex_other(lx: Lexer, r: str) -> State | None:
    if is_alnum(r):
        lx.backup()
        return lex_identifier
    if r == "(":
        lx.paren_depth += 1
        lx.emit(T.LEFT_PAREN)
        return lex_inside_action
    if r == ")":
        lx.paren_depth -= 1
        if lx.paren_depth < 0:
            return lx.errorf("unexpected right paren")
        lx.emit(T.RIGHT_PAREN)
        return lex_inside_action
    if r.isascii() and r.isprintable():
        lx.emit(T.CHAR)
        return lex_inside_action
    return lx.errorf(f"unrecognized character in action: {go_unicode(r)}")


_SPACES = re.compile(r"[ \t\r\n]+")


def lex_space(lx: Lexer) -> State | None:
    end = _SPACES.match(lx.input, lx.pos).end()  # type: ignore[union-attr]
    n = end - lx.pos
    lx.pos = end
    s, p = lx.input, lx.pos - 1
    if _has_right_trim(s, p) and s.startswith(RIGHT_DELIM, p + 2):
        lx.backup()  # before the space
        if n == 1:
            return lex_right_delim
    lx.emit(T.SPACE)
    return lex_inside_action


_ASCII_WORD = re.compile(r"[A-Za-z0-9_]*")


def _skip_ascii_word(lx: Lexer) -> None:
    """Fast path over the ASCII part of a word; the rune loop finishes the rest."""
    lx.pos = _ASCII_WORD.match(lx.input, lx.pos).end()  # type: ignore[union-attr]


def lex_identifier(lx: Lexer) -> State | None:
    _skip_ascii_word(lx)
    while True:
        r = lx.next()
        if is_alnum(r):
            continue
        lx.backup()
        word = lx.input[lx.start : lx.pos]
        if not lx.at_terminator():
            return lx.errorf(f"bad character {go_unicode(r)}")
        return _emit_word(lx, word)


def _emit_word(lx: Lexer, word: str) -> State | None:
    kw = KEYWORDS.get(word)
    if kw is not None and kw > T.KEYWORD:
        if (kw == T.BREAK and not lx.break_ok) or (kw == T.CONTINUE and not lx.continue_ok):
            lx.emit(T.IDENTIFIER)
        else:
            lx.emit(kw)
    elif word[0] == ".":
        lx.emit(T.FIELD)
    elif word in ("true", "false"):
        lx.emit(T.BOOL)
    else:
        lx.emit(T.IDENTIFIER)
    return lex_inside_action


def lex_field(lx: Lexer) -> State | None:
    return _lex_field_or_variable(lx, T.FIELD)


def lex_variable(lx: Lexer) -> State | None:
    if lx.at_terminator():  # just "$"
        lx.emit(T.VARIABLE)
        return lex_inside_action
    return _lex_field_or_variable(lx, T.VARIABLE)


def _lex_field_or_variable(lx: Lexer, typ: int) -> State | None:
    if lx.at_terminator():  # nothing interesting follows: "." or "$"
        lx.emit(T.VARIABLE if typ == T.VARIABLE else T.DOT)
        return lex_inside_action
    _skip_ascii_word(lx)
    while True:
        r = lx.next()
        if not is_alnum(r):
            lx.backup()
            break
    if not lx.at_terminator():
        return lx.errorf(f"bad character {go_unicode(r)}")
    lx.emit(typ)
    return lex_inside_action


def lex_char(lx: Lexer) -> State | None:
    return _lex_quoted(lx, "'", T.CHAR_CONSTANT, "unterminated character constant")


def _lex_quoted(lx: Lexer, quote: str, typ: int, unterminated: str) -> State | None:
    """A quoted literal whose opening quote was read; escapes skip one rune, newlines end it."""
    while True:
        r = lx.next()
        if r == "\\":
            r = lx.next()
            if r not in ("", "\n"):
                continue
            return lx.errorf(unterminated)
        if r in ("", "\n"):
            return lx.errorf(unterminated)
        if r == quote:
            break
    lx.emit(typ)
    return lex_inside_action


def lex_number(lx: Lexer) -> State | None:
    if not _scan_number(lx):
        return lx.errorf(f"bad number syntax: {go_quote(lx.input[lx.start : lx.pos])}")
    sign = lx.peek()
    if sign in ("+", "-") and sign != "":
        # Complex: 1+2i. No spaces, must end in 'i'.
        if not _scan_number(lx) or lx.input[lx.pos - 1] != "i":
            return lx.errorf(f"bad number syntax: {go_quote(lx.input[lx.start : lx.pos])}")
        lx.emit(T.COMPLEX)
    else:
        lx.emit(T.NUMBER)
    return lex_inside_action


def _scan_number(lx: Lexer) -> bool:
    lx.accept("+-")
    digits = "0123456789_"
    if lx.accept("0"):
        # A leading 0 does not mean octal in floats.
        if lx.accept("xX"):
            digits = "0123456789abcdefABCDEF_"
        elif lx.accept("oO"):
            digits = "01234567_"
        elif lx.accept("bB"):
            digits = "01_"
    lx.accept_run(digits)
    if lx.accept("."):
        lx.accept_run(digits)
    if len(digits) == 11 and lx.accept("eE"):
        lx.accept("+-")
        lx.accept_run("0123456789_")
    if len(digits) == 23 and lx.accept("pP"):
        lx.accept("+-")
        lx.accept_run("0123456789_")
    lx.accept("i")  # imaginary
    if is_alnum(lx.peek()):  # the next thing mustn't be alphanumeric
        lx.next()
        return False
    return True


def lex_quote(lx: Lexer) -> State | None:
    return _lex_quoted(lx, '"', T.STRING, "unterminated quoted string")


def lex_raw_quote(lx: Lexer) -> State | None:
    end = lx.input.find("`", lx.pos)
    if end < 0:
        return lx.errorf("unterminated raw quoted string")
    lx.pos = end + 1
    lx.emit(T.RAW_STRING)
    return lex_inside_action


# ------------------------------------------------------- Go text formatting

# strconv's one-letter escapes (appendEscapedRune).
GO_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def _quote_rune(c: str) -> str:
    if c == '"' or c == "\\":
        return "\\" + c
    if c in GO_ESCAPES:
        return GO_ESCAPES[c]
    if c.isprintable() or c == " ":
        return c
    o = ord(c)
    if 0xD800 <= o <= 0xDFFF:
        return "\\ufffd"
    if o < 0x80:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def go_quote(s: str) -> str:
    """strconv.Quote (Python's isprintable stands in for Go's IsPrint)."""
    return '"' + "".join(_quote_rune(c) for c in s) + '"'


def go_quote_prefix(s: str, nbytes: int) -> str:
    """fmt's `%.Nq`: the first N runes... Go truncates the string to N runes first."""
    return go_quote(s[:nbytes])


def go_unicode(r: str) -> str:
    """fmt's %#U: U+0041 'A'."""
    if r == "":
        return "U+FFFFFFFFFFFFFFFF"
    o = ord(r)
    text = f"U+{o:04X}"
    if r.isprintable():
        text += f" '{r}'"
    return text
