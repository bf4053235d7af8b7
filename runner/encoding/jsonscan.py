"""encoding/json's syntax checker (scanner.go): Go's words for malformed JSON.

A compact port of the scanner's state machine, validation only, run when
Python's decoder has already rejected the text. It walks the UTF-8 bytes as
Go does (so a stray 'é' is reported as 'Ã', its first byte) and, like
scanner.eof, feeds one space at the end of input before giving up with
"unexpected end of JSON input" ("tru" fails on that space). It recurses once
a nesting level, up to Go's limit: text nested deeper runs on a deep thread.
"""

from __future__ import annotations

MAX_DEPTH = 10000  # scanner.go maxNestingDepth
_INLINE_DEPTH = 200  # deeper text may need more frames than a default stack's limit
_SPACE = b" \t\r\n"
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"


def _quote_char(c: int) -> str:
    """encoding/json quoteChar: the offending byte as a Go rune literal."""
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    from runner.golang.strconv import quote

    return "'" + quote(chr(c))[1:-1] + "'"


def syntax_error(text: str) -> str | None:
    """The message encoding/json's checkValid gives for text, or None when it is valid JSON."""
    data = text.encode("utf-8", "surrogatepass")
    if data.count(b"[") + data.count(b"{") > _INLINE_DEPTH:
        from runner.deepstack import on_deep_thread, run_deep

        if not on_deep_thread():
            return run_deep(lambda: syntax_error(text))
    try:
        _Scanner(data).run()
    except _SyntaxError as exc:
        return str(exc)
    return None


class _SyntaxError(Exception):
    pass


class _Scanner:
    """A compact port of encoding/json/scanner.go's state machine (validation only)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.at_eof = False
        self.depth = 0

    def fail(self, c: int, context: str) -> None:
        raise _SyntaxError(f"invalid character {_quote_char(c)} {context}")

    def next_byte(self) -> int:
        if self.pos >= len(self.data):
            # scanner.eof feeds one space first: "tru" fails on ' ', "{" runs out.
            if self.at_eof:
                raise _SyntaxError("unexpected end of JSON input")
            self.at_eof = True
            return 0x20
        c = self.data[self.pos]
        self.pos += 1
        return c

    def skip_space(self) -> int:
        c = self.next_byte()
        while c in _SPACE:
            c = self.next_byte()
        return c

    def run(self) -> None:
        self.value(self.skip_space())
        while self.pos < len(self.data):
            c = self.data[self.pos]
            self.pos += 1
            if c not in _SPACE:
                self.fail(c, "after top-level value")

    def value(self, c: int) -> None:
        if c in (0x7B, 0x5B):  # { [
            self.depth += 1
            if self.depth > MAX_DEPTH:
                self.fail(c, "exceeded max depth")
            if c == 0x7B:
                self.object()
            else:
                self.array()
            self.depth -= 1
        elif c == 0x22:
            self.string()
        elif c == 0x2D or c in _DIGITS:
            self.number(c)
        elif c in b"tfn":
            self.literal(c)
        else:
            self.fail(c, "looking for beginning of value")

    def object(self) -> None:
        c = self.skip_space()
        if c == 0x7D:
            return
        while True:
            if c != 0x22:
                self.fail(c, "looking for beginning of object key string")
            self.string()
            c = self.skip_space()
            if c != 0x3A:
                self.fail(c, "after object key")
            self.value(self.skip_space())
            c = self.skip_space()
            if c == 0x7D:
                return
            if c != 0x2C:
                self.fail(c, "after object key:value pair")
            c = self.skip_space()

    def array(self) -> None:
        c = self.skip_space()
        if c == 0x5D:
            return
        while True:
            self.value(c)
            c = self.skip_space()
            if c == 0x5D:
                return
            if c != 0x2C:
                self.fail(c, "after array element")
            c = self.skip_space()

    def string(self) -> None:
        while True:
            c = self.next_byte()
            if c == 0x22:
                return
            if c == 0x5C:
                self.escape()
            elif c < 0x20:
                self.fail(c, "in string literal")

    def escape(self) -> None:
        c = self.next_byte()
        if c in b'bfnrt\\/"':
            return
        if c != 0x75:
            self.fail(c, "in string escape code")
        for _ in range(4):
            c = self.next_byte()
            if c not in _HEX:
                self.fail(c, "in \\u hexadecimal character escape")

    def peek(self) -> int | None:
        return self.data[self.pos] if self.pos < len(self.data) else None

    def digits(self) -> None:
        while (c := self.peek()) is not None and c in _DIGITS:
            self.pos += 1

    def number(self, c: int) -> None:
        if c == 0x2D:
            c = self.next_byte()
            if c not in _DIGITS:
                self.fail(c, "in numeric literal")
        if c != 0x30:
            self.digits()
        if self.peek() == 0x2E:
            self.pos += 1
            c = self.next_byte()
            if c not in _DIGITS:
                self.fail(c, "after decimal point in numeric literal")
            self.digits()
        if self.peek() in (0x65, 0x45):
            self.pos += 1
            c = self.next_byte()
            if c in (0x2B, 0x2D):
                c = self.next_byte()
            if c not in _DIGITS:
                self.fail(c, "in exponent of numeric literal")
            self.digits()

    def literal(self, first: int) -> None:
        word = {0x74: b"true", 0x66: b"false", 0x6E: b"null"}[first]
        name = word.decode()
        for expected in word[1:]:
            c = self.next_byte()
            if c != expected:
                self.fail(c, f"in literal {name} (expecting {_quote_char(expected)})")
