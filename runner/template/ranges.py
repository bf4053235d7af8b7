"""{{range}}: lists and maps (sorted keys), integers (Go 1.22), nil as empty.

Generated code loops over these pairs (runner.template.compiler); break and
continue are Python's."""

from __future__ import annotations

from collections.abc import Iterable

from runner.golang.types import Int64, format_value
from runner.template.nodes import Node
from runner.template.parse import Tree
from runner.template.state import State, fail

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def _sorted_keys(d: dict[Any, Any]) -> list[Any]:
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=lambda k: (type(k).__name__, str(k)))


def range_pairs(st: State, tree: Tree, where: Node, val: Any, two_vars: bool) -> Iterable[Any] | None:
    """The (index, element) pairs a range visits; None when there is nothing to iterate.
    Errors point at `where` (Go's state still points into the pipeline)."""
    if isinstance(val, (list, tuple)):
        return enumerate(val) if val else None
    if isinstance(val, dict):
        return ((k, val[k]) for k in _sorted_keys(val)) if val else None
    if isinstance(val, int) and not isinstance(val, bool):
        if two_vars:
            fail(st, tree, where, f"can't use {format_value(val)} to iterate over more than one variable")
        if val <= 0:
            return None
        make = Int64 if isinstance(val, Int64) else int
        return ((None, make(i)) for i in range(val))
    if isinstance(val, (bytes, bytearray)):
        return enumerate(val) if val else None
    if val is None:
        return None
    fail(st, tree, where, f"range can't iterate over {format_value(val)}")

