"""Cutting text to a channel's limit, visibly: a cut text ends with a marker that says
how much was left out and where the whole of it is."""

from __future__ import annotations

# GitHub's limits (../shared/docs/CONTRACTS.md 1.1, 1.4, 2.4).
CHECK_TEXT_CHARS = 65535  # output.summary, output.text
ANNOTATION_BYTES = 64 * 1024  # annotation message, raw_details
ANNOTATION_TITLE_CHARS = 255
ANNOTATIONS_PER_REQUEST = 50
COMMENT_CHARS = 65536
STATUS_DESCRIPTION_CHARS = 140
STEP_SUMMARY_BYTES = 1024 * 1024

ELSEWHERE = "the JSON result has the whole text"


def cut_marker(dropped: int, unit: str = "characters", where: str = ELSEWHERE) -> str:
    return f"\n\n… {dropped} {unit} cut here ({where})"


def cut_chars(text: str, limit: int, *, where: str = ELSEWHERE, keep: str = "head") -> str:
    """`text` in at most `limit` characters; a cut one ends (keep="head") or starts
    (keep="tail": a log's last lines matter most) with the marker."""
    if len(text) <= limit:
        return text
    # the marker's length depends on the count it names: size it for the worst case
    marker = cut_marker(len(text), where=where)
    room = max(limit - len(marker), 0)
    dropped = len(text) - room
    if keep == "tail":
        return (cut_marker(dropped, where=where).strip() + "\n" + text[len(text) - room:])[-limit:]
    return (text[:room] + cut_marker(dropped, where=where))[:limit]


def cut_bytes(text: str, limit: int, *, where: str = ELSEWHERE, keep: str = "head") -> str:
    """`text` in at most `limit` bytes of UTF-8, never splitting a character."""
    data = text.encode()
    if len(data) <= limit:
        return text
    marker = cut_marker(len(data), "bytes", where)
    room = max(limit - len(marker.encode()), 0)
    if keep == "tail":
        kept = data[len(data) - room:].decode(errors="ignore")
        dropped = len(data) - len(kept.encode())
        return cut_marker(dropped, "bytes", where).strip() + "\n" + kept
    kept = data[:room].decode(errors="ignore")
    return kept + cut_marker(len(data) - len(kept.encode()), "bytes", where)
