"""Parse trees compiled to Python source, one factory function per template.

For each tree of a parsed file the generator writes `def mk_N():` which,
called once, returns `(run, nslots)`: `run(st, dot)` executes the template
with statements and control flow inline (if/with as `if`, range as `for`,
break/continue as Python's), template variables in the frame list
`V = st.vars` (slots fixed at generation, Go's scoping being lexical), and
dict field chains inline. Function calls, method calls and field access on
anything but a dict go through the call sites of runner.template.sites (one
per call site, made on first use; arguments evaluated by small nested
functions) and the helpers of runner.template.runtime, so argument
conversion, missingkey and nil handling are the executor's own.

Error texts need the position and text of a node: both are embedded as
constants (`pos, "text"`) at each place that can fail; the node objects a
call site needs (literals for conversion, stand-ins for others) are built
when the site is first used. Behaviour follows Go's text/template exec.go
as the closure compiler did before (see docs/engine.md).
"""

from __future__ import annotations

import math
from typing import Any

from runner.template.calls import ArgError, ideal_constant
from runner.template.nodes import (
    ChainNode,
    CommandNode,
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

_LITERALS = ("nil", "bool", "number", "string")


def const(v: Any) -> str:
    """Python source for a constant value (floats that repr can't spell included)."""
    if isinstance(v, float) and not math.isfinite(v):
        return f"float({str(v)!r})"
    if isinstance(v, complex):
        return f"complex({const(v.real)}, {const(v.imag)})"
    return repr(v)


def spec(node: Node) -> str:
    """A node as error messages need it: position and text."""
    return f"{node.pos}, {str(node)!r}"


def generate(trees: list[Tree]) -> str:
    """Module source defining `mk_0 .. mk_{n-1}`, one factory per tree, in order."""
    parts = []
    for i, tree in enumerate(trees):
        parts.append(_Define(tree).source(f"mk_{i}"))
    return "\n".join(parts)


class _Define:
    """Generates one tree's factory; tracks variable scopes to give each variable a slot."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.scope: list[tuple[str, int]] = [("$", 0)]
        self.nslots = 1
        # Go reports a range element (dot, or its variable) as interface {} in
        # field errors: it sits in an interface slot. Tracked statically.
        self.dot_boxed = False
        self.boxed_slots: set[int] = set()
        self.nsites = 0
        self.ntemps = 0
        self.nevals = 0
        self.funcs: list[list[str]] = []  # argument evaluators
        self.out: list[str] = []
        self.ind = 0

    # ---------------------------------------------------------- output

    def source(self, fname: str) -> str:
        self.ind = 2
        self.w("V = st.vars")
        self.w("ap = st.out.append")
        self.stmts(self.tree.root or ListNode(0), "dot")
        body = self.out
        lines = [f"def {fname}():", f"    S = [None] * {self.nsites}"]
        for func in self.funcs:
            lines.extend(func)
        lines.append("    def run(st, dot):")
        lines.extend(body)
        lines.append(f"    return run, {self.nslots}")
        return "\n".join(lines) + "\n"

    def w(self, line: str) -> None:
        self.out.append("    " * self.ind + line)

    def tmp(self) -> str:
        self.ntemps += 1
        return f"t{self.ntemps}"

    def fail(self, node: Node | str, reason: str) -> None:
        where = node if isinstance(node, str) else spec(node)
        self.w(f"fail_at(st, T, {where}, {reason!r})")

    def site(self, name: str, call_node: Node, head_node: Node, args: list[Node]) -> str:
        """An expression giving the call site, made on first use."""
        k = self.nsites
        self.nsites += 1
        argspecs = tuple(_arg_spec(a) for a in args)
        evals = [self.evaluator(a) for a in args]
        ev_src = "(" + "".join(f"{e}, " for e in evals) + ")"
        return (
            f"(S[{k}] or mksite(S, {k}, T, {name!r}, ({spec(call_node)}), ({spec(head_node)}), "
            f"({''.join(s + ', ' for s in argspecs)}), {ev_src}))"
        )

    # ------------------------------------------------------- variables

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

    # ------------------------------------------------------ statements

    def stmts(self, node: Node, dot: str) -> None:
        """Statements of `node`; `pass` when they write nothing."""
        mark = len(self.out)
        self.stmt(node, dot)
        if len(self.out) == mark:
            self.w("pass")

    def stmt(self, node: Node, dot: str) -> None:
        kind = node.kind
        if kind == "list":
            for n in node.nodes:  # type: ignore[attr-defined]
                self.stmt(n, dot)
        elif kind == "text":
            self.w(f"ap({node.text!r})")  # type: ignore[attr-defined]
        elif kind == "action":
            self.action(node.pipe, dot)  # type: ignore[attr-defined]
        elif kind == "if":
            self.s_if(node, dot)
        elif kind == "with":
            self.s_with(node, dot)
        elif kind == "range":
            self.s_range(node, dot)  # type: ignore[arg-type]
        elif kind == "template":
            self.s_template(node, dot)  # type: ignore[arg-type]
        elif kind == "break":
            self.w("break")
        elif kind == "continue":
            self.w("continue")
        # comments write nothing

    def action(self, pipe: PipeNode, dot: str) -> None:
        v = self.pipe(pipe, dot)
        if pipe.decl:
            return  # declarations print nothing
        show = "print_copied_value" if self._prints_copy(pipe) else "print_value"
        self.w(f"ap({v} if type({v}) is str else {show}({v}))")

    def _prints_copy(self, pipe: PipeNode) -> bool:
        """Whether the printed value is a copy: Go's printableValue takes the address of
        an addressable value (a field, or a variable or dot holding one) to reach a
        pointer-receiver String; a function's result or a range element is a copy."""
        if not pipe.cmds or not pipe.cmds[-1].args:
            return False
        arg = pipe.cmds[-1].args[0]
        if arg.kind == "dot":
            return self.dot_boxed
        if arg.kind == "variable":
            ident = arg.ident  # type: ignore[attr-defined]
            return len(ident) == 1 and self.resolve(ident[0]) in self.boxed_slots
        if arg.kind == "pipe":
            return self._prints_copy(arg)  # type: ignore[arg-type]
        return arg.kind not in ("field", "chain")

    def s_if(self, node: Any, dot: str) -> None:
        mark = len(self.scope)
        v = self.pipe(node.pipe, dot)
        self.w(f"if truth({v}):")
        self.block(node.list, dot)
        if node.else_list is not None:
            self.w("else:")
            self.block(node.else_list, dot)
        del self.scope[mark:]

    def s_with(self, node: Any, dot: str) -> None:
        mark = len(self.scope)
        saved, self.dot_boxed = self.dot_boxed, False
        v = self.pipe(node.pipe, dot)
        self.w(f"if truth({v}):")
        self.block(node.list, v)
        self.dot_boxed = saved
        if node.else_list is not None:
            self.w("else:")
            self.block(node.else_list, dot)
        del self.scope[mark:]

    def block(self, node: ListNode, dot: str) -> None:
        """A branch's statements; what it declares is not visible after it (Go pops
        them at run time: an else branch using them finds them undefined)."""
        mark = len(self.scope)
        self.ind += 1
        self.stmts(node, dot)
        self.ind -= 1
        del self.scope[mark:]

    def s_range(self, node: RangeNode, dot: str) -> None:
        mark = len(self.scope)
        v = self.pipe(node.pipe, dot)
        slots = [self.resolve(var.ident[0]) for var in node.pipe.decl]
        if slots and slots[-1] is not None:
            self.boxed_slots.add(slots[-1])
        where = spec(last_evaluated(node.pipe))  # Go's state still points into the pipeline
        pairs, index, elem = self.tmp(), self.tmp(), self.tmp()
        self.w(f"{pairs} = range_pairs(st, T, {where}, {v}, {len(slots) > 1})")
        self.w(f"if {pairs} is not None:")
        self.ind += 1
        self.w(f"for {index}, {elem} in {pairs}:")
        self.w(f"    if {elem} is None: {elem} = NIL")  # an element of []interface {} is boxed
        if slots:
            self.w(f"    V[{slots[-1]}] = {elem}")
        if len(slots) > 1:
            self.w(f"    V[{slots[0]}] = {index}")
        saved, self.dot_boxed = self.dot_boxed, True
        self.block(node.list, elem)
        self.dot_boxed = saved
        self.ind -= 1
        if node.else_list is not None:
            self.w("else:")
            self.block(node.else_list, dot)
        del self.scope[mark:]

    def s_template(self, node: TemplateNode, dot: str) -> None:
        target = self.tmp()
        self.w(f"{target} = template_target(st, T, {spec(node)}, {node.name!r})")
        v = self.pipe(node.pipe, dot) if node.pipe is not None else "None"
        self.w(f"run_template(st, T, {spec(node)}, {target}, {v})")

    # ------------------------------------------------------- pipelines

    def pipe(self, pipe: PipeNode, dot: str) -> str:
        """Emits the pipeline; returns the name of the local holding its value."""
        v: str | None = None
        for cmd in pipe.cmds:
            v = self.command(cmd, dot, v)
            self.w(f"if {v} is NIL: {v} = None")
        if v is None:
            v = self.tmp()
            self.w(f"{v} = None")
        # declared after the commands: they see old bindings
        for var in pipe.decl:
            name = var.ident[0]
            slot = self.resolve(name) if pipe.is_assign else None
            if slot is None:
                if pipe.is_assign:
                    self.fail(last_evaluated(pipe), f"undefined variable: {name}")
                slot = self.declare(name)
            self.w(f"V[{slot}] = {v}")
        return v

    def command(self, cmd: CommandNode, dot: str, final: str | None) -> str:
        """One command with the previous command's value `final` (None: Go's missingVal)."""
        first, rest = cmd.args[0], cmd.args[1:]
        kind = first.kind
        if kind == "field":
            return self.field_chain(first, first.ident, rest, dot, None, final)  # type: ignore[attr-defined]
        if kind == "chain":
            return self.chain(first, rest, dot, final)  # type: ignore[arg-type]
        if kind == "identifier":
            site = self.site(first.ident, cmd, first, rest)  # type: ignore[attr-defined]
            v = self.tmp()
            self.w(f"{v} = call_function(st, {dot}, {site}, {final or 'MISSING'})")
            return v
        if kind == "variable" and len(first.ident) > 1:  # type: ignore[attr-defined]
            recv = self.variable(first, dot)  # type: ignore[arg-type]
            slot = self.resolve(first.ident[0])  # type: ignore[attr-defined]
            return self.field_chain(first, first.ident[1:], rest, dot, recv, final, slot in self.boxed_slots)  # type: ignore[attr-defined]
        if rest or final is not None:
            self.fail(first, f"can't give argument to non-function {first}")
        v = self.tmp()
        if kind == "variable":
            self.w(f"{v} = {self.variable(first, dot)}")  # type: ignore[arg-type]
        elif kind == "pipe":
            self.w(f"{v} = {self.pipe(first, dot)}")  # type: ignore[arg-type]
        else:
            self.w(f"{v} = {self.literal_command(first, dot)}")
        return v

    def literal_command(self, first: Node, dot: str) -> str:
        kind = first.kind
        if kind == "dot":
            return dot
        if kind == "bool":
            return repr(first.value)  # type: ignore[attr-defined]
        if kind == "string":
            return repr(first.text)  # type: ignore[attr-defined]
        if kind == "number":
            try:
                return const(ideal_constant(first))  # type: ignore[arg-type]
            except ArgError as err:
                self.fail(first, err.reason)
                return "None"
        self.fail(first, "nil is not a command" if kind == "nil" else f"can't evaluate command {_go_quote(str(first))}")
        return "None"

    def variable(self, node: VariableNode, dot: str) -> str:
        """An expression reading the variable (raw: it may hold NIL)."""
        name = node.ident[0]
        slot = self.resolve(name)
        if slot is None:  # `$x := $x` with no earlier $x: Go fails when it runs
            self.fail(node, f"undefined variable: {name}")
            return "None"
        return f"V[{slot}]"

    def chain(self, node: ChainNode, args: list[Node], dot: str, final: str | None) -> str:
        if node.node.kind == "nil":
            self.fail(node, f"indirection through explicit nil in {node}")
            return "None"
        if node.node.kind in _LITERALS:  # literals can't carry fields; the parser rejects most
            self.fail(node, f"can't evaluate field {node.field[0]} in type {node.node}")
            return "None"
        recv = self.arg_value(node.node, dot)
        # Go's state still points at the last node evaluated for the receiver.
        return self.field_chain(node, node.field, args, dot, recv, final, False, last_evaluated(node.node))

    def field_chain(
        self,
        call_node: Node,
        names: list[str],
        args: list[Node],
        dot: str,
        recv: str | None,
        final: str | None,
        boxed0: bool = False,
        err_node: Node | None = None,
    ) -> str:
        """evalFieldChain: every name but the last without arguments; the last may be a method call."""
        node = err_node or call_node  # field errors vs "error calling" blame
        if recv is None:
            recv, boxed0 = dot, self.dot_boxed
        r, boxed = self.tmp(), self.tmp()
        self.w(f"{r} = {recv}")
        self.w(f"{boxed} = {boxed0}")
        for name in names[:-1]:
            self.step(r, boxed, name, call_node, node, dot)
        last = names[-1]
        v = self.tmp()
        self.w(f"if type({r}) is dict:")
        self.ind += 1
        if args or final is not None:
            self.fail(node, f"{last} is not a method but has arguments")
        self.w(f"{v} = {r}.get({last!r}, ABSENT)")
        self.w(f"if {v} is None: {v} = NIL")
        self.w(f"elif {v} is ABSENT: {v} = missing_key(st, T, {spec(node)}, {last!r})")
        self.ind -= 1
        self.w("else:")
        site = self.site(last, call_node, node, args)
        self.w(f"    {v} = field(st, T, {r}, {last!r}, {site}, {final or 'MISSING'}, {dot}, {boxed})")
        return v

    def step(self, r: str, boxed: str, name: str, call_node: Node, node: Node, dot: str) -> None:
        """One name of a chain, no arguments: dicts inline, anything else through a site."""
        self.w(f"if type({r}) is dict:")
        self.w(f"    {r} = {r}.get({name!r}, ABSENT)")
        self.w(f"    if {r} is None: {r} = NIL")
        self.w(f"    elif {r} is ABSENT: {r} = missing_key(st, T, {spec(node)}, {name!r})")
        self.w(f"    {boxed} = True")
        self.w("else:")
        site = self.site(name, call_node, node, [])
        self.w(f"    {r} = field(st, T, {r}, {name!r}, {site}, MISSING, {dot}, {boxed})")
        self.w(f"    {boxed} = False")

    # ------------------------------------------------------- arguments

    def arg_value(self, node: Node, dot: str) -> str:
        """Emits an argument's raw evaluation (evalArg before validateType); a non-literal."""
        kind = node.kind
        if kind == "dot":
            return dot
        if kind == "pipe":
            return self.pipe(node, dot)  # type: ignore[arg-type]
        if kind == "field":
            return self.field_walk(node, node.ident, dot)  # type: ignore[attr-defined]
        if kind == "variable":
            if len(node.ident) == 1:  # type: ignore[attr-defined]
                v = self.tmp()
                self.w(f"{v} = {self.variable(node, dot)}")  # type: ignore[arg-type]
                return v
            return self.command(_single(node), dot, None)
        if kind in ("identifier", "chain"):
            return self.command(_single(node), dot, None)
        self.fail(node, f"can't handle {node} for arg of type interface {{}}")
        return "None"

    def field_walk(self, node: Node, names: list[str], dot: str) -> str:
        """A field chain in argument position: no arguments, no final value."""
        r, boxed = self.tmp(), self.tmp()
        self.w(f"{r} = {dot}")
        self.w(f"{boxed} = {self.dot_boxed}")
        for name in names:
            self.step(r, boxed, name, node, node, dot)
        return r

    def evaluator(self, node: Node) -> str:
        """A nested function evaluating a non-literal argument for a call site; 'None' for literals."""
        kind = node.kind
        if kind in _LITERALS:
            return "None"
        if kind == "dot":
            return "dot_arg"
        saved = self.out, self.ind
        self.nevals += 1
        name = f"e{self.nevals}"
        self.out, self.ind = [], 2
        self.w("V = st.vars")
        v = self.arg_value(node, "dot")
        self.w(f"return {v}")
        body = self.out
        self.out, self.ind = saved
        self.funcs.append([f"    def {name}(st, dot):", *body])
        return name


def _single(node: Node) -> CommandNode:
    """A one-word command around an argument node (evalArg runs it as a command)."""
    cmd = CommandNode(node.pos)
    cmd.args = [node]
    return cmd


def _arg_spec(node: Node) -> str:
    """Source for what a call site keeps of an argument: a literal node's fields
    (the site converts literals per parameter type), else where the argument
    ends (errors after evaluating it point there) and its text."""
    kind = node.kind
    if kind == "string":
        return f"('s', {node.pos}, {node.quoted!r}, {node.text!r})"  # type: ignore[attr-defined]
    if kind == "bool":
        return f"('b', {node.pos}, {node.value!r})"  # type: ignore[attr-defined]
    if kind == "nil":
        return f"('n', {node.pos})"
    if kind == "number":
        n: NumberNode = node  # type: ignore[assignment]
        fields = (n.text, n.is_int, n.is_uint, n.is_float, n.is_complex, n.int64, n.uint64, n.float64, n.complex128)
        return f"('#', {n.pos}, " + ", ".join(const(f) for f in fields) + ")"
    end = last_evaluated(node)
    return f"('w', {end.pos}, {str(end)!r}, {kind!r}, {str(node)!r})"


def _go_quote(s: str) -> str:
    from runner.template.lex import go_quote

    return go_quote(s)
