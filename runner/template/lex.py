"""The lexer of text/template/parse (lex.go).

`lex(text)` returns every item of the text at once, ending with an EOF or an
ERROR item. An item is a plain tuple `(type, pos, val, line)`: `pos` is the
byte offset in the UTF-8 text (Go's `Pos`), `line` the line the item starts
on. Trim markers (`{{- ` and ` -}}`) are applied here, comments are dropped,
and a lexing error becomes an error item that ends the stream, as in Go.

`Lexer.run` scans text for `{{` and the usual tokens of an action with one
regular expression; every other token (numbers beyond plain decimals,
character constants, non-ASCII names, comments) and every error goes through
Go's state functions, which hand back to the loop after each token.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from runner.golang.strconv import quote


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


# (type, byte offset, text, line)
Item = tuple[int, int, str, int]

# Words with an item type of their own: keywords, and the two bools.
WORDS = {
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
    "true": T.BOOL,
    "false": T.BOOL,
}


def item_text(item: Item) -> str:
    """Go's item.String(): how a parse error quotes a token."""
    typ, _, val, _ = item
    if typ == T.EOF:
        return "EOF"
    if typ == T.ERROR:
        return val
    if typ > T.KEYWORD:
        return f"<{val}>"
    if len(val.encode("utf-8", "surrogateescape")) > 10:
        return quote(val[:10]) + "..."  # fmt's %.10q: the first 10 runes
    return quote(val)


LEFT_DELIM = "{{"
RIGHT_DELIM = "}}"
LEFT_COMMENT = "/*"
RIGHT_COMMENT = "*/"
SPACE_CHARS = " \t\r\n"


def is_alnum(r: str) -> bool:
    """Go's isAlphaNumeric: '_', unicode.IsLetter or unicode.IsDigit."""
    if r == "":
        return False
    if r == "_" or r.isascii() and r.isalnum():
        return True
    if r.isascii():
        return False
    import unicodedata  # only names with non-ASCII letters get here

    cat = unicodedata.category(r)
    return cat[0] == "L" or cat == "Nd"


def _has_left_trim(s: str, i: int) -> bool:
    return len(s) >= i + 2 and s[i] == "-" and s[i + 1] in SPACE_CHARS


def _has_right_trim(s: str, i: int) -> bool:
    return len(s) >= i + 2 and s[i] in SPACE_CHARS and s[i + 1] == "-"


State = Callable[["Lexer"], "State | None"]

# The tokens Lexer.run reads itself, one group each (ASCII only; anything the
# pattern leaves out, errors included, goes to lex_inside_action). The groups
# from _PLAIN_GROUP on need nothing but their item.
_TERMINATED = r"(?=[ \t\r\n.,|:()]|\}\}|\Z)"
_ACTION_PATTERN = (
    r"([ \t\r\n]-\}\}[ \t\r\n]*)"  # 1: right delimiter with trim marker, and the space it trims
    r"|(\}\})"  # 2: right delimiter
    r"|([ \t\r\n]+)(?!-\}\})"  # 3: space, leaving the one before a trim marker
    r"|([A-Za-z_][A-Za-z0-9_]*)" + _TERMINATED  # 4: word
    + r"|(`[^`]*`)"  # 5: raw string
    r"|(\()"  # 6
    r"|(\))"  # 7
    r"|(\.[A-Za-z_][A-Za-z0-9_]*)" + _TERMINATED  # 8: field
    + r"|(\$[A-Za-z0-9_]*)" + _TERMINATED  # 9: variable
    + r'|("[^"\\\n]*(?:\\[^\n][^"\\\n]*)*")'  # 10: quoted string
    r"|(\|)"  # 11
    r"|(\.)" + _TERMINATED  # 12: dot
    + r"|([+-]?[0-9]+(?:\.[0-9]+)?)(?=[ \t\r\n,|:()]|\}\}|\Z)"  # 13: plain decimal number
    r"|(:=)"  # 14
    r"|(=)"  # 15
    r"|(,)"  # 16
)
_PLAIN_GROUP = 8
_GROUP_TYPES = (
    T.ERROR, T.RIGHT_DELIM, T.RIGHT_DELIM, T.SPACE, T.IDENTIFIER, T.RAW_STRING, T.LEFT_PAREN,
    T.RIGHT_PAREN, T.FIELD, T.VARIABLE, T.STRING, T.PIPE, T.DOT, T.NUMBER, T.DECLARE, T.ASSIGN, T.CHAR,
)  # fmt: skip
_action_token: Callable[[str, int], re.Match[str] | None] | None = None  # compiled on first use


def _action_matcher() -> Callable[[str, int], re.Match[str] | None]:
    global _action_token
    if _action_token is None:
        _action_token = re.compile(_ACTION_PATTERN).match
    return _action_token


class Lexer:
    """Scans the whole input into a list of items (the parser reads them in order).

    Positions are character indexes while scanning; lex() turns them into
    UTF-8 byte offsets for a non-ASCII text.
    """

    def __init__(self, text: str, *, break_ok: bool = True, continue_ok: bool = True) -> None:
        self.input = text
        self.pos = 0
        self.start = 0
        self.paren_depth = 0
        self.items: list[Item] = []
        self.words = WORDS
        if not (break_ok and continue_ok):  # a function of that name shadows the keyword
            self.words = dict(WORDS)
            if not break_ok:
                self.words["break"] = T.IDENTIFIER
            if not continue_ok:
                self.words["continue"] = T.IDENTIFIER
        self._line_at = 0  # character index up to which _line is counted
        self._line = 1

    # ------------------------------------------------------------ helpers

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
        self.items.append((typ, start, self.input[start : self.pos], self.line_of(start)))
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
        self.items.append((T.ERROR, self.start, msg, self.line_of(self.start)))
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
        pos = 0
        while pos >= 0:
            pos = self._text(pos)
            if pos >= 0:
                pos = self._action(pos)
        return self.items

    def _text(self, pos: int) -> int:
        """lexText and lexLeftDelim: the text up to the next action, skipping comments;
        where the action's tokens start, or -1 when the input ended."""
        s = self.input
        while True:
            x = s.find(LEFT_DELIM, pos)
            if x < 0:
                if len(s) > pos:
                    self.items.append((T.TEXT, pos, s[pos:], self.line_of(pos)))
                self.items.append((T.EOF, len(s), "", self.line_of(len(s))))
                return -1
            trim = _has_left_trim(s, x + len(LEFT_DELIM))
            if x > pos:
                text = s[pos:x].rstrip(SPACE_CHARS) if trim else s[pos:x]
                if text:
                    self.items.append((T.TEXT, pos, text, self.line_of(pos)))
            after = x + len(LEFT_DELIM) + (2 if trim else 0)
            if not s.startswith(LEFT_COMMENT, after):
                self.items.append((T.LEFT_DELIM, x, LEFT_DELIM, self.line_of(x)))
                return after
            self.pos = self.start = after
            if not lex_comment(self):
                return -1
            pos = self.pos

    def _action(self, pos: int) -> int:
        """lexInsideAction: the tokens of one action; where the text after it starts,
        or -1 when the input ended (an error item, or an unclosed action)."""
        s = self.input
        append = self.items.append
        match = _action_matcher()
        words = self.words
        line = self.line_of(pos)
        depth = 0
        while True:
            m = match(s, pos)
            group = 0 if m is None else m.lastindex
            if group >= _PLAIN_GROUP:
                append((_GROUP_TYPES[group], pos, m.group(), line))  # type: ignore[union-attr]
                pos = m.end()  # type: ignore[union-attr]
            elif group == 3 or group == 5:  # space or raw string: may hold newlines
                val = m.group()  # type: ignore[union-attr]
                append((_GROUP_TYPES[group], pos, val, line))
                pos = m.end()  # type: ignore[union-attr]
                if "\n" in val:
                    line += val.count("\n")
            elif group == 4:
                val = m.group()  # type: ignore[union-attr]
                append((words.get(val, T.IDENTIFIER), pos, val, line))
                pos = m.end()  # type: ignore[union-attr]
            elif group == 6:
                depth += 1
                append((T.LEFT_PAREN, pos, "(", line))
                pos += 1
            elif group == 7 and depth > 0:
                depth -= 1
                append((T.RIGHT_PAREN, pos, ")", line))
                pos += 1
            elif group in (1, 2) and depth == 0:
                return self._right_delim(pos, m.end(), line, group == 1)  # type: ignore[union-attr]
            else:  # not a token the pattern reads, or an error
                pos, depth, line = self._state_token(pos, depth, line)
                if pos < 0:
                    return -1

    def _right_delim(self, pos: int, end: int, line: int, trim: bool) -> int:
        """lexRightDelim: the delimiter read from `pos` (on line `line`) to `end`, trimmed
        space included; returns `end`, where the text after it starts."""
        if trim:
            if self.input[pos] == "\n":
                line += 1
            pos += 2
        self.items.append((T.RIGHT_DELIM, pos, RIGHT_DELIM, line))
        self._line_at, self._line = pos, line
        return end

    def _state_token(self, pos: int, depth: int, line: int) -> tuple[int, int, int]:
        """One token through the state functions: (pos, paren depth, line) after it,
        pos -1 when lexing stopped."""
        self.pos = self.start = pos
        self.paren_depth = depth
        self._line_at, self._line = pos, line
        state = lex_inside_action(self)
        while state is not None and state is not lex_inside_action:
            state = state(self)
        if state is None:
            return -1, depth, line
        return self.pos, self.paren_depth, self.line_of(self.pos)


def lex(text: str, *, break_ok: bool = True, continue_ok: bool = True) -> list[Item]:
    """All items of `text`, ending with an EOF or an ERROR item."""
    items = Lexer(text, break_ok=break_ok, continue_ok=continue_ok).run()
    if text.isascii():
        return items
    if _has_surrogates(text):
        text = _invalid_bytes_in_actions(text, items)
        items = Lexer(text, break_ok=break_ok, continue_ok=continue_ok).run()
    return _byte_positions(text, items)


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# A byte of invalid UTF-8 from a file is kept as a surrogate escape (U+DC80-U+DCFF).
_INVALID_BYTE = dict.fromkeys(range(0xDC80, 0xDD00), "\ufffd")


def _invalid_bytes_in_actions(text: str, items: list[Item]) -> str:
    """Go's lexer reads runes inside actions: an invalid byte there is U+FFFD (in a string
    literal, a name, an error's "U+FFFD '�'"); text outside actions keeps its bytes."""
    out: list[str] = []
    at = 0
    for typ, pos, val, _ in items:
        if typ == T.TEXT:
            out.append(text[at:pos].translate(_INVALID_BYTE))
            out.append(val)
            at = pos + len(val)
    out.append(text[at:].translate(_INVALID_BYTE))
    return "".join(out)


def _byte_positions(text: str, items: list[Item]) -> list[Item]:
    """The items with Go's positions: UTF-8 byte offsets (items come in position order)."""
    out: list[Item] = []
    at = nbytes = 0
    for typ, pos, val, line in items:
        nbytes += len(text[at:pos].encode("utf-8", "surrogatepass"))
        at = pos
        out.append((typ, nbytes, val, line))
    return out


# ------------------------------------------------------------------ states


def lex_comment(lx: Lexer) -> bool:
    """Skip a comment (lexComment); False after an error item."""
    lx.pos += len(LEFT_COMMENT)
    x = lx.input.find(RIGHT_COMMENT, lx.pos)
    if x < 0:
        lx.errorf("unclosed comment")
        return False
    lx.pos = x + len(RIGHT_COMMENT)
    delim, trim = lx.at_right_delim()
    if not delim:
        lx.errorf("comment ends before closing delimiter")
        return False
    if trim:
        lx.pos += 2
    lx.pos += len(RIGHT_DELIM)
    if trim:
        _skip_spaces(lx)
    lx.ignore()
    return True


def _skip_spaces(lx: Lexer) -> None:
    while lx.peek() in (" ", "\t", "\r", "\n"):
        lx.pos += 1


def lex_inside_action(lx: Lexer) -> State | None:
    """One token of an action that Lexer.run's pattern does not read."""
    delim, _ = lx.at_right_delim()
    if delim:  # Lexer.run reads the ones outside parentheses
        return lx.errorf("unclosed left paren")
    r = lx.next()
    if r == "":
        return lx.errorf("unclosed action")
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
    if r == ")":
        return lx.errorf("unexpected right paren")  # the pattern reads the others
    if r.isascii() and r.isprintable():
        lx.emit(T.CHAR)
        return lex_inside_action
    return lx.errorf(f"unrecognized character in action: {go_unicode(r)}")


def lex_identifier(lx: Lexer) -> State | None:
    while True:
        r = lx.next()
        if is_alnum(r):
            continue
        lx.backup()
        word = lx.input[lx.start : lx.pos]
        if not lx.at_terminator():
            return lx.errorf(f"bad character {go_unicode(r)}")
        lx.emit(lx.words.get(word, T.IDENTIFIER))
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
        return lx.errorf(f"bad number syntax: {quote(lx.input[lx.start : lx.pos])}")
    sign = lx.peek()
    if sign in ("+", "-") and sign != "":
        # Complex: 1+2i. No spaces, must end in 'i'.
        if not _scan_number(lx) or lx.input[lx.pos - 1] != "i":
            return lx.errorf(f"bad number syntax: {quote(lx.input[lx.start : lx.pos])}")
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


def go_unicode(r: str) -> str:
    """fmt's %#U of a rune (U+0041 'A'); "" is the EOF rune -1, as Go prints it."""
    from runner.golang.fmt import sprintf  # error texts only

    return sprintf("%#U", [ord(r) if r else -1])
