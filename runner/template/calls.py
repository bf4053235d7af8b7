"""Function and method calls as text/template's evalCall/evalArg/validateType do them.

Arguments are checked against the callee's Go parameter types; number and
other literals are converted to the parameter's type (or fail with Go's
message). Plans are built once per (call site, function) and reused.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.golang.gofunc import ANY, GoFunc
from runner.golang.types import Duration, Int64, StringMap, StringSlice, go_type_name
from runner.template.nodes import BoolNode, NilNode, Node, NumberNode, StringNode
from runner.template.values import NIL

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

REFLECT_VALUE = "reflect.Value"  # builtins that see values as Go's reflect does

_INT_TYPES = {"int", "int8", "int16", "int32", "int64", "time.Duration"}
_UINT_TYPES = {"uint", "uint8", "uint16", "uint32", "uint64", "uintptr"}
_FLOAT_TYPES = {"float32", "float64"}
_COMPLEX_TYPES = {"complex64", "complex128"}
_IFACE_TYPES = {"error", "fmt.Stringer"}  # interfaces with methods: nil-able

EXACT_TYPES: dict[str, type] = {
    "string": str,
    "int": int,
    "int64": Int64,
    "time.Duration": Duration,
    "float64": float,
    "bool": bool,
    "[]interface {}": list,
    "map[string]interface {}": dict,
    "[]string": StringSlice,
    "map[string]string": StringMap,
    "[]byte": bytes,
    "[]uint8": bytes,
}


class ArgError(Exception):
    """An argument failed Go's checks; the executor reports it at the argument's node."""

    def __init__(self, reason: str, node: Node | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.node = node


def can_be_nil(typ: str) -> bool:
    """canBeNil: chan, func, interface, map, pointer and slice types (and reflect.Value)."""
    return (
        typ in (ANY, REFLECT_VALUE)
        or typ in _IFACE_TYPES
        or typ.startswith(("[]", "map[", "*", "func", "chan", "interface"))
    )


def _same_type(typ: str) -> Callable[[Any], bool]:
    exact = EXACT_TYPES.get(typ)
    if typ == "[]byte":
        typ = "[]uint8"
    if exact is None:
        return lambda v: go_type_name(v) == typ
    if typ == "map[string]interface {}":  # a named map type of it is assignable (common.Values)
        return lambda v: type(v) is exact or go_type_name(v) == typ or getattr(v, "go_underlying", "") == typ
    return lambda v: type(v) is exact or go_type_name(v) == typ


def make_checker(typ: str) -> Callable[[Any], Any]:
    """validateType(value, typ) for an evaluated value; raises ArgError."""
    if typ == REFLECT_VALUE:
        return _identity
    if typ == ANY:
        return _unbox_any
    same = _same_type(typ)
    nilable = can_be_nil(typ)

    def check(v: Any) -> Any:
        if v is None:
            if nilable:
                return None
            raise ArgError(f"invalid value; expected {typ}")
        if same(v):
            return v
        got = "interface {}" if v is NIL else go_type_name(v)
        raise ArgError(f"wrong type for value; expected {typ}; got {got}")

    return check


def _identity(v: Any) -> Any:
    return v


def _unbox_any(v: Any) -> Any:
    return None if v is NIL else v


def ideal_constant(n: NumberNode) -> Any:
    """idealConstant: a literal in an untyped context becomes int, float64 or complex128."""
    if n.is_complex:
        return n.complex128
    text = n.text
    is_hex_int = len(text) > 2 and text[0] == "0" and text[1] in "xX" and not any(c in text for c in "pP")
    if n.is_float and not is_hex_int and text[0] != "'" and any(c in text for c in ".eEpP"):
        return n.float64
    if n.is_int:
        return n.int64
    if n.is_uint:
        raise ArgError(f"{text} overflows int", n)
    return None


def literal_value(n: Node, typ: str) -> Any:
    """evalArg for a literal node and a parameter type; raises ArgError like Go."""
    if typ == "string" and type(n) is StringNode:  # the usual case first
        return n.text
    if isinstance(n, NilNode):
        if can_be_nil(typ):
            return None
        raise ArgError(f"cannot assign nil to {typ}", n)
    if typ == "bool":
        if isinstance(n, BoolNode):
            return n.value
        raise ArgError(f"expected bool; found {n}", n)
    if typ in _INT_TYPES:
        if isinstance(n, NumberNode) and n.is_int:
            return {"int64": Int64, "time.Duration": Duration}.get(typ, int)(n.int64)
        raise ArgError(f"expected integer; found {n}", n)
    if typ in _FLOAT_TYPES:
        if isinstance(n, NumberNode) and n.is_float:
            return n.float64
        raise ArgError(f"expected float; found {n}", n)
    if typ in _COMPLEX_TYPES:
        if isinstance(n, NumberNode) and n.is_complex:
            return n.complex128
        raise ArgError(f"expected complex; found {n}", n)
    if typ == "string":
        if isinstance(n, StringNode):
            return n.text
        raise ArgError(f"expected string; found {n}", n)
    if typ in _UINT_TYPES:
        if isinstance(n, NumberNode) and n.is_uint:
            return n.uint64
        raise ArgError(f"expected unsigned integer; found {n}", n)
    if typ in (ANY, REFLECT_VALUE):
        return empty_interface_literal(n)
    raise ArgError(f"can't handle {n} for arg of type {typ}", n)


def empty_interface_literal(n: Node) -> Any:
    if isinstance(n, BoolNode):
        return n.value
    if isinstance(n, NumberNode):
        return ideal_constant(n)
    if isinstance(n, StringNode):
        return n.text
    raise ArgError(f"can't handle assignment of {n} to empty interface argument", n)


# ------------------------------------------------------------ signatures


class Signature:
    """The Go parameter list of a callable: fixed types, optional variadic element type."""

    __slots__ = ("params", "variadic", "fallible")

    def __init__(self, params: tuple[str, ...], variadic: str | None, fallible: bool) -> None:
        self.params = params
        self.variadic = variadic
        self.fallible = fallible

    def param_type(self, i: int) -> str:
        if i < len(self.params):
            return self.params[i]
        return self.variadic or ANY

    def final_type(self, num_in: int) -> str:
        """The type the pipeline's final value is checked against (Go's evalCall)."""
        if self.variadic is not None:
            if num_in - 1 < len(self.params):
                return self.params[num_in - 1]
            return self.variadic
        return self.params[-1] if self.params else ANY

    def count_error(self, name: str, nargs: int, has_final: bool) -> str | None:
        num_in = nargs + (1 if has_final else 0)
        if self.variadic is not None:
            if num_in < len(self.params):
                return f"wrong number of args for {name}: want at least {len(self.params)} got {nargs}"
            return None
        if num_in != len(self.params):
            return f"wrong number of args for {name}: want {len(self.params)} got {num_in}"
        return None


_SIGS: dict[Any, Signature] = {}
def signature_of(fn: GoFunc) -> Signature:
    """A registered function's signature (call sites keep it; no global cache that
    would keep per-render functions such as include alive)."""
    return Signature(fn.params, fn.variadic, fn.fallible)


def method_signature(method: Any) -> Signature:
    """A Go method's signature: from `__gofunc__` (a GoFunc) when declared, else all interface {}."""
    func = getattr(method, "__func__", method)
    sig = _SIGS.get(func)
    if sig is not None:
        return sig
    declared = getattr(func, "__gofunc__", None)
    if isinstance(declared, GoFunc):
        sig = Signature(declared.params, declared.variadic, declared.fallible)
    else:
        sig = _inspect_signature(method)
    _SIGS[func] = sig
    return sig


_CO_VARARGS = 0x04  # inspect.CO_VARARGS, without importing inspect (~5 ms)


def _inspect_signature(method: Any) -> Signature:
    """All interface {}: as many fixed parameters as the Python function has positional
    ones (its code object says, as inspect.signature would), variadic if it has *args."""
    func = getattr(method, "__func__", method)
    code = getattr(func, "__code__", None)
    if code is None or hasattr(func, "__wrapped__") or hasattr(func, "__signature__"):
        return _signature_from_inspect(method)  # a builtin, or what inspect reads elsewhere
    fixed = code.co_argcount - (0 if func is method else 1)  # a bound method's self
    variadic = ANY if code.co_flags & _CO_VARARGS else None
    return Signature((ANY,) * fixed, variadic, False)


def _signature_from_inspect(method: Any) -> Signature:
    import inspect  # rare: callables without a code object of their own

    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return Signature((), ANY, False)
    fixed = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    variadic = ANY if any(p.kind == p.VAR_POSITIONAL for p in params) else None
    return Signature(tuple(ANY for _ in fixed), variadic, False)
