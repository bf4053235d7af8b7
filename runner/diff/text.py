"""Line diffs of two texts: unified hunks (`@@ -a,b +c,d @@`, ` `/`-`/`+` lines) with N lines
of context, and which lines of the new text are added or changed (for source lines)."""

from __future__ import annotations

import difflib

DEFAULT_CONTEXT = 3


def unified(old: str, new: str, context: int = DEFAULT_CONTEXT) -> str:
    """The unified diff of `old` and `new` without file headers; "" when equal. A negative
    `context` shows every line (helm-diff's default, -C -1)."""
    a, b = old.splitlines(), new.splitlines()
    if a == b:
        return ""
    n = max(len(a), len(b)) if context < 0 else context
    lines = list(difflib.unified_diff(a, b, lineterm="", n=n))
    return "\n".join(lines[2:]) + "\n"  # without the ---/+++ header


def added_lines(old: str, new: str) -> list[int]:
    """1-based numbers of the lines of `new` that are not in `old` (inserted or replaced)."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    found: list[int] = []
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            found.extend(range(j1 + 1, j2 + 1))
    return found
