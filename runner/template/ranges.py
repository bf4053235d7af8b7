"""{{range}}: lists and maps (sorted keys), integers (Go 1.22), nil as empty; break/continue."""

from __future__ import annotations

from typing import Any

from runner.template.gotypes import Int64, format_value
from runner.template.nodes import RangeNode, last_evaluated
from runner.template.parse import Tree
from runner.template.state import Eval, Run, State, _Break, _Continue, fail
from runner.template.values import NIL


def _sorted_keys(d: dict[Any, Any]) -> list[Any]:
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=lambda k: (type(k).__name__, str(k)))


def compile_range(
    tree: Tree, node: RangeNode, ev: Eval, slots: list[int | None], body: Run, other: Run | None
) -> Run:
    elem_slot = slots[-1] if slots else None
    idx_slot = slots[0] if len(slots) > 1 else None
    two_vars = len(slots) > 1
    where = last_evaluated(node.pipe)  # Go's state still points into the pipeline

    def loop(st: State, pairs: Any) -> None:
        frame = st.vars
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

    def iterate(st: State, val: Any) -> bool:
        """Runs the body per element; False when there was nothing to iterate."""
        if isinstance(val, (list, tuple)):
            if not val:
                return False
            loop(st, enumerate(val))
        elif isinstance(val, dict):
            if not val:
                return False
            loop(st, ((k, val[k]) for k in _sorted_keys(val)))
        elif isinstance(val, int) and not isinstance(val, bool):
            if two_vars:
                fail(st, tree, where, f"can't use {format_value(val)} to iterate over more than one variable")
            if val <= 0:
                return False
            make = Int64 if isinstance(val, Int64) else int
            loop(st, ((None, make(i)) for i in range(val)))
        elif isinstance(val, (bytes, bytearray)):
            if not val:
                return False
            loop(st, enumerate(val))
        elif val is None:
            return False
        else:
            fail(st, tree, where, f"range can't iterate over {format_value(val)}")
        return True

    def run(st: State, dot: Any) -> None:
        val = ev(st, dot)
        try:
            if iterate(st, val):
                return
        except _Break:
            return
        if other is not None:
            other(st, dot)

    return run
