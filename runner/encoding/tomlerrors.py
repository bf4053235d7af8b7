"""BurntSushi/toml's wording for a TOML document tomllib rejected (fromToml's Error).

tomllib finds the problem and its position; this module reads the text
around that position the way BurntSushi's lexer would have met it and words
the error as its ParseError does: "toml: line N (last key \"k\"): message".
It covers the common mistakes (missing or bare values, duplicate keys and
tables, unterminated strings, arrays and inline tables, malformed numbers and
dates, bad escapes, blank keys); anything else keeps tomllib's message.
"""

from __future__ import annotations

import re

_POSITION = re.compile(r"\s*\((?:at line (\d+), column (\d+)|at end of document)\)$")
_BARE_KEY = r"(?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*')"
_KEY = re.compile(rf"\s*({_BARE_KEY}(?:\s*\.\s*{_BARE_KEY})*)\s*=")
_HEADER = re.compile(rf"\s*(\[\[?)\s*({_BARE_KEY}(?:\s*\.\s*{_BARE_KEY})*)\s*\]\]?")
_WORD = re.compile(r"[A-Za-z0-9_+:-]+")


def _parts(key: str) -> list[str]:
    return [p.strip().strip("\"'") for p in re.findall(_BARE_KEY, key)]


def _go_rune(c: str) -> str:
    """%q of a rune as Go prints it."""
    named = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\x00", "'": "\\'", "\\": "\\\\"}
    return "'" + named.get(c, c) + "'"


class _Doc:
    """Statements of the text up to a line: the current table and the keys seen."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")

    def key_at(self, line: int) -> str:
        """Full dotted key of the statement on `line` (1-based), or ''."""
        table: list[str] = []
        for raw in self.lines[:line]:
            header = _HEADER.match(raw)
            if header and not _KEY.match(raw):
                table = _parts(header[2])
        for raw in reversed(self.lines[:line]):  # the statement may span lines
            if _HEADER.match(raw) and not _KEY.match(raw):
                return ""
            match = _KEY.match(raw)
            if match:
                return ".".join([*table, *_parts(match[1])])
        return ""

    def duplicate(self) -> tuple[int, str, bool] | None:
        """(line, key, is_table) of the first redefinition, as BurntSushi meets it."""
        table: list[str] = []
        defined: set[str] = set()
        tables: set[str] = set()
        for index, raw in enumerate(self.lines, start=1):
            header = _HEADER.match(raw)
            if header and not _KEY.match(raw):
                table = _parts(header[2])
                name = ".".join(table)
                if name in defined or (header[1] == "[" and name in tables):
                    return index, name, True
                tables.add(name)
                continue
            match = _KEY.match(raw)
            if match:
                name = ".".join([*table, *_parts(match[1])])
                if name in defined:
                    return index, name, False
                defined.add(name)
        return None


def burntsushi_message(text: str, tomllib_message: str) -> str:
    """The fromToml Error text for a document tomllib rejected."""
    found = _POSITION.search(tomllib_message)
    problem = _POSITION.sub("", tomllib_message)
    doc = _Doc(text)
    if found and found[1]:
        line, column = int(found[1]), int(found[2])
    else:  # at end of document: BurntSushi counts the lines it read
        line = text.count("\n") if text.endswith("\n") else text.count("\n") + 1
        column = 0
    at = _offset(doc, line, column) if column else len(text)
    rest = text[at:]
    worded = _word(problem, doc, text, line, rest)
    if worded is None:
        return f"toml: line {line}: {problem}"
    line, key, message = worded
    where = f" (last key {_go_string(key)})" if key else ""
    return f"toml: line {line}{where}: {message}"


def _go_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _offset(doc: _Doc, line: int, column: int) -> int:
    return sum(len(raw) + 1 for raw in doc.lines[: line - 1]) + column - 1


def _word(problem: str, doc: _Doc, text: str, line: int, rest: str) -> tuple[int, str, str] | None:
    key = doc.key_at(line) if line <= len(doc.lines) else ""
    if problem == "Cannot overwrite a value" or problem.startswith("Cannot declare"):
        duplicate = doc.duplicate()
        if duplicate is None:
            return None
        dup_line, name, is_table = duplicate
        return dup_line, "" if is_table else name, f"Key '{name}' has already been defined."
    if problem == "Invalid value":
        return line, _inline_key(doc, line, key, rest), _bad_value(rest)
    if problem in ("Unterminated string", 'Expected "\'"'):
        quote = '"""' if '"""' in doc.lines[line - 1] else ("'" if "'" in problem else '"')
        shown = f'"{quote}"' if quote == "'" else f"'{quote}'"
        return line, key, f"unexpected EOF; expected {shown}"
    if problem == "Illegal character '\\n'":
        return line, key, "strings cannot contain newlines"
    if problem == "Unclosed array":
        got = "end of file" if not rest else _go_rune(rest[0])
        return line, key, f"expected a comma (',') or array terminator (']'), but got {got}"
    if problem == "Unclosed inline table":
        inner = re.findall(rf"({_BARE_KEY})\s*=", doc.lines[line - 1].split("{", 1)[-1])
        last = f"{key}.{_parts(inner[-1])[0]}" if inner else key
        return (
            line,
            last,
            "expected a comma or an inline table terminator '}', but got end of file instead",
        )
    if problem.startswith("Expected '=' after a key"):
        if not rest:
            return line, "", "unexpected EOF; expected key separator '='"
        return line, "", f"expected '.' or '=', but got {_go_rune(rest[0])} instead"
    if problem == "Invalid statement" and rest:
        if rest.startswith("="):
            return line, "", "unexpected '=': key name appears blank"
        return line, "", f"expected '.' or '=', but got {_go_rune(rest[0])} instead"
    if problem.startswith("Expected newline or end of document"):
        return _after_statement(doc, line, key, rest)
    if problem == "Unescaped '\\' in a string":
        before = text[: len(text) - len(rest)]
        slash = before.rfind("\\")
        if slash >= 0 and slash + 1 < len(text):
            return line, key, f"invalid escape in string '\\{text[slash + 1]}'"
    if (
        problem.startswith(
            ("Expected ']' at the end of a table", "Expected ']]' at the end of an array")
        )
        and rest
    ):
        got = _go_rune(rest[0])
        return (
            line + (rest[0] == "\n"),
            "",
            f"expected '.' or ']' to end table name, but got {got} instead",
        )
    if problem == "Invalid initial character for a key part" and rest.startswith("]"):
        return line, "", "unexpected end of table name (table names cannot be empty)"
    return None


def _inline_key(doc: _Doc, line: int, key: str, rest: str) -> str:
    """Inside `{...}` the last key is the statement's key plus the inner one."""
    if line > len(doc.lines):
        return key
    raw = doc.lines[line - 1]
    head = raw[: len(raw) - len(rest.split("\n", 1)[0])] if rest else raw
    if "{" not in head:
        return key
    inner = re.findall(rf"({_BARE_KEY})\s*=", head.split("{")[-1])
    return f"{key}.{_parts(inner[-1])[0]}" if inner and key else key


def _bad_value(rest: str) -> str:
    if not rest.strip(" \t"):
        return "unexpected EOF; expected value"
    if rest[0] == "\n":
        return "expected value but found '\\n' instead"
    if rest[0] == ".":
        return "floats must start with a digit, not '.'"
    if rest[0] in "+-" and (len(rest) == 1 or not rest[1].isalnum()):
        return f"expected a digit but got {_go_rune(rest[1] if len(rest) > 1 else chr(0))}"
    word = _WORD.match(rest)
    if word is None:
        return f"expected value but found {_go_rune(rest[0])} instead"
    return f'expected value but found "{word[0]}" instead'


def _after_statement(doc: _Doc, line: int, key: str, rest: str) -> tuple[int, str, str]:
    raw = doc.lines[line - 1]
    value = raw.split("=", 1)[-1].strip().split()[0] if "=" in raw else ""
    if re.fullmatch(r"[+-]?0\d+", value):
        return line, key, f'Invalid integer "{value}": cannot have leading zeroes'
    if re.fullmatch(r"[+-]?\d[\d_]*_", value):
        return line, key, f'Invalid integer "{value}": underscores must be surrounded by digits'
    if re.fullmatch(r"[+-]?\d+\.", value):
        return line, key, f"Invalid float \"{value}\": '.' must be followed by one or more digits"
    if re.fullmatch(r"\d{4}-\d\d-\d\d.*", value):
        return line, key, f'invalid datetime: "{value}"'
    got = _go_rune(rest[0]) if rest else "EOF"
    return (
        line,
        "",
        f"expected a top-level item to end with a newline, comment, or EOF, but got {got} instead",
    )
