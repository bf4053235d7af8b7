"""Executor-internal markers for Go's reflect distinctions the value model can't carry,
and how `{{ v }}` prints a value (text/template's printableValue).

Python None is Go's *invalid* reflect.Value (an untyped nil: a missing
variable value, a pipeline that produced nil). NIL is a nil stored in an
`interface {}` slot (a map entry or list element that is null, a missing key
under missingkey=zero): Go reports field access on it as `nil pointer
evaluating interface {}.x` and type-checks it as `interface {}`. Pipelines
turn NIL into None, as Go's evalPipeline unwraps interfaces.
"""

from __future__ import annotations

from runner.golang.types import FORMATTERS, format_object, format_value
from runner.golang.types import truth as _go_truth

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


class _Nil:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NIL"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "NIL"


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


NIL: Any = _Nil()
MISSING: Any = _Missing()  # no final value from a previous pipeline command (Go's missingVal)


def unbox(v: Any) -> Any:
    """indirectInterface: the concrete value, None for any nil."""
    return None if v is NIL else v


def truth(v: Any) -> bool:
    """text/template truth (isTrue) of a possibly boxed value."""
    if v is None or v is NIL:
        return False
    t = type(v)
    if t is bool:
        return v
    if t is str or t is dict or t is list:
        return len(v) != 0
    return _go_truth(v)


def print_value(v: Any) -> str:
    """What `{{ v }}` writes in text/template: `<no value>` for nil, else %v.

    The value is taken as addressable (a field, or a variable or dot holding
    one): a pointer-receiver String (go_string_addr_only) applies, as Go's
    printableValue takes the value's address. `print_copied_value` is the
    other case (a function's result, a range element)."""
    if v is None:
        return "<no value>"
    formatter = FORMATTERS.get(type(v))
    if formatter is not None:
        return formatter(v)
    if getattr(v, "go_string_addr_only", False):
        return v.String()
    elem = getattr(v, "go_elem_str", None)
    if elem is not None:
        return elem()  # a pointer to a struct without String: printed indirected, no "&"
    return format_object(v)


def print_copied_value(v: Any) -> str:
    """`{{ v }}` of a value that is not addressable: %v, `<no value>` for nil."""
    if v is None:
        return "<no value>"
    elem = getattr(v, "go_elem_str", None)
    return elem() if elem is not None else format_value(v)
