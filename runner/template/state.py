"""Execution state shared by the executor's modules: the State, errors, limits."""

from __future__ import annotations

from collections.abc import Callable

from runner.golang.gofunc import GoFunc
from runner.template.errors import ExecError
from runner.template.nodes import Node
from runner.template.parse import Tree

MAX_EXEC_DEPTH = 100000  # Go's maxExecDepth
MISSINGKEY_INVALID, MISSINGKEY_ZERO, MISSINGKEY_ERROR = 0, 1, 2
MISSINGKEY_MODES = {"default": 0, "invalid": 0, "zero": 1, "error": 2}

_ABSENT: Any = object()
TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any, NoReturn

    Eval = Callable[["State", Any], Any]  # an argument's evaluator: (state, dot) -> value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_BREAK = _Break()
_CONTINUE = _Continue()


class State:
    """One executing template: output, variable frame (`V` in generated code), name
    (for errors), depth, the set."""

    # `rec` (a positions.Recorder) is set only in tracked executions.
    __slots__ = ("out", "vars", "name", "depth", "trees", "funcs", "missingkey", "rec")

    def __init__(
        self,
        out: list[str],
        frame: list[Any],
        name: str,
        depth: int,
        trees: dict[str, Tree],
        funcs: dict[str, GoFunc],
        missingkey: int,
    ) -> None:
        self.out = out
        self.vars = frame
        self.name = name
        self.depth = depth
        self.trees = trees
        self.funcs = funcs
        self.missingkey = missingkey


def fail(st: State, tree: Tree, node: Node, reason: str) -> NoReturn:
    location, context = tree.error_context(node)
    raise ExecError.at(st.name, location, context, reason)
