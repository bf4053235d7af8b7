"""Helm's --set grammar (pkg/strvals: parser.go and literal_parser.go).

`name1=value1,name2=value2`, dotted names make maps, `name[0]` makes lists
(gaps filled with null, index at most 65536), `{a,b}` is a list value, `\\`
escapes the next character. Values are typed as Helm types them: `true` /
`false` / `null` (any case), integers without a leading zero are int64
(`Int64`), everything else is a string. --set-string keeps strings,
--set-json decodes each value as JSON (numbers float64), --set-file reads the
value from a file, --set-literal takes the rest of the argument verbatim.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.golang.types import Int64

MAX_INDEX = 65536
MAX_NESTED_NAME_LEVEL = 30

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    ValueReader = Callable[[str], Any]


class StrvalsError(Exception):
    """A --set family argument Helm would refuse; the text is Helm's."""


class _EOF(Exception):
    """io.EOF: the input ran out."""


class _NotList(Exception):
    """ErrNotList: the value is not a `{...}` list."""


def typed_value(text: str, as_string: bool = False) -> Any:
    """strvals.typedVal."""
    if as_string:
        return text
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    if lowered == "null":
        return None
    if text == "0":
        return Int64(0)
    if text and text[0] != "0":
        number = _parse_int64(text)
        if number is not None:
            return Int64(number)
    return text


def _parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): optional sign, ASCII digits, in range."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


def _type_name(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Int64):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return type(value).__name__


class _Conversion(Exception):
    """A Go type assertion that panicked (recovered by key() as "unable to parse key")."""


def _assert_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _Conversion(
            f"interface conversion: interface {{}} is {_type_name(value)}, not []interface {{}}"
        )
    return value


def _assert_map(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Conversion(
            f"interface conversion: interface {{}} is {_type_name(value)}, not map[string]interface {{}}"
        )
    return value


def _quote_runes(text: str) -> str:
    """Go's %q of a []rune: each rune as a quoted character literal, in brackets."""
    from runner.golang.fmt import sprintf

    return "[" + " ".join(sprintf("%q", [Int64(ord(ch))]) for ch in text) + "]"


def _set(data: dict[str, Any], key: str, value: Any) -> None:
    if key:
        data[key] = value


def _set_index(items: list[Any], index: int, value: Any) -> list[Any]:
    if index < 0:
        raise StrvalsError(f"negative {index} index not allowed")
    if index > MAX_INDEX:
        raise StrvalsError(
            f"index of {index} is greater than maximum supported index of {MAX_INDEX}"
        )
    if len(items) <= index:
        items = items + [None] * (index + 1 - len(items))
    items[index] = value
    return items


def _atoi(text: str) -> int:
    from runner.golang.strconv import NumError, atoi

    try:
        return atoi(text)
    except NumError as err:  # Go's text: the input quoted (strconv.Quote), then why
        raise StrvalsError(f"error parsing index: {err}") from None


class _Parser:
    """One strvals line; `mode` is typed, string, json, file or literal."""

    def __init__(
        self, text: str, data: dict[str, Any], mode: str, reader: ValueReader | None
    ) -> None:
        self.text, self.pos, self.data, self.mode = text, 0, data, mode
        self.reader = reader

    # --- scanning -------------------------------------------------------------
    def _read(self) -> str:
        if self.pos >= len(self.text):
            raise _EOF
        ch = self.text[self.pos]
        self.pos += 1
        return ch

    def _until(self, stop: str) -> tuple[str, str | None]:
        """runesUntil: (text, stop rune); the rune is None at end of input."""
        out: list[str] = []
        literal = self.mode == "literal"
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            self.pos += 1
            if ch in stop:
                return "".join(out), ch
            if ch == "\\" and not literal:
                if self.pos >= len(self.text):
                    return "".join(out), None
                ch = self.text[self.pos]
                self.pos += 1
            out.append(ch)
        return "".join(out), None

    # --- grammar --------------------------------------------------------------
    def parse(self) -> None:
        while True:
            try:
                self._key(self.data, 0)
            except _EOF:
                return

    def _key(self, data: dict[str, Any], level: int) -> None:
        try:
            self._key_body(data, level)
        except _Conversion as exc:
            raise StrvalsError(f"unable to parse key: {exc}") from None

    def _key_body(self, data: dict[str, Any], level: int) -> None:
        stop = "=[." if self.mode == "literal" else "=[,."
        key, last = self._until(stop)
        if last is None:
            if not key:
                raise _EOF
            raise StrvalsError(f'key "{key}" has no value')
        if last == "[":
            index = self._key_index()
            items = _assert_list(data[key]) if key in data else []
            try:
                items = self._list_item(items, index, level)
            finally:
                _set(data, key, items)
            return
        if last == "=":
            self._assign(data, key)
            return
        if last == ",":
            _set(data, key, "")
            raise StrvalsError(f'key "{key}" has no value (cannot end with ,)')
        level += 1
        if level > MAX_NESTED_NAME_LEVEL:
            raise StrvalsError(
                "value name nested level is greater than maximum supported nested level of "
                f"{MAX_NESTED_NAME_LEVEL}"
            )
        inner = _assert_map(data[key]) if key in data else {}
        try:
            self._key(inner, level)
        except (StrvalsError, _EOF):
            if inner:
                _set(data, key, inner)
            raise
        if not inner:
            raise StrvalsError(f'key map "{key}" has no value')
        _set(data, key, inner)

    def _assign(self, data: dict[str, Any], key: str) -> None:
        if self.mode == "literal":
            _set(data, key, self._rest())
            return
        if self.mode == "json":
            _set(data, key, self._json_value())
            return
        try:
            values = self._value_list()
        except _EOF:
            _set(data, key, "")
            raise
        except _NotList:
            _set(data, key, self._convert(self._val()))
            return
        _set(data, key, values)

    def _key_index(self) -> int:
        text, last = self._until("]")
        if last is None:
            # Go wraps io.EOF ("error parsing index: %w") and parse() ends quietly on
            # errors.Is(err, io.EOF): `a[` or `a[0` sets nothing and is no error.
            raise _EOF
        return _atoi(text)

    def _list_item(self, items: list[Any], index: int, level: int) -> list[Any]:
        if index < 0:
            raise StrvalsError(f"negative {index} index not allowed")
        rest, last = self._until("[.=")
        if rest:
            raise StrvalsError(f"unexpected data at end of array index: {_quote_runes(rest)}")
        if last is None:
            raise _EOF
        if last == "=":
            return self._list_assign(items, index)
        if last == "[":
            next_index = self._key_index()
            current: list[Any] = []
            if len(items) > index and items[index] is not None:
                current = _assert_list(items[index])
            return _set_index(items, index, self._list_item(current, next_index, level))
        inner: dict[str, Any] = {}
        if len(items) > index:
            if not isinstance(items[index], dict):
                items[index] = {}
            inner = items[index]
        self._key(inner, level)
        return _set_index(items, index, inner)

    def _list_assign(self, items: list[Any], index: int) -> list[Any]:
        if self.mode == "literal":
            return _set_index(items, index, self._rest())
        if self.mode == "json":
            return _set_index(items, index, self._json_value())
        try:
            values = self._value_list()
        except _EOF:
            return _set_index(items, index, "")
        except _NotList:
            return _set_index(items, index, self._convert(self._val()))
        return _set_index(items, index, values)

    def _val(self) -> str:
        text, _ = self._until(",")
        return text

    def _rest(self) -> str:
        text, self.pos = self.text[self.pos :], len(self.text)
        return text

    def _convert(self, text: str) -> Any:
        if self.mode == "file" and self.reader is not None:
            return self.reader(text)
        return typed_value(text, as_string=self.mode == "string")

    def _value_list(self) -> list[Any]:
        if self._read() != "{":
            self.pos -= 1
            raise _NotList
        values: list[Any] = []
        while True:
            text, last = self._until(",}")
            if last is None:
                raise StrvalsError("list must terminate with '}'")
            values.append(self._convert(text))
            if last == "}":
                if self.pos < len(self.text) and self.text[self.pos] == ",":
                    self.pos += 1
                return values

    def _empty_value(self) -> bool:
        """Skip blanks; True at a comma or the end (the comma is consumed)."""
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            self.pos += 1
            if ch == ",":
                return True
            if not ch.isspace():
                self.pos -= 1
                return False
        return True

    def _json_value(self) -> Any:
        if self._empty_value():
            return None
        from runner.encoding.gojson import UnmarshalError, raw_decode

        try:
            # Go's json.Decoder: numbers float64; NaN, Infinity, a number out of float64's
            # range or nesting over 10000 deep refused (a record could not hold them).
            value, end = raw_decode(self.text, self.pos)
        except UnmarshalError as exc:
            raise StrvalsError(f"invalid JSON value: {exc}") from None
        self.pos = end
        self._empty_value()
        return value


def parse_into(
    text: str, dest: dict[str, Any], mode: str = "typed", reader: ValueReader | None = None
) -> None:
    """Parse one --set style argument into dest (Helm's ParseInto and siblings)."""
    _Parser(text, dest, mode, reader).parse()


def parse(text: str, mode: str = "typed") -> dict[str, Any]:
    out: dict[str, Any] = {}
    parse_into(text, out, mode)
    return out
