"""Execution of parsed templates, compiled once into Python closures.

Each tree is compiled on first use into nested closures `run(state, dot)`
(statements, which append to `state.out`) and `ev(state, dot[, final])`
(pipelines and commands, which return values). Variables get frame slots at
compile time (Go's variable stack is lexical in effect); field chains on
dicts take a fast path; functions are looked up by name per call (the
function map is per render) with argument plans cached per call site.
Behaviour and error texts follow Go's text/template exec.go.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from runner.funcs.registry import ANY, FuncError, GoFunc
from runner.template.builtins import SPECIAL
from runner.template.calls import (
    EXACT_TYPES,
    REFLECT_VALUE,
    ArgError,
    Signature,
    empty_interface_literal,
    ideal_constant,
    literal_value,
    make_checker,
    method_signature,
    signature_of,
)
from runner.template.errors import ExecError
from runner.template.gotypes import Int64, StringMap, format_value, go_type_name, print_value
from runner.template.lex import go_quote
from runner.template.nodes import (
    ListNode,
    Node,
    NumberNode,
    PipeNode,
    RangeNode,
    TemplateNode,
    VariableNode,
    last_evaluated,
)
from runner.template.parse import Tree
from runner.template.values import MISSING, NIL, truth

MAX_EXEC_DEPTH = 100000  # Go's maxExecDepth
MISSINGKEY_INVALID, MISSINGKEY_ZERO, MISSINGKEY_ERROR = 0, 1, 2
MISSINGKEY_MODES = {"default": 0, "invalid": 0, "zero": 1, "error": 2}

# Deep include/template recursion is ordinary in library charts; Go's own
# limits (Helm's 1000 includes, maxExecDepth) are what users should hit.
if sys.getrecursionlimit() < 30000:
    sys.setrecursionlimit(30000)

_ABSENT: Any = object()
Eval = Callable[["State", Any], Any]
Cmd = Callable[["State", Any, Any], Any]
Run = Callable[["State", Any], None]


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_BREAK = _Break()
_CONTINUE = _Continue()


class State:
    """One executing template: output, variable frame, name (for errors), depth, the set."""

    __slots__ = ("out", "vars", "name", "depth", "trees", "funcs", "missingkey")

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


class Compiled:
    __slots__ = ("run", "nslots")

    def __init__(self, run: Run, nslots: int) -> None:
        self.run = run
        self.nslots = nslots


def fail(st: State, tree: Tree, node: Node, reason: str) -> NoReturn:
    location, context = tree.error_context(node)
    raise ExecError.at(st.name, location, context, reason)


def compiled(tree: Tree) -> Compiled:
    comp = tree.compiled
    if comp is None:
        with no_gc():
            comp = tree.compiled = _Compiler(tree).compile()
    return comp  # type: ignore[return-value]


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic GC while building trees and closures: they are all
    long-lived, and collections triggered by their allocations cost more than
    the building itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def execute_tree(
    tree: Tree,
    trees: dict[str, Tree],
    data: Any,
    funcs: dict[str, GoFunc],
    missingkey: int = MISSINGKEY_INVALID,
) -> str:
    """Run `tree` with dot = `data`; returns the output text or raises ExecError."""
    comp = compiled(tree)
    frame = [data] + [None] * (comp.nslots - 1)
    st = State([], frame, tree.name, 0, trees, funcs, missingkey)
    try:  # noqa: SIM105
        comp.run(st, data)
    except (_Break, _Continue):  # unreachable: the parser confines them to range
        pass
    return "".join(st.out)


# ------------------------------------------------------------------ fields


def _missing_key(st: State, tree: Tree, node: Node, name: str, receiver: Any = None) -> Any:
    mode = st.missingkey
    if mode == MISSINGKEY_ZERO:
        return "" if type(receiver) is StringMap else NIL
    if mode == MISSINGKEY_INVALID:
        return None
    fail(st, tree, node, f"map has no entry for key {go_quote(name)}")


_PLAIN = frozenset({str, int, float, bool, list, tuple, bytes, dict, complex, Int64, StringMap})


def _field(
    st: State, tree: Tree, node: Node, r: Any, name: str, site: _Site, final: Any, dot: Any, boxed: bool
) -> Any:
    """evalField for anything but a plain dict (the executor's fast path)."""
    if r is None:
        if st.missingkey == MISSINGKEY_ERROR:
            fail(st, tree, node, f"nil data; no entry for key {go_quote(name)}")
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
        b.plan = tuple(self._converter(i, sig.param_type(i)) for i in range(self.nargs))
        b.n = len(b.plan)
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


def _call_builtin(st: State, dot: Any, site: _Site, b: _Bound, final: Any) -> Any:
    argv = site.argv(st, dot, b, final)
    callee = str(site.args[0]) if site.args else format_value(final)
    try:
        v = b.impl(callee, *argv)
    except FuncError as err:
        fail(st, site.tree, site.call_node, f"error calling call: {err}")
    return NIL if v is None else v


# ---------------------------------------------------------------- compiler


class _Compiler:
    """Turns one tree into closures; tracks variable scopes to give each variable a slot."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.scope: list[tuple[str, int]] = [("$", 0)]
        self.nslots = 1
        # Go reports a range element (dot, or its variable) as interface {} in
        # field errors: it sits in an interface slot. Tracked statically.
        self.dot_boxed = False
        self.boxed_slots: set[int] = set()

    def compile(self) -> Compiled:
        run = self.stmt(self.tree.root or ListNode(0))
        return Compiled(run, self.nslots)

    # ---------------------------------------------------- variables

    def resolve(self, name: str) -> int | None:
        for var, slot in reversed(self.scope):
            if var == name:
                return slot
        return None

    def declare(self, name: str) -> int:
        slot = self.nslots
        self.nslots += 1
        self.scope.append((name, slot))
        return slot

    def _pipe_slots(self, pipe: PipeNode) -> tuple[list[int], list[VariableNode]]:
        """Slots the pipeline writes; assignments to unknown variables fail at run time."""
        slots, undefined = [], []
        for var in pipe.decl:
            name = var.ident[0]
            slot = self.resolve(name) if pipe.is_assign else None
            if slot is None:
                if pipe.is_assign:
                    undefined.append(var)
                slot = self.declare(name)
            slots.append(slot)
        return slots, undefined

    # --------------------------------------------------- statements

    def stmt(self, node: Node) -> Run:
        return getattr(self, "s_" + node.kind)(node)

    def s_list(self, node: ListNode) -> Run:
        runs = [self.stmt(n) for n in node.nodes]
        if len(runs) == 1:
            return runs[0]

        def run(st: State, dot: Any) -> None:
            for r in runs:
                r(st, dot)

        return run

    def s_text(self, node: Node) -> Run:
        text = node.text  # type: ignore[attr-defined]

        def run(st: State, dot: Any) -> None:
            st.out.append(text)

        return run

    def s_comment(self, node: Node) -> Run:
        return lambda st, dot: None

    def s_action(self, node: Node) -> Run:
        pipe: PipeNode = node.pipe  # type: ignore[attr-defined]
        ev = self.pipe(pipe)
        if pipe.decl:
            return ev  # declarations print nothing

        def run(st: State, dot: Any) -> None:
            v = ev(st, dot)
            if type(v) is str:
                st.out.append(v)
            else:
                st.out.append(print_value(v))

        return run

    def _branch(self, node: Any) -> tuple[Eval, Run, Run | None]:
        mark = len(self.scope)
        ev = self.pipe(node.pipe)
        body = self.stmt(node.list)
        other = self.stmt(node.else_list) if node.else_list is not None else None
        del self.scope[mark:]
        return ev, body, other

    def s_if(self, node: Node) -> Run:
        ev, body, other = self._branch(node)

        def run(st: State, dot: Any) -> None:
            if truth(ev(st, dot)):
                body(st, dot)
            elif other is not None:
                other(st, dot)

        return run

    def s_with(self, node: Node) -> Run:
        saved, self.dot_boxed = self.dot_boxed, False
        ev, body, other = self._branch(node)
        self.dot_boxed = saved

        def run(st: State, dot: Any) -> None:
            v = ev(st, dot)
            if truth(v):
                body(st, v)
            elif other is not None:
                other(st, dot)

        return run

    def s_range(self, node: RangeNode) -> Run:
        from runner.template.ranges import compile_range

        mark = len(self.scope)
        ev = self.pipe(node.pipe)
        decl = node.pipe.decl
        slots = [self.resolve(v.ident[0]) for v in decl]
        if slots and slots[-1] is not None:
            self.boxed_slots.add(slots[-1])
        saved, self.dot_boxed = self.dot_boxed, True
        body = self.stmt(node.list)
        self.dot_boxed = saved
        other = self.stmt(node.else_list) if node.else_list is not None else None
        del self.scope[mark:]
        return compile_range(self.tree, node, ev, slots, body, other)

    def s_break(self, node: Node) -> Run:
        def run(st: State, dot: Any) -> None:
            raise _BREAK

        return run

    def s_continue(self, node: Node) -> Run:
        def run(st: State, dot: Any) -> None:
            raise _CONTINUE

        return run

    def s_template(self, node: TemplateNode) -> Run:
        name, tree = node.name, self.tree
        ev = self.pipe(node.pipe) if node.pipe is not None else None

        def run(st: State, dot: Any) -> None:
            target = st.trees.get(name)
            if target is None:
                fail(st, tree, node, f"template {go_quote(name)} not defined")
            if st.depth >= MAX_EXEC_DEPTH:
                fail(st, tree, node, f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
            d = ev(st, dot) if ev is not None else None
            comp = target.compiled or compiled(target)
            frame = [d] + [None] * (comp.nslots - 1)  # type: ignore[union-attr]
            sub = State(st.out, frame, target.name, st.depth + 1, st.trees, st.funcs, st.missingkey)
            try:
                comp.run(sub, d)  # type: ignore[union-attr]
            except RecursionError:
                fail(st, tree, node, f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")

        return run

    # ---------------------------------------------------- pipelines

    def pipe(self, pipe: PipeNode) -> Eval:
        cmds = [self.command(c) for c in pipe.cmds]
        slots, undefined = self._pipe_slots(pipe)  # declared after the commands: they see old bindings
        tree = self.tree
        last = last_evaluated(pipe)
        if len(cmds) == 1 and not slots:
            only = cmds[0]

            def ev1(st: State, dot: Any) -> Any:
                v = only(st, dot, MISSING)
                return None if v is NIL else v

            return ev1

        def ev(st: State, dot: Any) -> Any:
            v = MISSING
            for c in cmds:
                v = c(st, dot, v)
                if v is NIL:
                    v = None
            if undefined:
                fail(st, tree, last, f"undefined variable: {undefined[0].ident[0]}")
            frame = st.vars
            for s in slots:
                frame[s] = v
            return v

        return ev

    def command(self, cmd: Node) -> Cmd:
        from runner.template.commands import compile_command

        return compile_command(self, cmd)

    def arg(self, node: Node) -> Eval | None:
        from runner.template.commands import compile_arg

        return compile_arg(self, node)

    def site(self, name: str, call_node: Node, head_node: Node, args: list[Node]) -> _Site:
        return _Site(self.tree, name, call_node, head_node, args, [self.arg(a) for a in args])


def constant_command(tree: Tree, node: Node, value: Any, extra_args: bool) -> Cmd:
    """Literal first words (., true, "s", 1): values that take no arguments."""

    def cmd(st: State, dot: Any, final: Any) -> Any:
        if extra_args or final is not MISSING:
            fail(st, tree, node, f"can't give argument to non-function {node}")
        return value

    return cmd


def number_command(tree: Tree, node: NumberNode, extra_args: bool) -> Cmd:
    try:
        value = ideal_constant(node)
    except ArgError as err:
        reason = err.reason

        def bad(st: State, dot: Any, final: Any) -> Any:
            if extra_args or final is not MISSING:
                fail(st, tree, node, f"can't give argument to non-function {node}")
            fail(st, tree, node, reason)

        return bad
    return constant_command(tree, node, value, extra_args)


__all__ = [
    "ANY",
    "MISSINGKEY_MODES",
    "Compiled",
    "State",
    "compiled",
    "empty_interface_literal",
    "execute_tree",
    "fail",
]
