"""Parse trees compiled to Python source, as Jinja2 compiles its templates.

For each tree of a parsed file (the file itself and every `define`) the
generator writes `def r{i}(st, dot, S):`, which executes the template with
its control flow inline: if/with as `if truth(...)`, range as a `for` over
`range_pairs(...)` (break/continue as Python's), variables in the frame list
`V = st.vars` (slots fixed here, Go's variable scoping being lexical). Long
runs of statements and deep nesting go into functions `r{i}_{k}` of their
own: Python compiles large functions in more than linear time and limits
nesting; and each function is compiled on its first call only (a branch that
never runs is never compiled: a quarter to half of a chart's code).

Everything else is a call site `S[k].run(st, dot, final)`: a command (field
chain, function or method call, variable, literal, parenthesized pipeline)
or a run of texts, printing actions and template calls (one "emit" site).
What a site needs (field names, argument kinds, literal values, the position
and kind of the nodes its errors name) is data: the tree's table (marshalled when the cache stores it),
whose entries runtime.Sites builds into sites on their first use.
Data costs compile() next to nothing, and sites in branches that never run
are never built. Behaviour follows Go's text/template exec.go (see
docs/engine.md).
"""

from __future__ import annotations

from runner.golang.strconv import quote
from runner.template.calls import ArgError, ideal_constant
from runner.template.nodes import (
    CommandNode,
    ListNode,
    Node,
    PipeNode,
    RangeNode,
    TemplateNode,
    last_evaluated,
)
from runner.template.parse import Tree
from runner.template.positions import line_of

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    Spec = tuple[Any, ...]

_LITERALS = ("nil", "bool", "number", "string")
_CHUNK = 40  # lines of one generated function, about
_NEST = 32  # commands of a pipeline nested in one expression
_MAX_DEPTH = 12  # blocks nested in one generated function (Python allows 20 loops, 100 indents)


def where(node: Node) -> tuple[int, str]:
    """A node as error messages name it: position and kind, which find it again when its
    text is needed (runtime.FileCode.node_text; errors only)."""
    return (node.pos, node.kind)


class Generated:
    """One tree's generated code: its functions' sources (run function first, then the
    functions it calls; each compiled on its first call, runtime.Define), its table of
    call sites (a tuple of specs, marshalled only when the cache stores it: the run that
    generated it uses it as it is), and its frame size."""

    __slots__ = ("sources", "table", "nslots")

    def __init__(self, sources: list[str], table: tuple[Spec, ...], nslots: int) -> None:
        self.sources = sources
        self.table = table
        self.nslots = nslots


def generate(trees: list[Tree], tracked: bool = False) -> list[Generated]:
    """The code of every tree (`r{i}(st, dot, S)` runs tree i, its functions named
    `r{i}_{k}`: one namespace holds a file's trees). `tracked`: the form that records
    where each output piece came from (positions.py)."""
    generated = []
    for i, tree in enumerate(trees):
        define = _Define(tree, tracked, f"r{i}")
        run = define.source()
        generated.append(Generated([run, *define.funcs], tuple(define.specs), define.nslots))
    return generated


class _Define:
    """Generates one tree's factory; tracks variable scopes to give each variable a slot."""

    def __init__(self, tree: Tree, tracked: bool, name: str) -> None:
        self.tree = tree
        self.tracked = tracked
        self.name = name
        self.scope: list[tuple[str, int]] = [("$", 0)]
        self.nslots = 1
        # Go reports a range element (dot, or its variable) as interface {} in
        # field errors: it sits in an interface slot. Tracked statically.
        self.dot_boxed = False
        self.boxed_slots: set[int] = set()
        self.specs: list[Spec] = []
        self.ntemps = 0
        self.funcs: list[str] = []  # the functions holding long runs of statements
        self.out: list[str] = []
        self.ind = 0  # indentation inside the function being written
        self.depth = 0  # blocks open in it
        self.loops = 0  # `for` loops open in it

    # ---------------------------------------------------------- output

    def source(self) -> str:
        """The run function's source (the functions it calls are in `funcs`)."""
        body = self.body(self.tree.root or ListNode(0), "dot")
        return self.function(self.name, "dot", body)

    def function(self, name: str, dot: str, body: list[str]) -> str:
        """A module-level function running `body` (lines indented from 0)."""
        prologue = []
        text = "\n".join(body)
        if "V[" in text:
            prologue.append("V = st.vars")
        if "ap(" in text:
            prologue.append("ap = st.out.append")
        if "rec." in text:
            prologue.append("rec = st.rec")
        return "\n".join([f"def {name}(st, {dot}, S):", *("    " + line for line in prologue + body)]) + "\n"

    def w(self, line: str) -> None:
        self.out.append("    " * self.ind + line)

    def tmp(self) -> str:
        self.ntemps += 1
        return f"t{self.ntemps}"

    def site(self, spec: Spec) -> int:
        self.specs.append(spec)
        return len(self.specs) - 1

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

    def body(self, node: Node, dot: str) -> list[str]:
        """Lines (indented from 0) running the statements of `node`. Runs of more than
        _CHUNK lines go into functions of their own: Python compiles large functions in
        more than linear time. Statements with a break or continue of an enclosing loop stay."""
        children = node.nodes if node.kind == "list" else [node]  # type: ignore[attr-defined]
        saved = self.out, self.ind
        pieces: list[tuple[list[str], Node | None]] = []
        run: list[Any] = []  # text and printing actions in a row: one emit site
        for child in children:
            if not self.tracked and self.emits(child, run):
                continue
            if run:
                pieces.append(([self.emit(run, dot)], None))
                run = []
            self.out, self.ind = [], 0
            self.stmt(child, dot)
            if self.out:
                pieces.append((self.out, child))
        if run:
            pieces.append(([self.emit(run, dot)], None))
        self.out, self.ind = saved
        lines: list[str] = []
        if sum(len(p) for p, _ in pieces) <= _CHUNK:
            for piece, _ in pieces:
                lines.extend(piece)
            return lines or ["pass"]
        chunk: list[str] = []
        for piece, child in pieces:
            stays = child is not None and _loop_control(child)
            if stays or len(chunk) + len(piece) > _CHUNK:
                lines.extend(self.chunk(chunk, dot))
                chunk = []
            if stays:
                lines.extend(piece)
            else:
                chunk.extend(piece)
        lines.extend(self.chunk(chunk, dot))
        return lines

    def emits(self, node: Node, run: list[Any]) -> bool:
        """Adds a text, comment, printing action or template call to `run` (runtime.EmitCmd's
        items: texts, (copy, the pipeline's command sites) per action, ("t", position,
        name, its pipeline's command sites) per template call)."""
        kind = node.kind
        if kind == "text":
            if run and type(run[-1]) is str:
                run[-1] += node.text  # type: ignore[attr-defined]
            else:
                run.append(node.text)  # type: ignore[attr-defined]
            return True
        if kind == "comment":
            return True
        if kind not in ("action", "template"):
            return False
        pipe: PipeNode | None = node.pipe  # type: ignore[attr-defined]
        if pipe is not None and pipe.decl:
            return False
        sites = () if pipe is None else tuple([self.site(self.command(c, i > 0)) for i, c in enumerate(pipe.cmds)])
        if kind == "template":
            run.append(("t", node.pos, node.name, *sites))  # type: ignore[attr-defined]
        else:
            run.append((self._prints_copy(pipe), *sites))  # type: ignore[arg-type]
        return True

    def emit(self, run: list[Any], dot: str) -> str:
        """The line writing a run of texts and actions: text alone is one append."""
        if len(run) == 1 and type(run[0]) is str:
            return f"ap({run[0]!r})"
        return f"S[{self.site(('emit', tuple(run)))}].run(st, {dot}, None)"

    def chunk(self, lines: list[str], dot: str) -> list[str]:
        """`lines` as a call of a new nested function (inline when short)."""
        if len(lines) <= 2:
            return lines
        name = f"{self.name}_{len(self.funcs)}"
        self.funcs.append(self.function(name, dot, lines))
        return [f"{name}(st, {dot}, S)"]

    def block(self, node: ListNode, dot: str) -> None:
        """A branch's statements; what it declares is not visible after it (Go pops
        them at run time: an else branch using them finds them undefined)."""
        mark = len(self.scope)
        deep = self.depth >= _MAX_DEPTH and not _loop_control(node)
        saved = self.depth, self.loops
        if deep:  # into a function of its own: Python limits nesting
            self.depth, self.loops = 0, 0
        self.depth += 1
        lines = self.body(node, dot)
        if deep:
            lines = self.chunk(lines, dot) if len(lines) > 2 else lines
        self.depth, self.loops = saved
        self.out.extend("    " * (self.ind + 1) + line for line in lines)
        del self.scope[mark:]

    def stmt(self, node: Node, dot: str) -> None:
        kind = node.kind
        if kind == "text":
            self.w(f"ap({node.text!r})")  # type: ignore[attr-defined]
            if self.tracked:
                self.w(f"rec.marks.append(mark(st, T, {self.line(node, True)}, True))")
        elif kind == "action":
            self.action(node, dot)
        elif kind == "if":
            self.s_if(node, dot)
        elif kind == "with":
            self.s_with(node, dot)
        elif kind == "range":
            self.s_range(node, dot)  # type: ignore[arg-type]
        elif kind == "template":
            self.s_template(node, dot)  # type: ignore[arg-type]
        elif kind in ("break", "continue"):
            # a range's else list may hold them: outside any loop of this function
            self.w(kind if self.loops else f"raise {kind.upper()}")
        elif kind == "list":
            for n in node.nodes:  # type: ignore[attr-defined]
                self.stmt(n, dot)
        # comments write nothing

    def line(self, node: Node, verbatim: bool) -> int:
        """The line a Mark names: a text node's first line, else the action's."""
        if verbatim:
            return line_of(self.tree.text, node.pos)
        return node.line  # type: ignore[attr-defined, no-any-return]

    def action(self, node: Node, dot: str) -> None:
        pipe: PipeNode = node.pipe  # type: ignore[attr-defined]
        v = self.pipe(pipe, dot)
        if pipe.decl:
            return  # declarations print nothing
        show = "show_copy" if self._prints_copy(pipe) else "show"
        self.w(f"ap({show}({v}))")
        if self.tracked:
            self.w(f"action_mark(st, T, {self.line(node, False)})")

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
        v = self.value(self.pipe(node.pipe, dot))
        self.w(f"if truth({v}):")
        self.block(node.list, v)
        if node.else_list is not None:
            self.w("else:")
            self.block(node.else_list, dot)
        self.dot_boxed = saved
        del self.scope[mark:]

    def s_range(self, node: RangeNode, dot: str) -> None:
        mark = len(self.scope)
        v = self.pipe(node.pipe, dot)
        slots = [self.resolve(var.ident[0]) for var in node.pipe.decl]
        if slots and slots[-1] is not None:
            self.boxed_slots.add(slots[-1])
        at = where(last_evaluated(node.pipe))  # Go's state still points into the pipeline
        pairs, index, elem = self.tmp(), self.tmp(), self.tmp()
        self.w(f"{pairs} = range_pairs(st, T, {at[0]}, {at[1]!r}, {v}, {len(slots) > 1})")
        self.w(f"if {pairs} is not None:")
        self.w(f"    for {index}, {elem} in {pairs}:")
        self.w(f"        if {elem} is None: {elem} = NIL")  # an element of []interface {} is boxed
        if slots:
            self.w(f"        V[{slots[-1]}] = {elem}")
        if len(slots) > 1:
            self.w(f"        V[{slots[0]}] = {index}")
        saved, self.dot_boxed = self.dot_boxed, True
        self.ind += 1
        self.loops += 1
        self.depth += 1
        self.block(node.list, elem)
        self.depth -= 1
        self.loops -= 1
        self.ind -= 1
        self.dot_boxed = saved
        if node.else_list is not None:
            self.w("else:")
            self.block(node.else_list, dot)
        del self.scope[mark:]

    def s_template(self, node: TemplateNode, dot: str) -> None:
        target = self.tmp()
        self.w(f"{target} = template_target(st, T, {node.pos}, {node.name!r})")
        v = self.pipe(node.pipe, dot) if node.pipe is not None else "None"
        if self.tracked:
            self.w(f"run_template_tracked(st, T, {node.pos}, {target}, {v}, {node.line})")
        else:
            self.w(f"run_template(st, T, {node.pos}, {target}, {v})")

    # ------------------------------------------------------- pipelines

    def value(self, expr: str) -> str:
        """`expr` in a local (it is used more than once)."""
        if expr.isidentifier():
            return expr
        t = self.tmp()
        self.w(f"{t} = {expr}")
        return t

    def pipe(self, pipe: PipeNode, dot: str) -> str:
        """A pipeline: returns an expression of its value (its commands nested in
        one expression, which Python evaluates innermost first)."""
        v = "MISSING"
        for i, cmd in enumerate(pipe.cmds):
            k = self.site(self.command(cmd, i > 0))
            v = f"S[{k}].run(st, {dot}, {v})"
            if i % _NEST == _NEST - 1:  # Python's parser limits nested parentheses
                v = self.value(v)
        if v == "MISSING":
            v = "None"
        slots, undefined = self.declared(pipe)
        if undefined is not None:
            v = self.value(v)
            self.w(f"fail_at(st, T, {undefined[0][0]}, {undefined[0][1]!r}, {undefined[1]!r})")
        if slots:
            self.w("".join(f"V[{slot}] = " for slot in slots) + v)
            return f"V[{slots[-1]}]"
        return v

    def declared(self, pipe: PipeNode) -> tuple[list[int], tuple[tuple[int, str], str] | None]:
        """Slots the pipeline writes (declared after its commands: they see old bindings),
        and the error for an assignment to an unknown variable, which fails at run time."""
        slots, undefined = [], None
        for var in pipe.decl:
            name = var.ident[0]
            slot = self.resolve(name) if pipe.is_assign else None
            if slot is None:
                if pipe.is_assign and undefined is None:
                    undefined = (where(last_evaluated(pipe)), f"undefined variable: {name}")
                slot = self.declare(name)
            slots.append(slot)
        return slots, undefined

    def pipe_spec(self, pipe: PipeNode) -> Spec:
        """A pipeline in argument position, as data (runtime.PipeEval)."""
        cmds = tuple([self.site(self.command(cmd, i > 0)) for i, cmd in enumerate(pipe.cmds)])
        slots, undefined = self.declared(pipe)
        return (cmds, tuple(slots), undefined)

    def command(self, cmd: CommandNode, has_final: bool) -> Spec:
        """One command's site (runtime.py builds it); `has_final`: a previous command's value follows."""
        first, rest = cmd.args[0], cmd.args[1:]
        kind = first.kind
        at = (first.pos, kind)  # where(first), inline: the generator calls this most
        extra = bool(rest) or has_final
        if kind == "field":
            return ("chain", ("dot",), tuple(first.ident), at, at, self.dot_boxed, self.args(rest))  # type: ignore[attr-defined]
        if kind == "chain":
            recv = first.node  # type: ignore[attr-defined]
            if recv.kind == "nil":
                return ("fail", at, f"indirection through explicit nil in {first}", False)
            if recv.kind in _LITERALS:  # literals can't carry fields; the parser rejects most
                return ("fail", at, f"can't evaluate field {first.field[0]} in type {recv}", False)  # type: ignore[attr-defined]
            # Go's state still points at the last node evaluated for the receiver.
            recv_spec = ("arg", self.arg(recv)[1])
            return ("chain", recv_spec, tuple(first.field), at, where(last_evaluated(recv)), False, self.args(rest))  # type: ignore[attr-defined]
        if kind == "identifier":
            call_at = at if isinstance(cmd, _OneWord) else where(cmd)
            return ("call", first.ident, call_at, at, self.args(rest))  # type: ignore[attr-defined]
        if kind == "variable":
            ident = first.ident  # type: ignore[attr-defined]
            slot = self.resolve(ident[0])
            if len(ident) > 1:
                recv_spec = ("var", slot, at, ident[0])
                return ("chain", recv_spec, tuple(ident[1:]), at, at, slot in self.boxed_slots, self.args(rest))
            return ("var", slot, at, ident[0], extra)
        if kind == "pipe":
            return ("pipe", at, extra, self.pipe_spec(first))  # type: ignore[arg-type]
        if kind == "dot":
            return ("dot", at, extra)
        if kind in ("bool", "string"):
            return ("const", first.value if kind == "bool" else first.text, at, extra)  # type: ignore[attr-defined]
        if kind == "number":
            try:
                return ("const", ideal_constant(first), at, extra)  # type: ignore[arg-type]
            except ArgError as err:
                return ("fail", at, err.reason, extra)
        reason = "nil is not a command" if kind == "nil" else f"can't evaluate command {quote(str(first))}"
        return ("fail", at, reason, extra)

    # ------------------------------------------------------- arguments

    def args(self, nodes: list[Node]) -> tuple[Spec, ...]:
        return tuple(map(self.arg, nodes)) if nodes else ()

    def arg(self, node: Node) -> tuple[Spec, Spec | None]:
        """(what the call site keeps of the node, how to evaluate it; None for literals).

        The site keeps a literal's fields (it converts literals per parameter type),
        else where the argument's evaluation ends (errors after it point there), its
        kind and its whole text."""
        kind = node.kind
        if kind == "string":
            return ("s", node.pos, node.quoted, node.text), None  # type: ignore[attr-defined]
        if kind == "bool":
            return ("b", node.pos, node.value), None  # type: ignore[attr-defined]
        if kind == "nil":
            return ("n", node.pos), None
        if kind == "number":
            n: Any = node
            fields = (n.text, n.is_int, n.is_uint, n.is_float, n.is_complex, n.int64, n.uint64, n.float64, n.complex128)
            return ("#", n.pos, *fields), None
        end = last_evaluated(node)
        return ("w", end.pos, end.kind, kind, node.pos), self.evaluation(node)

    def evaluation(self, node: Node) -> Spec:
        """evalArg's evaluation of a non-literal argument (before validateType)."""
        kind = node.kind
        if kind == "dot":
            return ("dot",)
        if kind == "pipe":
            return ("pipe", self.pipe_spec(node))  # type: ignore[arg-type]
        if kind == "field":
            return ("site", self.site(("chain", ("dot",), tuple(node.ident), where(node), where(node), self.dot_boxed, ())))  # type: ignore[attr-defined]
        if kind == "variable" and len(node.ident) == 1:  # type: ignore[attr-defined]
            return ("var", self.resolve(node.ident[0]), where(node), node.ident[0])  # type: ignore[attr-defined]
        if kind in ("variable", "identifier", "chain"):
            return ("site", self.site(self.command(_one_word(node), False)))
        return ("bad", where(node), f"can't handle {node} for arg of type interface {{}}")


class _OneWord(CommandNode):
    """evalArg runs a variable, function or chain argument as a one-word command;
    errors name the argument itself."""

    __slots__ = ()


def _one_word(node: Node) -> CommandNode:
    cmd = _OneWord(node.pos)
    cmd.args = [node]
    return cmd


def _loop_control(node: Node) -> bool:
    """Whether `node` holds a break or continue of a range around it."""
    kind = node.kind
    if kind in ("break", "continue"):
        return True
    if kind == "list":
        return any(_loop_control(n) for n in node.nodes)  # type: ignore[attr-defined]
    if kind in ("if", "with", "range"):
        else_list = node.else_list  # type: ignore[attr-defined]
        if else_list is not None and _loop_control(else_list):
            return True
        return kind != "range" and _loop_control(node.list)  # type: ignore[attr-defined]
    return False
