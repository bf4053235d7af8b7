"""text/template's own functions (funcs.go): and, or, not, len, index, slice, eq, ne,
lt, le, gt, ge, print, printf, println, html, js, urlquery, call.

Parameters typed "reflect.Value" receive values as Go's reflect sees them:
None for an invalid value, values.NIL for a nil in an interface slot.
"""

from __future__ import annotations

from runner.golang.gofunc import ANY, FuncError, GoFunc
from runner.golang.types import StringMap, go_type_name, is_go_nil, kind_of
from runner.template.calls import REFLECT_VALUE as RV
from runner.template.calls import can_be_nil
from runner.template.values import NIL, truth, unbox

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any



def go_bytes(text: str) -> bytes:
    """A Go string's bytes: invalid UTF-8 read from a file is kept as surrogate escapes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate from an escape (\ud800) in a value
        return text.encode("utf-8", "surrogatepass")


# --------------------------------------------------------------- truth


def _not_impl(arg: Any) -> bool:
    return not truth(arg)


def _unreachable(*args: Any) -> Any:  # and/or are evaluated by the executor (short-circuit)
    raise FuncError("unreachable")


# --------------------------------------------------------------- length


def _length(item: Any) -> int:
    if item is NIL:
        raise FuncError("len of nil pointer")
    if item is None:
        raise FuncError("reflect: call of reflect.Value.Type on zero Value")
    if isinstance(item, str):
        return len(item) if item.isascii() else len(go_bytes(item))
    if isinstance(item, (list, tuple, dict, bytes, bytearray)):
        return len(item)
    raise FuncError(f"len of type {go_type_name(item)}")


# ------------------------------------------------------- index and slice


def _index_arg(index: Any, cap: int) -> int:
    if isinstance(index, int) and not isinstance(index, bool):
        x = int(index)
    elif index is None:
        raise FuncError("cannot index slice/array with nil")
    else:
        raise FuncError(f"cannot index slice/array with type {go_type_name(index)}")
    if x < 0 or x > cap:
        raise FuncError(f"index out of range: {x}")
    return x


def _map_key(index: Any) -> str:
    if index is None:
        raise FuncError("value is nil; should be of type string")
    if not isinstance(index, str):
        raise FuncError(f"value has type {go_type_name(index)}; should be string")
    return index


def _index_seq(item: Any, index: Any) -> Any:
    data = go_bytes(item) if isinstance(item, str) and not item.isascii() else item
    x = _index_arg(index, len(data))
    if x == len(data):
        kind = "string" if isinstance(item, str) else "slice"
        raise FuncError(f"reflect: {kind} index out of range")
    if isinstance(data, str):
        return ord(data[x])  # a string's element is a byte
    v = data[x]
    return NIL if v is None else v


def _index(item: Any, *indexes: Any) -> Any:
    item = unbox(item)
    if item is None:
        raise FuncError("index of untyped nil")
    for index in indexes:
        index = unbox(index)
        if item is NIL:
            raise FuncError("index of nil pointer")
        if isinstance(item, (list, tuple, str, bytes, bytearray)):
            item = _index_seq(item, index)
        elif isinstance(item, dict):
            key = _map_key(index)
            if key in item:
                v = item[key]
                item = NIL if v is None else v
            else:
                item = "" if isinstance(item, StringMap) else NIL
        else:
            raise FuncError(f"can't index item of type {go_type_name(item)}")
    return item


def _slice(item: Any, *indexes: Any) -> Any:
    item = unbox(item)
    if item is None:
        raise FuncError("slice of untyped nil")
    if len(indexes) > 3:
        raise FuncError(f"too many slice indexes: {len(indexes)}")
    data = item
    if isinstance(item, str):
        if len(indexes) == 3:
            raise FuncError("cannot 3-index slice a string")
        data = go_bytes(item)
    elif not isinstance(item, (list, tuple, bytes, bytearray)):
        raise FuncError(f"can't slice item of type {go_type_name(item)}")
    idx = [0, len(data), len(data)]
    for i, index in enumerate(indexes):
        idx[i] = _index_arg(unbox(index), len(data))
    if idx[0] > idx[1]:
        raise FuncError(f"invalid slice index: {idx[0]} > {idx[1]}")
    if len(indexes) == 3 and idx[1] > idx[2]:
        raise FuncError(f"invalid slice index: {idx[1]} > {idx[2]}")
    part = data[idx[0] : idx[1]]
    if isinstance(item, str):
        return part.decode("utf-8", "surrogateescape")
    return type(item)(part) if type(item) not in (list, tuple, bytes) else part


# ------------------------------------------------------------ comparison

_INVALID, _BOOL, _COMPLEX, _INT, _FLOAT, _STRING = range(6)


def _basic_kind(v: Any) -> int:
    if isinstance(v, bool):
        return _BOOL
    if isinstance(v, int):
        return _INT
    if isinstance(v, float):
        return _FLOAT
    if isinstance(v, str):
        return _STRING
    if isinstance(v, complex):
        return _COMPLEX
    return _INVALID


def _comparable(v: Any) -> bool:
    return not isinstance(v, (list, tuple, dict, bytes, bytearray))


def _eq_other(a: Any, b: Any) -> bool:
    """eq for values that are not basic kinds (nil, maps, slices, structs, pointers)."""
    if a is not None and b is not None and kind_of(a) != kind_of(b):
        raise FuncError(_sprintf("non-comparable types %s: %v, %v: %v", a, go_type_name(a), go_type_name(b), b))
    a_nil, b_nil = a is None or is_go_nil(a), b is None or is_go_nil(b)
    if a_nil or b_nil:
        return a_nil == b_nil  # Go's isNil: a typed nil map or slice equals nil
    if not _comparable(b):
        raise FuncError(_sprintf("non-comparable type %s: %v", b, go_type_name(b)))
    if kind_of(a) == "ptr":
        return a is b
    return type(a) is type(b) and a == b


def _sprintf(fmt: str, *args: Any) -> str:
    from runner.golang.fmt import sprintf

    return sprintf(fmt, list(args))


def _eq(arg1: Any, *arg2: Any) -> bool:
    a = unbox(arg1)
    if not arg2:
        raise FuncError("missing argument for comparison")
    k1 = _basic_kind(a)
    for arg in arg2:
        b = unbox(arg)
        k2 = _basic_kind(b)
        if k1 != k2:
            if a is not None and b is not None:
                raise FuncError(
                    f"incompatible types for comparison: {go_type_name(a)} and {go_type_name(b)}"
                )
            continue
        if (_eq_other(a, b) if k1 == _INVALID else a == b):
            return True
    return False


def _ne(arg1: Any, arg2: Any) -> bool:
    return not _eq(arg1, arg2)


def _lt(arg1: Any, arg2: Any) -> bool:
    a, b = unbox(arg1), unbox(arg2)
    k1, k2 = _basic_kind(a), _basic_kind(b)
    if k1 == _INVALID or k2 == _INVALID:
        raise FuncError("invalid type for comparison")
    if k1 != k2:
        raise FuncError(f"incompatible types for comparison: {go_type_name(a)} and {go_type_name(b)}")
    if k1 in (_BOOL, _COMPLEX):
        raise FuncError("invalid type for comparison")
    return a < b


def _le(arg1: Any, arg2: Any) -> bool:
    return _lt(arg1, arg2) or _eq(arg1, arg2)


def _gt(arg1: Any, arg2: Any) -> bool:
    return not _le(arg1, arg2)


def _ge(arg1: Any, arg2: Any) -> bool:
    return not _lt(arg1, arg2)


# -------------------------------------------------------------- printing


def _print(*args: Any) -> str:
    from runner.golang.fmt import sprint

    return sprint(list(args))


def _printf(format: str, *args: Any) -> str:
    from runner.golang.fmt import sprintf

    return sprintf(format, list(args))


def _println(*args: Any) -> str:
    from runner.golang.fmt import sprintln

    return sprintln(list(args))


def _eval_args(args: tuple[Any, ...]) -> str:
    """evalArgs: fmt.Sprint of the arguments, a nil printing as <no value>."""
    if len(args) == 1 and type(args[0]) is str:
        return args[0]
    return _print(*["<no value>" if a is None else a for a in args])


_HTML = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}


def html_escape(s: str) -> str:
    if not any(c in s for c in "'\"&<>\0"):
        return s
    return "".join(_HTML.get(c, c) for c in s)


_JS = {"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "=": "\\u003D"}


def js_escape(s: str) -> str:
    out = []
    for c in s:
        if c in _JS:
            out.append(_JS[c])
        elif c < " ":
            out.append(f"\\u00{ord(c):02X}")
        elif ord(c) < 0x80 or c.isprintable():
            out.append(c)
        else:
            out.append(f"\\u{ord(c):04X}")
    return "".join(out)


_URL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def query_escape(s: str) -> str:
    """url.QueryEscape: space becomes '+', other unsafe bytes %XX."""
    out = []
    for b in s.encode("utf-8", "surrogateescape"):
        c = chr(b)
        if c in _URL_SAFE:
            out.append(c)
        elif c == " ":
            out.append("+")
        else:
            out.append(f"%{b:02X}")
    return "".join(out)


def _html(*args: Any) -> str:
    return html_escape(_eval_args(args))


def _js(*args: Any) -> str:
    return js_escape(_eval_args(args))


def _urlquery(*args: Any) -> str:
    return query_escape(_eval_args(args))


# ------------------------------------------------------------------ call


def _prepare_arg(i: int, value: Any, typ: str) -> Any:
    value = unbox(value)
    if value is None:
        if not can_be_nil(typ):
            raise FuncError(f"arg {i}: value is nil; should be of type {typ}")
        return None
    if typ == ANY or go_type_name(value) == typ:
        return value
    raise FuncError(f"arg {i}: value has type {go_type_name(value)}; should be {typ}")


def _call(name: str, fn: Any, *args: Any) -> Any:
    fn = unbox(fn)
    if fn is None:
        raise FuncError("call of nil")
    if isinstance(fn, GoFunc):
        n = len(fn.params)
        if fn.variadic is not None and len(args) < n:
            raise FuncError(f"wrong number of args for {name}: got {len(args)} want at least {n}")
        if fn.variadic is None and len(args) != n:
            raise FuncError(f"wrong number of args for {name}: got {len(args)} want {n}")
        types = [fn.params[i] if i < n else fn.variadic or ANY for i in range(len(args))]
        return fn.impl(*[_prepare_arg(i, a, t) for i, (a, t) in enumerate(zip(args, types, strict=True))])
    if callable(fn) and not isinstance(fn, type):
        return fn(*[unbox(a) for a in args])
    raise FuncError(f"non-function {name} of type {go_type_name(fn)}")


# ------------------------------------------------------------------ table


def _fn(name: str, impl: Any, params: tuple[str, ...], variadic: str | None, returns: str) -> GoFunc:
    return GoFunc(name, impl, params, variadic, returns, fallible=True)


BUILTINS: dict[str, GoFunc] = {
    "and": _fn("and", _unreachable, (RV,), RV, RV),
    "call": _fn("call", _call, (RV,), RV, RV),
    "html": _fn("html", _html, (), ANY, "string"),
    "index": _fn("index", _index, (RV,), RV, RV),
    "slice": _fn("slice", _slice, (RV,), RV, RV),
    "js": _fn("js", _js, (), ANY, "string"),
    "len": _fn("len", _length, (RV,), None, "int"),
    "not": _fn("not", _not_impl, (RV,), None, "bool"),
    "or": _fn("or", _unreachable, (RV,), RV, RV),
    "print": _fn("print", _print, (), ANY, "string"),
    "printf": _fn("printf", _printf, ("string",), ANY, "string"),
    "println": _fn("println", _println, (), ANY, "string"),
    "urlquery": _fn("urlquery", _urlquery, (), ANY, "string"),
    "eq": _fn("eq", _eq, (RV,), RV, "bool"),
    "ge": _fn("ge", _ge, (RV, RV), None, "bool"),
    "gt": _fn("gt", _gt, (RV, RV), None, "bool"),
    "le": _fn("le", _le, (RV, RV), None, "bool"),
    "lt": _fn("lt", _lt, (RV, RV), None, "bool"),
    "ne": _fn("ne", _ne, (RV, RV), None, "bool"),
}

# Calls the executor evaluates itself, found by identity so a user function
# of the same name (which Go lets override a builtin) is called normally.
SPECIAL: dict[int, tuple[GoFunc, str]] = {
    id(BUILTINS[name]): (BUILTINS[name], name) for name in ("and", "or", "call")
}
