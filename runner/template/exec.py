"""Tracked execution (runner.template.positions), compiled once into Python closures.

Ordinary executions run generated code (runner.template.compiler); an
execution that records where each output piece came from runs this closure
compiler's form of the tree instead: nested closures `run(state, dot)`
(statements, which append to `state.out` and record a Mark per piece) and
`ev(state, dot[, final])` (pipelines and commands, which return values).
Variables get frame slots at compile time (Go's variable stack is lexical in
effect); field chains on dicts take a fast path; functions are looked up by
name per call with argument plans cached per call site. Behaviour and error
texts follow Go's text/template exec.go, as the generated code's do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runner.funcs.registry import GoFunc
from runner.gcpause import no_gc
from runner.template import positions
from runner.template.calls import ArgError, ideal_constant
from runner.template.gotypes import print_copied_value, print_value
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
from runner.template.positions import Mark, Recorder, SourceMap, line_of
from runner.template.sites import _Site
from runner.template.state import (
    _BREAK,
    _CONTINUE,
    MAX_EXEC_DEPTH,
    MISSINGKEY_INVALID,
    MISSINGKEY_MODES,
    Cmd,
    Eval,
    Run,
    State,
    _Break,
    _Continue,
    fail,
)
from runner.template.values import MISSING, NIL, truth


class Compiled:
    __slots__ = ("run", "nslots")

    def __init__(self, run: Run, nslots: int) -> None:
        self.run = run
        self.nslots = nslots


def compiled_tracked(tree: Tree) -> Compiled:
    """The tracked form of `tree` (positions recorded), compiled on first use."""
    comp = _TRACKED.get(tree)
    if comp is None:
        if len(_TRACKED) >= 8192:  # trees of past renders; the parse cache is as large
            _TRACKED.clear()
        with no_gc():
            comp = _TRACKED[tree] = _Compiler(tree).compile()
    return comp


_TRACKED: dict[Tree, Compiled] = {}  # by identity (Tree defines no __eq__)


def execute_tree_tracked(
    tree: Tree,
    trees: dict[str, Tree],
    data: Any,
    funcs: dict[str, GoFunc],
    missingkey: int = MISSINGKEY_INVALID,
) -> tuple[str, SourceMap]:
    """execute_tree recording where each output piece came from (runner.template.positions)."""
    comp = compiled_tracked(tree)
    frame = [data] + [None] * (comp.nslots - 1)
    st = State([], frame, tree.name, 0, trees, funcs, missingkey)
    rec = st.rec = Recorder()
    tracking = positions.TRACKING
    saved, tracking.rec = tracking.rec, rec  # include/tpl run meanwhile are tracked too
    try:  # noqa: SIM105
        comp.run(st, data)
    except (_Break, _Continue):  # unreachable: the parser confines them to range
        pass
    finally:
        tracking.rec = saved
    smap = SourceMap.build(st.out, rec, tree.name)
    return smap.text, smap


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
        self.result: Compiled | None = None  # its nslots grows as deferred branches compile

    def compile(self) -> Compiled:
        run = self.stmt(self.tree.root or ListNode(0))
        self.result = Compiled(run, self.nslots)
        return self.result

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

    def mark(self, node: Node, verbatim: bool) -> Mark:
        tree = self.tree
        line = line_of(tree.text, node.pos) if verbatim else node.line  # type: ignore[attr-defined]
        return Mark(tree.name, tree.parse_name, line, verbatim)

    def s_text(self, node: Node) -> Run:
        return _tracked_text(node.text, self.mark(node, True))  # type: ignore[attr-defined]

    def s_comment(self, node: Node) -> Run:
        return lambda st, dot: None

    def s_action(self, node: Node) -> Run:
        pipe: PipeNode = node.pipe  # type: ignore[attr-defined]
        ev = self.pipe(pipe)
        if pipe.decl:
            return ev  # declarations print nothing
        show = print_copied_value if self._prints_copy(pipe) else print_value
        return _tracked_action(ev, self.mark(node, False), show)

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

    def _branch(self, node: Any) -> tuple[Eval, Run, Run | None]:
        mark = len(self.scope)
        ev = self.pipe(node.pipe)
        body = self.deferred(node.list)
        other = self.deferred(node.else_list) if node.else_list is not None else None
        del self.scope[mark:]
        return ev, body, other

    def deferred(self, node: ListNode) -> Run:
        """`node` compiled on its first run (most branches of a chart's templates never
        run), with the scope of this point. Its variables get new slots then; a frame
        made before that (an execution already under way) is lengthened in place."""
        if all(n.kind == "text" for n in node.nodes):
            return self.stmt(node)
        scope, dot_boxed = list(self.scope), self.dot_boxed
        compiled_run: list[Run] = []

        def run(st: State, dot: Any) -> None:
            if not compiled_run:
                compiled_run.append(self._compile_at(node, scope, dot_boxed))
            frame, size = st.vars, self.nslots
            if len(frame) < size:
                frame.extend([None] * (size - len(frame)))
            compiled_run[0](st, dot)

        return run

    def _compile_at(self, node: ListNode, scope: list[tuple[str, int]], dot_boxed: bool) -> Run:
        saved = self.scope, self.dot_boxed
        self.scope, self.dot_boxed = list(scope), dot_boxed
        try:
            with no_gc():
                return self.stmt(node)
        finally:
            self.scope, self.dot_boxed = saved
            if self.result is not None:  # frames made from now on have every slot
                self.result.nslots = self.nslots

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
        ev = self.pipe(node.pipe) if node.pipe is not None else None
        return _tracked_template(self.tree, node, ev, self.mark(node, False))

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


# ---------------------------------------------------------------- tracked forms


def _tracked_text(text: str, mark: Mark) -> Run:
    def run(st: State, dot: Any) -> None:
        st.out.append(text)
        st.rec.marks.append(mark)

    return run


def _tracked_action(ev: Eval, mark: Mark, show: Callable[[Any], str] = print_value) -> Run:
    """Prints as s_action; executions run meanwhile (include) stay with the piece."""

    def run(st: State, dot: Any) -> None:
        v = ev(st, dot)
        st.out.append(v if type(v) is str else show(v))
        rec = st.rec
        rec.marks.append(mark)
        if rec.subs:
            if rec.action_subs is None:
                rec.action_subs = {}
            rec.action_subs[len(rec.marks) - 1] = rec.subs
            rec.subs = None

    return run


def _tracked_template(tree: Tree, node: TemplateNode, ev: Eval | None, mark: Mark) -> Run:
    """s_template's run on tracked trees; calls in the executed tree remember their site."""
    name = node.name

    def run(st: State, dot: Any) -> None:
        target = st.trees.get(name)
        if target is None:
            fail(st, tree, node, f"template {go_quote(name)} not defined")
        if st.depth >= MAX_EXEC_DEPTH:
            fail(st, tree, node, f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
        d = ev(st, dot) if ev is not None else None
        comp = compiled_tracked(target)
        frame = [d] + [None] * (comp.nslots - 1)
        sub = State(st.out, frame, target.name, st.depth + 1, st.trees, st.funcs, st.missingkey)
        rec = sub.rec = st.rec
        first = len(rec.marks)
        try:
            comp.run(sub, d)
        except RecursionError:
            fail(st, tree, node, f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
        if st.depth == 0:
            if rec.calls is None:
                rec.calls = []
            rec.calls.append((first, len(rec.marks), mark))

    return run


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
    "MISSINGKEY_MODES",
    "Compiled",
    "State",
    "compiled_tracked",
    "execute_tree_tracked",
    "fail",
    "no_gc",
]
