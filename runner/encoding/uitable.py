"""gosuri/uitable as Helm prints tables (list, history, repo list, search,
dependency list): every cell padded to its column, tab separated."""

from __future__ import annotations


def _resize(text: str, width: int) -> str:
    if len(text) > width:
        return text[: max(width - 3, 0)] + "..." if width > 3 else text[:width]
    return text.ljust(width)


def render_table(rows: list[list[str]], max_col_width: int = 0) -> str:
    """Table.String(): no trailing newline, as uitable returns it."""
    if not rows:
        return ""
    widths = [0] * max(len(r) for r in rows)
    for row in rows:
        for i, cell in enumerate(row):
            width = len(cell) if not max_col_width else min(len(cell), max_col_width)
            widths[i] = max(widths[i], width)
    return "\n".join("\t".join(_resize(c, widths[i]) for i, c in enumerate(r)) for r in rows)
