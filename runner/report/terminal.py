"""Markdown in a terminal, as GitHub would show it (rich renders it). GitHub's
`<details><summary>` blocks, which rich leaves out as HTML, become a ▸ line."""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

_SUMMARY = re.compile(r"<details><summary>(.*?)</summary>", re.S)
_CODE = re.compile(r"</?code>")


def terminal_markdown(text: str) -> str:
    text = _SUMMARY.sub(lambda m: "**▸** " + m.group(1).replace("&lt;", "<")
                        .replace("&gt;", ">").replace("&amp;", "&"), text)
    return _CODE.sub("`", text.replace("</details>", ""))


def render(text: str, out: TextIO | None = None, width: int = 100) -> None:
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console(file=out or sys.stdout, width=width, highlight=False)
    console.print(Markdown(terminal_markdown(text), code_theme="ansi_dark"))


def check_run_markdown(fields: dict[str, Any], annotations: list[dict[str, Any]]) -> str:
    """A check run as GitHub shows it: name and conclusion, title, summary, annotations
    (file:line, level, title, message), text."""
    output = fields.get("output") or {}
    lines = [f"# {fields['name']}: {fields.get('conclusion') or fields.get('status')}",
             "", f"## {output.get('title', '')}", "", output.get("summary") or ""]
    if annotations:
        lines += ["", f"## Annotations ({len(annotations)})", ""]
        for note in annotations:
            first = note["message"].splitlines()[0] if note["message"] else ""
            lines.append(f"- `{note['path']}:{note['start_line']}` **{note['annotation_level']}**"
                         f" {note.get('title') or ''}: {first}")
    if output.get("text"):
        lines += ["", output["text"]]
    return "\n".join(lines)
