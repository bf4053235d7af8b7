"""Template functions: Sprig's reflect.go (typeOf, typeIs, typeIsLike, kindOf, kindIs)
and `deepEqual` (Go's reflect.DeepEqual)."""

from __future__ import annotations

from runner.funcs.registry import gofunc
from runner.golang.gofunc import ANY
from runner.golang.types import go_type_name, is_time, kind_of

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


@gofunc("typeOf", (ANY,), returns="string")
def type_of(src: Any) -> str:
    """fmt's %T: "float64", "map[string]interface {}", "<nil>"."""
    return go_type_name(src)


@gofunc("typeIs", ("string", ANY), returns="bool")
def type_is(target: str, src: Any) -> bool:
    return target == go_type_name(src)


@gofunc("typeIsLike", ("string", ANY), returns="bool")
def type_is_like(target: str, src: Any) -> bool:
    """Like typeIs, also accepting a pointer to the type."""
    name = go_type_name(src)
    return target == name or "*" + target == name


@gofunc("kindOf", (ANY,), returns="string")
def kind_of_(src: Any) -> str:
    """reflect Kind name: "map", "slice", "string", "invalid" for nil."""
    return kind_of(src)


@gofunc("kindIs", ("string", ANY), returns="bool")
def kind_is(target: str, src: Any) -> bool:
    return target == kind_of(src)


@gofunc("deepEqual", (ANY, ANY), returns="bool")
def deep_equal(x: Any, y: Any) -> bool:
    """reflect.DeepEqual: same Go types all the way down, then equal values."""
    if x is None or y is None:
        return x is y
    if go_type_name(x) != go_type_name(y):
        return False
    if x is y:
        return True  # Go: the same slice or map is deeply equal to itself, NaNs and all
    if getattr(x, "go_nil", False) is not getattr(y, "go_nil", False):
        return False  # a nil map or slice is not deeply equal to an empty one
    if isinstance(x, dict):
        return len(x) == len(y) and all(k in y and deep_equal(v, y[k]) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return len(x) == len(y) and all(deep_equal(a, b) for a, b in zip(x, y, strict=True))
    if is_time(x):  # Go compares the fields: the instant, its nanoseconds, zone, monotonic reading
        return (x == y and x.utcoffset() == y.utcoffset()
                and getattr(x, "extra_ns", 0) == getattr(y, "extra_ns", 0)
                and getattr(x, "mono_ns", None) == getattr(y, "mono_ns", None))
    return bool(x == y)
