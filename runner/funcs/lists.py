"""Template functions: Sprig's lists family (sprig v3.3.0 list.go).

Sprig walks any slice kind by reflection ([]interface {}, []string, []int,
[]byte) and answers a new []interface {}. Its plain variants panic where the
must* variants return the same error; Go's text/template turns both into
`error calling <name>: <text>`, so here both raise FuncError with Go's text.
A nil list makes Sprig call Kind() on a nil reflect.Type, a nil pointer
dereference.
"""

from __future__ import annotations

import math

from runner.funcs.cast import strslice, strval, to_int
from runner.funcs.registry import alias, gofunc, registered
from runner.golang.gofunc import FuncError
from runner.golang.types import NilSlice, StringSlice, go_type_name, is_empty, kind_of

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_NIL_DEREFERENCE = "runtime error: invalid memory address or nil pointer dereference"
_SLICE_KINDS = frozenset({"slice", "array"})


class ChunkList(list):
    """Go [][]interface {}: what chunk returns."""

    __slots__ = ()
    go_type = "[][]interface {}"


def plain_variant(name: str, target: str) -> None:
    """Register `name` as the panicking twin of must* `target`.

    Go's signature has no error result, but the panic reaches the template as
    the same `error calling <name>: <text>`, so the implementation is shared.
    """
    fn = registered()[target]
    gofunc(name, fn.params, variadic=fn.variadic, returns=fn.returns)(fn.impl)


def elements(v: Any, error_format: str) -> list[Any]:
    """The elements of a Go slice value, or Sprig's error naming v's kind."""
    if v is None:
        raise FuncError(_NIL_DEREFERENCE)
    kind = kind_of(v)
    if kind not in _SLICE_KINDS:
        raise FuncError(error_format % kind)
    return list(v)


def deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual: same Go type, then equal values (float NaN is unequal)."""
    if a is None or b is None:
        return a is None and b is None
    if type(a) is not type(b) and go_type_name(a) != go_type_name(b):
        return False
    if getattr(a, "go_nil", False) is not getattr(b, "go_nil", False):
        return False  # a nil map or slice is not deeply equal to an empty one
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        return all(key in b and deep_equal(value, b[key]) for key, value in a.items())
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _contains(haystack: list[Any], needle: Any) -> bool:
    return any(deep_equal(needle, item) for item in haystack)


# ------------------------------------------------------------- construction


@gofunc("list", (), variadic="interface {}", returns="[]interface {}")
def make_list(*values: Any) -> list[Any]:
    return list(values)


alias("tuple", "list")


@gofunc("mustPush", ("interface {}", "interface {}"), returns="[]interface {}", fallible=True)
def must_push(items: Any, v: Any) -> list[Any]:
    return [*elements(items, "Cannot push on type %s"), v]


plain_variant("push", "mustPush")
plain_variant("append", "mustPush")
alias("mustAppend", "mustPush")


@gofunc("mustPrepend", ("interface {}", "interface {}"), returns="[]interface {}", fallible=True)
def must_prepend(items: Any, v: Any) -> list[Any]:
    return [v, *elements(items, "Cannot prepend on type %s")]


plain_variant("prepend", "mustPrepend")


@gofunc("concat", (), variadic="interface {}", returns="interface {}")
def concat(*lists: Any) -> list[Any]:
    out: list[Any] = []
    for items in lists:
        out.extend(elements(items, "Cannot concat type %s as list"))
    return out or NilSlice()  # Sprig appends to a nil slice


# ----------------------------------------------------------------- access


@gofunc("mustFirst", ("interface {}",), returns="interface {}", fallible=True)
def must_first(items: Any) -> Any:
    values = elements(items, "Cannot find first on type %s")
    return values[0] if values else None


plain_variant("first", "mustFirst")


@gofunc("mustLast", ("interface {}",), returns="interface {}", fallible=True)
def must_last(items: Any) -> Any:
    values = elements(items, "Cannot find last on type %s")
    return values[-1] if values else None


plain_variant("last", "mustLast")


@gofunc("mustRest", ("interface {}",), returns="[]interface {}", fallible=True)
def must_rest(items: Any) -> list[Any]:
    values = elements(items, "Cannot find rest on type %s")
    return values[1:] if values else NilSlice()  # Sprig returns nil for an empty list


plain_variant("rest", "mustRest")


@gofunc("mustInitial", ("interface {}",), returns="[]interface {}", fallible=True)
def must_initial(items: Any) -> list[Any]:
    values = elements(items, "Cannot find initial on type %s")
    return values[:-1] if values else NilSlice()  # Sprig returns nil for an empty list


plain_variant("initial", "mustInitial")


@gofunc("mustSlice", ("interface {}",), variadic="interface {}", returns="interface {}", fallible=True)
def must_slice(items: Any, *indices: Any) -> Any:
    """Sprig's slice: reflect's Slice keeps the slice type ([]string stays []string)."""
    values = elements(items, "list should be type of slice or array but %s")
    if not values:
        return None
    start = to_int(indices[0]) if indices else 0
    end = to_int(indices[1]) if len(indices) > 1 else len(values)
    if start < 0 or end < start or end > len(values):
        raise FuncError("reflect.Value.Slice: slice index out of bounds")
    part = items[start:end]
    if isinstance(items, list) and type(items) is not list:
        return type(items)(part)  # StringSlice, IntSlice keep their Go type
    return part if isinstance(part, (list, bytes)) else list(part)


plain_variant("slice", "mustSlice")


@gofunc("mustHas", ("interface {}", "interface {}"), returns="bool", fallible=True)
def must_has(needle: Any, haystack: Any) -> bool:
    if haystack is None:
        return False
    return _contains(elements(haystack, "Cannot find has on type %s"), needle)


plain_variant("has", "mustHas")


# -------------------------------------------------------------- reshaping


@gofunc("mustReverse", ("interface {}",), returns="[]interface {}", fallible=True)
def must_reverse(items: Any) -> list[Any]:
    return elements(items, "Cannot find reverse on type %s")[::-1]


plain_variant("reverse", "mustReverse")


@gofunc("mustUniq", ("interface {}",), returns="[]interface {}", fallible=True)
def must_uniq(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in elements(items, "Cannot find uniq on type %s"):
        if not _contains(out, item):
            out.append(item)
    return out


plain_variant("uniq", "mustUniq")


@gofunc("mustWithout", ("interface {}",), variadic="interface {}", returns="[]interface {}", fallible=True)
def must_without(items: Any, *omit: Any) -> list[Any]:
    values = elements(items, "Cannot find without on type %s")
    return [item for item in values if not _contains(list(omit), item)]


plain_variant("without", "mustWithout")


@gofunc("mustCompact", ("interface {}",), returns="[]interface {}", fallible=True)
def must_compact(items: Any) -> list[Any]:
    return [item for item in elements(items, "Cannot compact on type %s") if not is_empty(item)]


plain_variant("compact", "mustCompact")


@gofunc("mustChunk", ("int", "interface {}"), returns="[][]interface {}", fallible=True)
def must_chunk(size: int, items: Any) -> ChunkList:
    values = elements(items, "Cannot chunk type %s")
    count = _chunk_count(len(values), size)
    out = ChunkList()
    for i in range(count):
        length = size
        if i == count - 1:
            length = int(math.fmod(len(values), size)) or size
        if length < 0:
            raise FuncError("runtime error: makeslice: len out of range")
        out.append(values[i * size : i * size + length])
    return out


def _chunk_count(length: int, size: int) -> int:
    """Sprig's int(math.Floor(float64(l-1)/float64(size)) + 1), with Go's panics."""
    if size == 0:  # ±Inf or NaN converts to the minimum int: make() panics
        raise FuncError("runtime error: makeslice: len out of range")
    count = math.floor((length - 1) / size) + 1
    if count < 0:
        raise FuncError("runtime error: makeslice: len out of range")
    return count


plain_variant("chunk", "mustChunk")


@gofunc("sortAlpha", ("interface {}",), returns="[]string")
def sort_alpha(items: Any) -> StringSlice:
    """Sprig's sortAlpha: a slice as strings, sorted; anything else as one string."""
    if items is None or kind_of(items) not in _SLICE_KINDS:
        return StringSlice([strval(items)])
    # Go compares bytes; Python's code point order agrees for valid UTF-8.
    return StringSlice(sorted(strslice(items)))
