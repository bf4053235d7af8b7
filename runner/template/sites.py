"""Field access and call sites: exec.go's evalField, evalCall, evalArg and validateType.

A call site binds once per callee (argument converters, count checks) and
reuses that until the function map hands it a different function.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.golang.gofunc import ANY, FuncError, GoFunc
from runner.golang.strconv import quote
from runner.golang.types import HelmValues, Int64, StringMap, format_value, go_type_name, is_time
from runner.template.builtins import SPECIAL
from runner.template.calls import (
    EXACT_TYPES,
    REFLECT_VALUE,
    ArgError,
    Signature,
    literal_value,
    make_checker,
    method_signature,
    signature_of,
)
from runner.template.errors import ExecError
from runner.template.nodes import Node, last_evaluated
from runner.template.parse import Tree
from runner.template.state import (
    _ABSENT,
    MISSINGKEY_ERROR,
    MISSINGKEY_INVALID,
    MISSINGKEY_ZERO,
    State,
    fail,
)
from runner.template.values import MISSING, NIL, truth

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from runner.template.state import Eval

# ------------------------------------------------------------------ fields


def _missing_key(st: State, tree: Tree, node: Node, name: str, receiver: Any = None) -> Any:
    mode = st.missingkey
    if mode == MISSINGKEY_ZERO:
        return "" if isinstance(receiver, StringMap) else NIL
    if mode == MISSINGKEY_INVALID:
        return None
    fail(st, tree, node, f"map has no entry for key {quote(name)}")


_PLAIN = frozenset({str, int, float, bool, list, tuple, bytes, dict, complex, Int64, StringMap, HelmValues})


def _field(
    st: State, tree: Tree, node: Node, r: Any, name: str, site: _Site, final: Any, dot: Any, boxed: bool
) -> Any:
    """evalField for anything but a plain dict (the executor's fast path)."""
    if r is None:
        if st.missingkey == MISSINGKEY_ERROR:
            fail(st, tree, node, f"nil data; no entry for key {quote(name)}")
        return None
    if r is NIL:
        fail(st, tree, node, f"nil pointer evaluating interface {{}}.{name}")
    t = type(r)
    exported = t not in _PLAIN and name[:1].isupper()
    if exported:
        attr = getattr(t, name, _ABSENT)
        if attr is not _ABSENT and callable(attr) and not isinstance(attr, type):
            bound = getattr(r, name)
            return site.call_method(st, dot, bound, final)
    has_args = site.nargs > 0 or final is not MISSING
    if isinstance(r, dict):
        if has_args:
            fail(st, tree, node, f"{name} is not a method but has arguments")
        v = r.get(name, _ABSENT)
        if v is _ABSENT:
            return _missing_key(st, tree, node, name, r)
        return NIL if v is None else v
    if exported:
        v = getattr(r, name, _ABSENT)
        if v is not _ABSENT:
            if has_args:
                fail(st, tree, node, f"{name} has arguments but cannot be invoked as function")
            return NIL if v is None else v
    if exported and is_time(r):
        from runner.golang.timemethods import time_method

        bound = time_method(r, name)
        if bound is not None:
            return site.call_method(st, dot, bound, final)
    typ = "interface {}" if boxed else go_type_name(r)
    fail(st, tree, node, f"can't evaluate field {name} in type {typ}")


# ------------------------------------------------------------------- calls

_CHECKERS: dict[str, Callable[[Any], Any]] = {}


def _checker(typ: str) -> Callable[[Any], Any]:
    check = _CHECKERS.get(typ)
    if check is None:
        check = _CHECKERS[typ] = make_checker(typ)
    return check


class _Bound:
    """A call site bound to one callee: argument converters and count checks, built once."""

    __slots__ = ("key", "impl", "kind", "plan", "n", "err0", "err1", "final_check")


def _arg_converter(tree: Tree, node: Node, typ: str, ev: Eval) -> Eval:
    """ev followed by validateType in one closure, the common cases first."""
    if typ == ANY:
        if node.kind == "dot":
            return lambda st, dot: None if dot is NIL else dot

        def any_value(st: State, dot: Any) -> Any:
            v = ev(st, dot)
            return None if v is NIL else v

        return any_value
    check = _checker(typ)
    exact = EXACT_TYPES.get(typ)
    where = last_evaluated(node)

    def typed(st: State, dot: Any) -> Any:
        v = ev(st, dot)
        if type(v) is exact:
            return v
        try:
            return check(v)
        except ArgError as err:
            fail(st, tree, where, err.reason)

    return typed


class _Site:
    """One call site: its argument nodes, and a conversion plan per callee."""

    __slots__ = ("tree", "name", "call_node", "head_node", "args", "evals", "nargs", "bound", "_methods")

    def __init__(
        self,
        tree: Tree,
        name: str,
        call_node: Node,
        head_node: Node,
        args: list[Node],
        evals: list[Eval | None],
    ) -> None:
        self.tree = tree
        self.name = name
        self.call_node = call_node  # blamed for "error calling"
        self.head_node = head_node  # blamed for argument count errors
        self.args = args
        self.evals = evals  # None for literals, converted per parameter type
        self.nargs = len(args)
        self.bound: _Bound | None = None
        self._methods: dict[Any, _Bound] = {}

    def _converter(self, i: int, typ: str) -> Eval:
        node, ev, tree = self.args[i], self.evals[i], self.tree
        if ev is None:
            try:
                value = literal_value(node, typ)
            except ArgError as err:
                reason, where = err.reason, err.node or last_evaluated(node)

                def bad(st: State, dot: Any) -> Any:
                    fail(st, tree, where, reason)

                return bad
            return lambda st, dot: value
        return _arg_converter(tree, node, typ, ev)

    def bind(self, key: Any, sig: Signature, impl: Any, kind: str | None) -> _Bound:
        b = _Bound()
        b.key, b.impl, b.kind = key, impl, kind
        param_type = sig.param_type
        b.plan = tuple([self._converter(i, param_type(i)) for i in range(self.nargs)])
        b.n = self.nargs
        b.err0 = sig.count_error(self.name, self.nargs, False)
        b.err1 = sig.count_error(self.name, self.nargs, True)
        b.final_check = _checker(sig.final_type(self.nargs + 1))
        return b

    def argv(self, st: State, dot: Any, b: _Bound, final: Any) -> list[Any]:
        if (b.err0 if final is MISSING else b.err1) is not None:
            fail(st, self.tree, self.head_node, b.err0 if final is MISSING else b.err1)
        plan, n = b.plan, b.n
        if n == 0:
            argv = []
        elif n == 1:
            argv = [plan[0](st, dot)]
        elif n == 2:
            argv = [plan[0](st, dot), plan[1](st, dot)]
        else:
            argv = [conv(st, dot) for conv in plan]
        if final is not MISSING:
            try:
                argv.append(b.final_check(final))
            except ArgError as err:
                where = last_evaluated(self.args[-1]) if self.args else self.head_node
                fail(st, self.tree, where, err.reason)
        return argv

    def invoke(self, st: State, dot: Any, b: _Bound, impl: Callable[..., Any], final: Any) -> Any:
        if final is MISSING and b.n == 1 and b.err0 is None:  # the most common shape
            argv = [b.plan[0](st, dot)]
        else:
            argv = self.argv(st, dot, b, final)
        try:
            v = impl(*argv)
        except FuncError as err:
            fail(st, self.tree, self.call_node, f"error calling {self.name}: {err}")
        except ExecError as err:
            fail(st, self.tree, self.call_node, f"error calling {self.name}: {err}")
        return NIL if v is None else v

    def bind_function(self, gf: GoFunc) -> _Bound:
        special = SPECIAL.get(id(gf))
        kind = special[1] if special is not None and special[0] is gf else None
        b = self.bound = self.bind(gf, signature_of(gf), gf.impl, kind)
        return b

    def call_function(self, st: State, dot: Any, b: _Bound, final: Any) -> Any:
        if b.kind is None:
            return self.invoke(st, dot, b, b.impl, final)
        if b.kind == "call":
            return _call_builtin(st, dot, self, b, final)
        return _and_or(st, dot, self, b, b.kind == "or", final)

    def call_method(self, st: State, dot: Any, method: Any, final: Any) -> Any:
        func = getattr(method, "__func__", method)
        b = self._methods.get(func)
        if b is None:
            b = self._methods[func] = self.bind(func, method_signature(method), None, None)
        return self.invoke(st, dot, b, method, final)

    def raw(self, st: State, dot: Any, i: int) -> Any:
        """An argument as a reflect.Value parameter sees it (and/or)."""
        ev = self.evals[i]
        if ev is not None:
            return ev(st, dot)
        try:
            return literal_value(self.args[i], REFLECT_VALUE)
        except ArgError as err:
            fail(st, self.tree, err.node or self.args[i], err.reason)


def _and_or(st: State, dot: Any, site: _Site, b: _Bound, is_or: bool, final: Any) -> Any:
    """and/or short-circuit: arguments are evaluated only until the answer is known."""
    if (b.err0 if final is MISSING else b.err1) is not None:
        fail(st, site.tree, site.head_node, b.err0 if final is MISSING else b.err1)
    v = None
    for i in range(site.nargs):
        v = site.raw(st, dot, i)
        if truth(v) == is_or:
            return v
    if final is not MISSING:
        v = final
    return v


def _whole(node: Node) -> str:
    """An argument's text (generated code's stand-ins find it again on demand)."""
    whole = getattr(node, "whole", None)
    return str(node) if whole is None else whole  # type: ignore[no-any-return]


def _call_builtin(st: State, dot: Any, site: _Site, b: _Bound, final: Any) -> Any:
    argv = site.argv(st, dot, b, final)
    callee = _whole(site.args[0]) if site.args else format_value(final)
    try:
        v = b.impl(callee, *argv)
    except FuncError as err:
        fail(st, site.tree, site.call_node, f"error calling call: {err}")
    return NIL if v is None else v
