"""Template functions: Sprig's defaults.go (default, empty, coalesce, all, any, ternary).

Sprig's emptiness is its own rule, adapted from text/template's truth: nil,
false, numeric zero, "" and empty lists and maps are empty; structs (a
time.Time, an object) never are. The JSON functions of the same Sprig file
live with the encoders (runner/funcs/helm.py and friends).
"""

from __future__ import annotations

from runner.funcs.registry import gofunc
from runner.golang.gofunc import ANY
from runner.golang.types import is_empty

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


@gofunc("default", (ANY,), variadic=ANY, returns=ANY)
def default(d: Any, *given: Any) -> Any:
    """`default d given`: given unless missing or empty (sprig's dfault)."""
    if not given or is_empty(given[0]):
        return d
    return given[0]


@gofunc("empty", (ANY,), returns="bool")
def empty(given: Any) -> bool:
    return is_empty(given)


@gofunc("coalesce", (), variadic=ANY, returns=ANY)
def coalesce(*values: Any) -> Any:
    """The first non-empty value, or nil."""
    for value in values:
        if not is_empty(value):
            return value
    return None


@gofunc("all", (), variadic=ANY, returns="bool")
def all_(*values: Any) -> bool:
    """True when no value is empty (also for no values)."""
    return not any(is_empty(value) for value in values)


@gofunc("any", (), variadic=ANY, returns="bool")
def any_(*values: Any) -> bool:
    """True when some value is not empty (false for no values)."""
    return not all(is_empty(value) for value in values)


@gofunc("ternary", (ANY, ANY, "bool"), returns=ANY)
def ternary(vt: Any, vf: Any, v: bool) -> Any:
    return vt if v else vf
