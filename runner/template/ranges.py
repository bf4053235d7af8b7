"""{{range}}: lists and maps (sorted keys), integers (Go 1.22), nil as empty; break/continue."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from runner.template.gotypes import Int64, format_value
from runner.template.nodes import Node, RangeNode, last_evaluated
from runner.template.parse import Tree
from runner.template.state import Eval, Run, State, _Break, _Continue, fail
from runner.template.values import NIL


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


def compile_range(
    tree: Tree, node: RangeNode, ev: Eval, slots: list[int | None], body: Run, other: Run | None
) -> Run:
    """The tracked executor's range (runner.template.exec); generated code loops inline."""
    elem_slot = slots[-1] if slots else None
    idx_slot = slots[0] if len(slots) > 1 else None
    two_vars = len(slots) > 1
    where = last_evaluated(node.pipe)

    def run(st: State, dot: Any) -> None:
        pairs = range_pairs(st, tree, where, ev(st, dot), two_vars)
        if pairs is None:
            if other is not None:
                other(st, dot)
            return
        frame = st.vars
        try:
            for index, elem in pairs:
                if elem is None:
                    elem = NIL  # an element of []interface {} is boxed
                if elem_slot is not None:
                    frame[elem_slot] = elem
                if idx_slot is not None:
                    frame[idx_slot] = index
                try:  # noqa: SIM105 - suppress() costs a call per element
                    body(st, elem)
                except _Continue:
                    pass
        except _Break:
            pass

    return run
