"""The API server's `Warning` response headers as client-go reads and reports them.

The server warns with code 299 (`299 - "unknown field \\"spec.color\\""`): deprecated
APIs, unknown fields under fieldValidation=Warn (client-side apply), admission
warnings. client-go parses every header of every answer (apimachinery's
ParseWarningHeaders) and hands each warning to its default handler, which in
client-go v0.35 (Helm 4.1.4's) is the WarningLogger: code 299 only, non-empty text,
logged through klog as `Warning: TEXT`, one line per warning, none left out as a
repeat. `logged_line` is that line.
"""

from __future__ import annotations

from collections.abc import Iterable

# rest.WarningLogger's klog call site in client-go v0.35.1 (rest/warnings.go).
CALLER = "warnings.go:107"


def warnings_to_report(headers: Iterable[str]) -> list[str]:
    """The texts the WarningLogger logs from these Warning header values, in order."""
    return [text for code, text in parse_warning_headers(headers) if code == 299 and text]


def logged_line(text: str) -> str:
    """What Helm's stderr shows for one warning (the time and process id are now's and ours)."""
    from runner.golang.klog import info_s

    return info_s(f"Warning: {text}", CALLER)


def parse_warning_headers(headers: Iterable[str]) -> list[tuple[int, str]]:
    """ParseWarningHeaders: (code, text) of each warning, several per header when
    comma-separated; a malformed one ends its header (the warnings before it count)."""
    found: list[tuple[int, str]] = []
    for header in headers:
        while header:
            parsed = _parse_one(header)
            if parsed is None:
                break
            code, text, header = parsed
            found.append((code, text))
    return found


def _parse_one(header: str) -> tuple[int, str, str] | None:
    """ParseWarningHeader: `code agent "text" ["date"]`, then an optional `,` and the rest."""
    parts = header.strip().split(" ", 2)
    if len(parts) != 3:
        return None
    code, agent, rest = parts
    if not (len(code) == 3 and code.isascii() and code.isdigit()) or not agent or not rest:
        return None
    if any(_is_control(ch) for ch in agent):
        return None
    quoted = _quoted(rest)
    if quoted is None:
        return None
    text, rest = quoted
    if any(_is_control(ch) for ch in text):
        return None
    if rest.startswith('"'):  # the warn-date: skipped
        end = rest.find('"', 1)
        if end < 0:
            return None
        rest = rest[end + 1:].strip()
    if rest:
        if not rest.startswith(","):
            return None
        rest = rest[1:].strip()
    return int(code), text, rest


def _quoted(text: str) -> tuple[str, str] | None:
    """parseQuotedString: the text between quotes (backslash escapes any byte), the rest."""
    if not text.startswith('"'):
        return None
    out: list[str] = []
    escaping = False
    for index in range(1, len(text)):
        ch = text[index]
        if ch == '"' and not escaping:
            return "".join(out), text[index + 1:].strip()
        if ch == "\\" and not escaping:
            escaping = True
            continue
        out.append(ch)
        escaping = False
    return None


def _is_control(ch: str) -> bool:
    """unicode.IsControl: C0, DEL and C1."""
    return ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0
