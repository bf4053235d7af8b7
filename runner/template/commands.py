"""Compiling commands and arguments: field chains, variables, function calls, literals.

Mirrors exec.go's evalCommand / evalFieldChain / evalFunction / evalArg; the
dict fast path in field chains is what makes `.Values.a.b` cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runner.funcs.registry import FuncError
from runner.template.calls import ArgError
from runner.template.errors import ExecError
from runner.template.exec import constant_command, number_command
from runner.template.lex import go_quote
from runner.template.nodes import (
    ChainNode,
    CommandNode,
    IdentifierNode,
    Node,
    VariableNode,
    last_evaluated,
)
from runner.template.sites import _field, _missing_key
from runner.template.state import (
    _ABSENT,
    Cmd,
    Eval,
    State,
    fail,
)
from runner.template.values import MISSING, NIL

if TYPE_CHECKING:
    from runner.template.exec import _Compiler


def compile_command(c: _Compiler, cmd: CommandNode) -> Cmd:
    first, rest = cmd.args[0], cmd.args[1:]
    kind = first.kind
    if kind == "field":
        return field_chain(c, first, first.ident, rest, None)  # type: ignore[attr-defined]
    if kind == "chain":
        return _chain_node(c, first, rest)  # type: ignore[arg-type]
    if kind == "identifier":
        return function_call(c, first, cmd, rest)  # type: ignore[arg-type]
    if kind == "variable":
        return _variable(c, first, rest)  # type: ignore[arg-type]
    if kind == "pipe":
        return _paren(c, first, bool(rest))
    return _literal_command(c, first, bool(rest))


def _literal_command(c: _Compiler, first: Node, extra: bool) -> Cmd:
    tree = c.tree
    kind = first.kind
    if kind == "dot":

        def dot_cmd(st: State, dot: Any, final: Any) -> Any:
            if extra or final is not MISSING:
                fail(st, tree, first, f"can't give argument to non-function {first}")
            return dot

        return dot_cmd
    if kind == "bool":
        return constant_command(tree, first, first.value, extra)  # type: ignore[attr-defined]
    if kind == "string":
        return constant_command(tree, first, first.text, extra)  # type: ignore[attr-defined]
    if kind == "number":
        return number_command(tree, first, extra)  # type: ignore[arg-type]
    reason = "nil is not a command" if kind == "nil" else f"can't evaluate command {go_quote(str(first))}"

    def bad(st: State, dot: Any, final: Any) -> Any:
        if extra or final is not MISSING:
            fail(st, tree, first, f"can't give argument to non-function {first}")
        fail(st, tree, first, reason)

    return bad


def _paren(c: _Compiler, first: Node, extra: bool) -> Cmd:
    ev = c.pipe(first)  # type: ignore[arg-type]
    tree = c.tree

    def cmd(st: State, dot: Any, final: Any) -> Any:
        if extra or final is not MISSING:
            fail(st, tree, first, f"can't give argument to non-function {first}")
        return ev(st, dot)

    return cmd


def _var_getter(c: _Compiler, node: VariableNode) -> Eval:
    name, tree = node.ident[0], c.tree
    slot = c.resolve(name)
    if slot is None:  # `$x := $x` with no earlier $x: Go fails when it runs

        def undefined(st: State, dot: Any) -> Any:
            fail(st, tree, node, f"undefined variable: {name}")

        return undefined

    def get(st: State, dot: Any) -> Any:
        return st.vars[slot]

    def get_unboxed(st: State, dot: Any) -> Any:
        v = st.vars[slot]
        return None if v is NIL else v

    get.unboxed = get_unboxed  # type: ignore[attr-defined]
    return get


def _variable(c: _Compiler, node: VariableNode, args: list[Node]) -> Cmd:
    get = _var_getter(c, node)
    if len(node.ident) > 1:
        slot = c.resolve(node.ident[0])
        return field_chain(c, node, node.ident[1:], args, get, slot in c.boxed_slots)
    tree, extra = c.tree, bool(args)

    def cmd(st: State, dot: Any, final: Any) -> Any:
        if extra or final is not MISSING:
            fail(st, tree, node, f"can't give argument to non-function {node}")
        return get(st, dot)

    return cmd


def _chain_node(c: _Compiler, node: ChainNode, args: list[Node]) -> Cmd:
    tree = c.tree
    if node.node.kind == "nil":

        def bad(st: State, dot: Any, final: Any) -> Any:
            fail(st, tree, node, f"indirection through explicit nil in {node}")

        return bad
    recv = compile_arg(c, node.node)
    if recv is None:
        value = node.node  # literals can't carry fields; the parser rejects most

        def literal(st: State, dot: Any, final: Any) -> Any:
            fail(st, tree, node, f"can't evaluate field {node.field[0]} in type {value}")

        return literal
    # Go's state still points at the last node evaluated for the receiver.
    return field_chain(c, node, node.field, args, recv, err_node=last_evaluated(node.node))


def field_chain(
    c: _Compiler,
    node: Node,
    names: list[str],
    args: list[Node],
    recv: Eval | None,
    boxed0: bool = False,
    err_node: Node | None = None,
) -> Cmd:
    """evalFieldChain: every name but the last without arguments; the last may be a method call."""
    tree = c.tree
    call_node, node = node, err_node or node  # field errors vs "error calling" blame
    if recv is None:
        boxed0 = c.dot_boxed
    head, last = names[:-1], names[-1]
    mids = [c.site(n, call_node, node, []) for n in head]
    steps = list(zip(head, mids, strict=True))
    site = c.site(last, call_node, node, args)
    has_args = bool(args)
    walk = _field_walker(tree, node, steps, recv, boxed0, unbox=False, pair=True) if steps else None

    def cmd(st: State, dot: Any, final: Any) -> Any:
        if walk is None:
            r, boxed = (dot if recv is None else recv(st, dot)), boxed0
        else:
            r, boxed = walk(st, dot)
        if type(r) is dict:
            if has_args or final is not MISSING:
                fail(st, tree, node, f"{last} is not a method but has arguments")
            v = r.get(last, _ABSENT)
            if v is _ABSENT:
                return _missing_key(st, tree, node, last, r)
            return NIL if v is None else v
        return _field(st, tree, node, r, last, site, final, dot, boxed)

    return cmd


def field_arg(c: _Compiler, node: Node, names: list[str], recv: Eval | None) -> Eval:
    """A field chain in argument position: no arguments and no final value, so one loop.

    The evaluator carries `.unboxed`, the same walk for `interface {}`
    parameters (a nil arrives as None), saving a converter call per argument.
    """
    steps = [(n, c.site(n, node, node, [])) for n in names]
    ev = _field_walker(c.tree, node, steps, recv, c.dot_boxed, unbox=False)
    ev.unboxed = _field_walker(c.tree, node, steps, recv, c.dot_boxed, unbox=True)  # type: ignore[attr-defined]
    return ev


def _field_walker(
    tree: Any, node: Node, steps: list[Any], recv: Eval | None, boxed0: bool, unbox: bool, pair: bool = False
) -> Eval:
    """Walk field names from the receiver; `pair` also returns whether the result sits in an
    interface slot (it came from a map), which decides the type named in field errors."""

    def ev(st: State, dot: Any) -> Any:
        r = dot if recv is None else recv(st, dot)
        boxed = boxed0
        for name, site in steps:
            if type(r) is dict:
                v = r.get(name, _ABSENT)
                if v is _ABSENT:
                    r = _missing_key(st, tree, node, name, r)
                else:
                    r = NIL if v is None else v
                boxed = True
            else:
                r = _field(st, tree, node, r, name, site, MISSING, dot, boxed)
                boxed = False
        if pair:
            return r, boxed
        if unbox and r is NIL:
            return None
        return r

    return ev


def function_call(c: _Compiler, ident: IdentifierNode, call_node: Node, args: list[Node]) -> Cmd:
    """evalFunction + evalCall, with the plain case (no pipeline value, no special builtin) inline."""
    name, tree = ident.ident, c.tree
    site = c.site(name, call_node, ident, args)
    call_error = f"error calling {name}: "
    final_where = last_evaluated(args[-1]) if args else ident  # where Go's state points

    def cmd(st: State, dot: Any, final: Any) -> Any:
        gf = st.funcs.get(name)
        if gf is None:
            fail(st, tree, ident, f"{go_quote(name)} is not a defined function")
        b = site.bound
        if b is None or b.key is not gf:
            b = site.bind_function(gf)
        if b.kind is not None:
            return site.call_function(st, dot, b, final)
        plan = b.plan
        if final is MISSING:
            if b.err0 is not None:
                fail(st, tree, ident, b.err0)
            n = b.n
            if n == 1:
                argv: Any = (plan[0](st, dot),)
            elif n == 2:
                argv = (plan[0](st, dot), plan[1](st, dot))
            elif n == 0:
                argv = ()
            else:
                argv = [conv(st, dot) for conv in plan]
        else:
            if b.err1 is not None:
                fail(st, tree, ident, b.err1)
            argv = [conv(st, dot) for conv in plan]
            try:
                argv.append(b.final_check(final))
            except ArgError as err:
                fail(st, tree, final_where, err.reason)
        try:
            v = b.impl(*argv)
        except (FuncError, ExecError) as err:
            fail(st, tree, call_node, call_error + str(err))
        return NIL if v is None else v

    return cmd


def compile_arg(c: _Compiler, node: Node) -> Eval | None:
    """An argument's raw evaluator (evalArg before validateType); None for literals."""
    kind = node.kind
    if kind == "dot":
        return lambda st, dot: dot
    if kind in ("nil", "bool", "number", "string"):
        return None
    if kind == "pipe":
        return c.pipe(node)  # type: ignore[arg-type]
    if kind == "field":
        return field_arg(c, node, node.ident, None)  # type: ignore[attr-defined]
    if kind == "variable":
        if len(node.ident) == 1:  # type: ignore[attr-defined]
            return _var_getter(c, node)  # type: ignore[arg-type]
        cmd = _variable(c, node, [])  # type: ignore[arg-type]
    elif kind == "identifier":
        cmd = function_call(c, node, node, [])  # type: ignore[arg-type]
    elif kind == "chain":
        cmd = _chain_node(c, node, [])  # type: ignore[arg-type]
    else:
        tree = c.tree

        def bad(st: State, dot: Any) -> Any:
            fail(st, tree, node, f"can't handle {node} for arg of type interface {{}}")

        return bad
    return lambda st, dot: cmd(st, dot, MISSING)
