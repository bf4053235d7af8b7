"""What generated template code (runner.template.compiler) runs on.

Each tree of a parsed file (the file and every `define` in it) gets a
`Define` holding its functions (source until first called, then code) and
call-site table, made into a run function on the tree's first execution
only. Across runs both are kept by cache.py (marshal): the package's
`store_pending`, called once a render is done, writes each file's entry
with the code of the functions that ran, so a warm run neither parses, nor
unpickles trees, nor generates or compiles what ran before; a tree loaded
that way parses its text again only if something asks for its nodes
(`.root`: a tracked execution, whose generated form is made on first use)
or an error must quote a node (`FileCode.node_text`).

The helpers below are the generated code's globals: call sites (`Sites`
builds `ChainCmd`, `CallCmd`, ..., `EmitCmd` from the table), field access
and missingkey, range iteration, `{{template}}` calls, tracked forms.
"""

from __future__ import annotations

import builtins
import marshal
from collections.abc import Iterable
from types import CodeType, FunctionType

from runner.golang.gofunc import FuncError
from runner.golang.strconv import quote
from runner.golang.types import HelmValues
from runner.template import positions
from runner.template.calls import ArgError
from runner.template.errors import ExecError
from runner.template.nodes import (
    BoolNode,
    NilNode,
    Node,
    NumberNode,
    StringNode,
    is_empty_tree,
    last_evaluated,
)
from runner.template.parse import ParseResult, Tree, parse_text
from runner.template.positions import Mark, Recorder, SourceMap
from runner.template.ranges import range_pairs
from runner.template.sites import _field, _missing_key, _Site
from runner.template.state import (
    _ABSENT,
    _BREAK,
    _CONTINUE,
    MAX_EXEC_DEPTH,
    State,
    _Break,
    _Continue,
    fail,
)
from runner.template.values import MISSING, NIL, print_copied_value, print_value, truth

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any, NoReturn

# ------------------------------------------------------------ compiled files


class FileCode:
    """What the trees of one parsed file share: its text, and the globals of its code."""

    __slots__ = ("parse_name", "text", "modes", "trees", "_globals", "entry")

    def __init__(self, parse_name: str, text: str, modes: tuple[bool, bool], trees: dict[str, Tree] | None) -> None:
        self.parse_name = parse_name
        self.text = text
        self.modes = modes  # break/continue as functions: how to parse the text again
        self.trees = trees  # the parse, when at hand (not loaded from the cache)
        self._globals: dict[str, Any] | None = None
        # For the cross-run cache: the entry's key, idents and trees (stored name, Define)
        self.entry: tuple[str, list[Any], list[tuple[str | None, Define]]] | None = None

    def changed(self) -> None:
        """Something was compiled: the file's cache entry is written again (store_pending)."""
        if self.entry is not None:
            _PENDING[self.entry[0]] = self

    def globals(self) -> dict[str, Any]:
        g = self._globals
        if g is None:
            g = self._globals = dict(_NAMESPACE)
            g["T"] = FileTree(self)
        return g

    def node_text(self, pos: int, kind: str) -> str:
        """The text of the node at `pos` of `kind` (what an error message quotes)."""
        trees = self.trees or _reparsed(self.parse_name, self.text, self.modes)
        for tree in trees.values():
            node = _find(tree.root, pos, kind)
            if node is not None:
                return str(node)
        return ""


class FileTree(Tree):
    """The tree errors of generated code are reported against (`T`): the file's name
    and text, for locations; and the file, to find a node's text again."""

    __slots__ = ("file",)

    def __init__(self, file: FileCode) -> None:
        super().__init__(file.parse_name, file.parse_name, file.text)
        self.file = file


def _find(root: Node | None, pos: int, kind: str) -> Node | None:
    stack = [root]
    while stack:
        node: Any = stack.pop()
        if node is None:
            continue
        if node.pos == pos and node.kind == kind:
            return node  # type: ignore[no-any-return]
        k = node.kind
        if k == "list":
            stack.extend(node.nodes)
        elif k == "action" or k == "template":
            stack.append(node.pipe)
        elif k == "pipe":
            stack.extend(node.decl)
            stack.extend(node.cmds)
        elif k == "command":
            stack.extend(node.args)
        elif k == "chain":
            stack.append(node.node)
        elif k in ("if", "with", "range"):
            stack.extend((node.pipe, node.list, node.else_list))
    return None


class Define:
    """One tree's generated code; `load()` makes its run function on first use."""

    __slots__ = ("code", "table", "file", "run", "sites", "nslots", "empty", "has_root")

    def __init__(self, code: list[CodeType | str] | bytes, table: tuple[Any, ...] | bytes, file: FileCode,
                 meta: tuple[Any, ...]) -> None:
        # run function first, then the functions it calls: each a source until compiled
        # (on its first call); marshalled when loaded from the cache
        self.code = code
        # its call sites (compiler.py): as generated, or marshalled (from the cache: unmarshalled
        # when the first is used)
        self.table = table
        self.file = file
        self.run: Any = None
        self.sites: Sites | None = None
        self.has_root, self.empty, self.nslots = meta  # empty: parse.IsEmptyTree

    def meta(self) -> tuple[Any, ...]:
        return (self.has_root, self.empty, self.nslots)

    def marshalled(self) -> bytes:
        return self.code if isinstance(self.code, bytes) else marshal.dumps(tuple(self.code))

    def marshalled_table(self) -> bytes:
        return self.table if isinstance(self.table, bytes) else marshal.dumps(self.table)

    def load(self) -> Any:
        code = self.code
        if isinstance(code, bytes):
            code = self.code = list(marshal.loads(code))
        g = self.file.globals()
        for i in range(1, len(code)):
            item = code[i]
            if isinstance(item, str):
                g[item[4 : item.index("(")]] = _Uncompiled(self, i)  # "def NAME(st, ..."
            else:
                g[item.co_name] = FunctionType(item, g)
        self.sites = Sites(g["T"], self.table)
        self.run = self.function(0)
        return self.run

    def function(self, i: int) -> Any:
        """Function i, compiled first if it is still source."""
        code: list[Any] = self.code  # type: ignore[assignment]  # loaded
        item = code[i]
        if isinstance(item, str):
            module = compile(item, "<template>", "exec")  # the same for every name: code is shared
            item = code[i] = next(c for c in module.co_consts if isinstance(c, CodeType))
            self.file.changed()
        return FunctionType(item, self.file.globals())


class _Uncompiled:
    """A generated function not called yet: compiled on its first call, which puts the
    function in its place."""

    __slots__ = ("define", "index")

    def __init__(self, define: Define, index: int) -> None:
        self.define = define
        self.index = index

    def __call__(self, st: State, dot: Any, sites: Sites) -> None:
        function = self.define.function(self.index)
        self.define.file.globals()[function.__name__] = function
        function(st, dot, sites)


_ROOT = Tree.root  # the base class's slot, behind CodeTree's property
_UNPARSED: Any = object()


class CodeTree(Tree):
    """A tree loaded as code: its nodes are parsed again from the text when asked for."""

    __slots__ = ("modes",)

    @property  # type: ignore[override]
    def root(self) -> Any:
        root = _ROOT.__get__(self, Tree)
        if root is _UNPARSED:
            root = _reparsed(self.parse_name, self.text, self.modes)[self.name].root
            _ROOT.__set__(self, root)
        return root

    @root.setter
    def root(self, value: Any) -> None:
        _ROOT.__set__(self, value)


_REPARSED: dict[tuple[str, str, tuple[bool, bool]], dict[str, Tree]] = {}


def _reparsed(name: str, text: str, modes: tuple[bool, bool]) -> dict[str, Tree]:
    key = (name, text, modes)
    trees = _REPARSED.get(key)
    if trees is None:
        if len(_REPARSED) >= 1024:
            _REPARSED.clear()
        trees = _REPARSED[key] = parse_text(name, text, break_is_func=modes[0], continue_is_func=modes[1]).trees
    return trees


def _compile(name: str, text: str, trees: list[Tree], tracked: bool, modes: tuple[bool, bool]) -> list[Define]:
    from runner.template import compiler  # a warm run loads code from the cache: no generating

    file = FileCode(name, text, modes, {t.name: t for t in trees})
    return [
        Define(gen.sources, gen.table, file, (tree.root is not None, is_empty_tree(tree.root), gen.nslots))
        for tree, gen in zip(trees, compiler.generate(trees, tracked), strict=True)
    ]


def compile_result(name: str, text: str, result: ParseResult, modes: tuple[bool, bool], key: str | None) -> None:
    """Generate the code of every tree of a fresh parse (attached as `tree.compiled`);
    with a cache `key`, the next store_pending writes its entry."""
    trees = list(result.trees.values())
    defines = _compile(name, text, trees, False, modes)
    for tree, define in zip(trees, defines, strict=True):
        tree.compiled = define
    if key is not None and defines:
        file = defines[0].file
        # The file's own tree is stored as None: the same text under another name
        # compiles to the same code.
        stored = [(None if t.name == name else t.name, d) for t, d in zip(trees, defines, strict=True)]
        file.entry = (key, list(result.idents), stored)
        file.changed()


def from_entry(name: str, text: str, modes: tuple[bool, bool], entry: tuple[Any, ...], key: str) -> ParseResult:
    """The ParseResult a cache entry stands for; trees' code is unmarshalled on first run."""
    idents, defines = entry
    file = FileCode(name, text, modes, None)
    trees: dict[str, Tree] = {}
    stored = []
    for stored_name, meta, code, table in defines:
        tree_name = name if stored_name is None else stored_name
        tree = CodeTree(tree_name, name, text)
        tree.modes = modes
        tree.compiled = define = Define(code, table, file, meta)
        tree.root = _UNPARSED if define.has_root else None
        trees[tree_name] = tree
        stored.append((stored_name, define))
    file.entry = (key, idents, stored)
    return ParseResult(trees, idents)


_PENDING: dict[str, FileCode] = {}  # by cache key: the files whose entries are to be written


def pending_entry(key: str) -> tuple[Any, ...] | None:
    """The entry not written yet under `key`, for from_entry: the same text parsed again
    (a library vendored twice) shares the first parse's functions, compiled or not."""
    file = _PENDING.get(key)
    if file is None:
        return None
    _, idents, defines = file.entry  # type: ignore[misc]
    return (idents, tuple((n, d.meta(), d.code, d.table) for n, d in defines))


def pending_entries(keys: Iterable[str] | None = None) -> dict[str, tuple[Any, ...]]:
    """The cache entries (by key) of every file parsed, or compiled further, since the last
    call (of those under `keys`, when given: another render's are left for its own pack):
    each tree's functions, as code once they ran."""
    if keys is None:
        files = list(_PENDING.values())
        _PENDING.clear()
    else:
        files = [file for file in (_PENDING.pop(key, None) for key in keys) if file is not None]
    entries = {}
    for file in files:
        key, idents, defines = file.entry  # type: ignore[misc]
        entries[key] = (idents, tuple((n, d.meta(), d.marshalled(), d.marshalled_table()) for n, d in defines))
    return entries


def entry_key_of(result: ParseResult) -> str | None:
    """The cross-run cache key a parse was stored or found under (None: not cached)."""
    for tree in result.trees.values():
        define = tree.compiled
        entry = define.file.entry if define is not None else None
        return entry[0] if entry is not None else None
    return None


def define_of(tree: Tree) -> Define:
    """The tree's code; trees built elsewhere (not by parse_cached) are compiled here."""
    d = tree.compiled
    if d is None:
        d = tree.compiled = _compile(tree.parse_name, tree.text, [tree], False, _modes(tree))[0]
    return d  # type: ignore[return-value]


def tracked_define(tree: Tree) -> Define:
    """The tracked form of `tree`'s code (positions recorded), compiled on first use."""
    d = _TRACKED.get(tree)
    if d is None:
        if len(_TRACKED) >= 8192:  # trees of past renders; the parse cache is as large
            _TRACKED.clear()
        d = _TRACKED[tree] = _compile(tree.parse_name, tree.text, [tree], True, _modes(tree))[0]
    return d


_TRACKED: dict[Tree, Define] = {}  # by identity (Tree defines no __eq__)


def _modes(tree: Tree) -> tuple[bool, bool]:
    """How the tree's file was parsed (break/continue as functions): a tree's own file
    keeps its nodes, so this only matters to trees loaded from the cache."""
    d = tree.compiled
    return d.file.modes if isinstance(d, Define) else (False, False)


def execute_tree_tracked(
    tree: Tree, trees: dict[str, Tree], data: Any, funcs: dict[str, Any], missingkey: int
) -> tuple[str, SourceMap]:
    """execute_tree recording where each output piece came from (runner.template.positions),
    through the tracked form of the trees' code."""
    d = tracked_define(tree)
    run = d.run or d.load()
    st = State([], [data] + [None] * (d.nslots - 1), tree.name, 0, trees, funcs, missingkey)
    rec = st.rec = Recorder()
    tracking = positions.TRACKING
    saved, tracking.rec = tracking.rec, rec  # include/tpl run meanwhile are tracked too
    try:  # noqa: SIM105
        run(st, data, d.sites)
    except (_Break, _Continue):  # a range's else list, outside any loop: ends the execution
        pass
    finally:
        tracking.rec = saved
    smap = SourceMap.build(st.out, rec, tree.name)
    return smap.text, smap


def execute_tree(tree: Tree, trees: dict[str, Tree], data: Any, funcs: dict[str, Any], missingkey: int) -> str:
    """Run `tree` with dot = `data`; returns the output text or raises ExecError."""
    d = define_of(tree)
    run = d.run or d.load()
    st = State([], [data] + [None] * (d.nslots - 1), tree.name, 0, trees, funcs, missingkey)
    try:  # noqa: SIM105
        run(st, data, d.sites)
    except (_Break, _Continue):  # a range's else list, outside any loop: ends the execution
        pass
    return "".join(st.out)


# -------------------------------------------------------------- call sites


class Where(Node):
    """A node as generated code knows it: its position and kind; its text (errors
    only) is found again in the file. A call site's argument also has its own kind
    and where it starts (the `call` builtin names the whole argument)."""

    __slots__ = ("lookup", "file", "kind", "start", "_text")

    def __init__(self, pos: int, lookup: str, file: FileCode, kind: str = "", start: int = -1) -> None:
        self.pos = pos  # as every node does (nodes.Node): no super().__init__ call
        self.lookup = lookup
        self.file = file
        self.kind = kind or lookup  # type: ignore[misc]
        self.start = start
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            self._text = self.file.node_text(self.pos, self.lookup)
        return self._text

    @property
    def whole(self) -> str:
        return self.file.node_text(self.start, self.kind) if self.start >= 0 else str(self)


def fail_at(st: State, tree: FileTree, pos: int, kind: str, reason: str) -> NoReturn:
    fail(st, tree, Where(pos, kind, tree.file), reason)


class Sites(dict):  # type: ignore[type-arg]
    """One tree's call sites by number, `S[k]` in its generated code: each is built from
    its entry of the generated table on its first use (the table is unmarshalled whole
    then: about what unmarshalling only the entries a run uses, one by one, cost, and the
    generator marshals one table instead of one entry per site)."""

    __slots__ = ("tree", "table", "specs")

    def __init__(self, tree: FileTree, table: tuple[Any, ...] | bytes) -> None:
        super().__init__()
        self.tree = tree
        self.table = table
        self.specs: tuple[tuple[Any, ...], ...] | None = table if isinstance(table, tuple) else None

    def __missing__(self, k: int) -> Any:
        specs = self.specs
        if specs is None:
            specs = self.specs = marshal.loads(self.table)  # type: ignore[arg-type]  # bytes when None
        spec = specs[k]
        site = self[k] = _BUILDERS[spec[0]](self, spec)
        return site

    def evaluator(self, spec: tuple[Any, ...]) -> Any:
        """An argument's evaluator `(st, dot) -> raw value` from its evaluation spec."""
        kind = spec[0]
        if kind == "dot":
            return dot_arg
        if kind == "site":
            return self[spec[1]].arg
        if kind == "var":
            return _var_reader(self.tree, spec[1], spec[2], spec[3])
        if kind == "pipe":
            return PipeEval(self, spec[1]).eval
        tree, at, reason = self.tree, spec[1], spec[2]

        def bad(st: State, dot: Any) -> Any:
            fail_at(st, tree, at[0], at[1], reason)

        return bad

    def call_site(self, name: str, call: tuple[int, str], head: tuple[int, str], args: tuple[Any, ...]) -> _Site:
        tree = self.tree
        file = tree.file
        nodes = [_arg_node(node, file) for node, _ in args]
        evals = [None if ev is None else self.evaluator(ev) for _, ev in args]
        return _Site(tree, name, Where(call[0], call[1], file), Where(head[0], head[1], file), nodes, evals)


def _arg_node(spec: tuple[Any, ...], file: FileCode) -> Node:
    kind, pos = spec[0], spec[1]
    if kind == "w":
        return Where(pos, spec[2], file, spec[3], spec[4])
    if kind == "s":
        return StringNode(pos, spec[2], spec[3])
    if kind == "b":
        return BoolNode(pos, spec[2])
    if kind == "n":
        return NilNode(pos)
    n = NumberNode(pos, spec[2])
    n.is_int, n.is_uint, n.is_float, n.is_complex, n.int64, n.uint64, n.float64, n.complex128 = spec[3:]
    return n


def dot_arg(st: State, dot: Any) -> Any:
    return dot


def _var_reader(tree: FileTree, slot: int | None, at: tuple[int, str], name: str) -> Any:
    if slot is None:  # `$x := $x` with no earlier $x: Go fails when it runs

        def undefined(st: State, dot: Any) -> Any:
            fail_at(st, tree, at[0], at[1], f"undefined variable: {name}")

        return undefined
    return lambda st, dot: st.vars[slot]


def _not_function(st: State, tree: FileTree, at: tuple[int, str]) -> NoReturn:
    text = tree.file.node_text(*at)
    fail_at(st, tree, at[0], at[1], f"can't give argument to non-function {text}")


class PipeEval:
    """A pipeline in argument position: its commands, then its declarations."""

    __slots__ = ("tree", "cmds", "slots", "undefined")

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        self.tree = sites.tree
        self.cmds = [sites[k] for k in spec[0]]
        self.slots, self.undefined = spec[1], spec[2]

    def eval(self, st: State, dot: Any) -> Any:
        v = MISSING
        for cmd in self.cmds:
            v = cmd.run(st, dot, v)
        if v is MISSING:
            v = None
        if self.undefined is not None:
            (pos, kind), reason = self.undefined
            fail_at(st, self.tree, pos, kind, reason)
        frame = st.vars
        for slot in self.slots:
            frame[slot] = v
        return v


class Command:
    """A command's site: `run` gives the value as the pipeline sees it (a boxed nil
    unwrapped), `arg` the raw value evalArg sees (no value from a previous command)."""

    __slots__ = ()

    def cmd(self, st: State, dot: Any, final: Any) -> Any:
        raise NotImplementedError

    def run(self, st: State, dot: Any, final: Any) -> Any:
        v = self.cmd(st, dot, final)
        return None if v is NIL else v

    def arg(self, st: State, dot: Any) -> Any:
        return self.cmd(st, dot, MISSING)


class ChainCmd(Command):
    """evalFieldChain: every name but the last without arguments; the last may be a method call."""

    __slots__ = ("sites", "recv", "head", "last", "call_at", "node", "boxed0", "mids", "site", "args")

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        _, recv, names, call_at, err_at, boxed0, args = spec
        self.sites = sites
        kind = recv[0]
        if kind == "dot":
            self.recv = None
        elif kind == "var":
            self.recv = _var_reader(sites.tree, recv[1], recv[2], recv[3])
        else:
            self.recv = sites.evaluator(recv[1])
        self.head, self.last = names[:-1], names[-1]
        self.call_at = call_at
        self.node = Where(*err_at, sites.tree.file)  # field errors; the call site blames call_at
        self.boxed0 = boxed0
        self.mids: dict[str, _Site] = {}  # sites of the names before the last, by name
        self.site: _Site | None = None
        self.args = args

    def _mid(self, name: str) -> _Site:
        site = self.mids.get(name)
        if site is None:
            site = self.mids[name] = _Site(self.sites.tree, name, Where(*self.call_at, self.sites.tree.file), self.node, [], [])
        return site

    def _last(self) -> _Site:
        site = self.site
        if site is None:
            sites = self.sites
            site = self.site = sites.call_site(self.last, self.call_at, (self.node.pos, self.node.lookup), self.args)
        return site

    def cmd(self, st: State, dot: Any, final: Any) -> Any:
        recv = self.recv
        r = dot if recv is None else recv(st, dot)
        boxed = self.boxed0
        for name in self.head:
            if type(r) is dict or type(r) is HelmValues:  # `.Values.x`: the scope is common.Values
                v = r.get(name, _ABSENT)
                r = _missing_key(st, self.sites.tree, self.node, name, r) if v is _ABSENT else NIL if v is None else v
                boxed = True
            else:
                r = _field(st, self.sites.tree, self.node, r, name, self._mid(name), MISSING, dot, boxed)
                boxed = False
        last = self.last
        if type(r) is dict or type(r) is HelmValues:
            if self.args or final is not MISSING:
                fail(st, self.sites.tree, self.node, f"{last} is not a method but has arguments")
            v = r.get(last, _ABSENT)
            if v is _ABSENT:
                return _missing_key(st, self.sites.tree, self.node, last, r)
            return NIL if v is None else v
        return _field(st, self.sites.tree, self.node, r, last, self._last(), final, dot, boxed)


class CallCmd(Command):
    """evalFunction + evalCall: the function looked up by name per call, its plan per site."""

    __slots__ = ("site",)

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        _, name, call_at, head_at, args = spec
        self.site = sites.call_site(name, call_at, head_at, args)

    def cmd(self, st: State, dot: Any, final: Any) -> Any:
        return call_function(st, dot, self.site, final)


class VarCmd(Command):
    __slots__ = ("tree", "read", "at", "extra")

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        _, slot, at, name, self.extra = spec
        self.tree, self.at = sites.tree, at
        self.read = _var_reader(sites.tree, slot, at, name)

    def cmd(self, st: State, dot: Any, final: Any) -> Any:
        if self.extra:
            _not_function(st, self.tree, self.at)
        return self.read(st, dot)


class PipeCmd(Command):
    """A parenthesized pipeline as a command."""

    __slots__ = ("tree", "at", "extra", "pipe")

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        _, self.at, self.extra, pipe = spec
        self.tree = sites.tree
        self.pipe = PipeEval(sites, pipe)

    def cmd(self, st: State, dot: Any, final: Any) -> Any:
        if self.extra:
            _not_function(st, self.tree, self.at)
        return self.pipe.eval(st, dot)


class DotCmd(Command):
    __slots__ = ("tree", "at", "extra")

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        _, self.at, self.extra = spec
        self.tree = sites.tree

    def cmd(self, st: State, dot: Any, final: Any) -> Any:
        if self.extra:
            _not_function(st, self.tree, self.at)
        return dot


class ConstCmd(Command):
    """Literal first words (true, "s", 1): values that take no arguments."""

    __slots__ = ("tree", "value", "at", "extra")

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        _, self.value, self.at, self.extra = spec
        self.tree = sites.tree

    def cmd(self, st: State, dot: Any, final: Any) -> Any:
        if self.extra:
            _not_function(st, self.tree, self.at)
        return self.value


class FailCmd(Command):
    """A command that can only fail (nil, a malformed number, a field of a literal)."""

    __slots__ = ("tree", "at", "reason", "extra")

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        _, self.at, self.reason, self.extra = spec
        self.tree = sites.tree

    def cmd(self, st: State, dot: Any, final: Any) -> Any:
        if self.extra:
            _not_function(st, self.tree, self.at)
        fail_at(st, self.tree, self.at[0], self.at[1], self.reason)


class EmitCmd:
    """Texts and printing actions in a row (compiler.py), written in one call: a chart's
    templates are mostly such runs, and as data they cost compile() nothing."""

    __slots__ = ("items",)

    def __init__(self, sites: Sites, spec: tuple[Any, ...]) -> None:
        items: list[Any] = []
        for item in spec[1]:
            if type(item) is str:
                items.append(item)
            elif item[0] == "t":
                items.append(_TemplateCall(sites, item))
            else:
                copy, first, *rest = item
                items.append((show_copy if copy else show, sites[first], tuple(sites[k] for k in rest)))
        self.items = items

    def run(self, st: State, dot: Any, final: Any) -> None:
        ap = st.out.append
        for item in self.items:
            kind = type(item)
            if kind is str:
                ap(item)
            elif kind is tuple:
                write, cmd, rest = item
                v = cmd.run(st, dot, MISSING)
                for c in rest:
                    v = c.run(st, dot, v)
                ap(write(v))
            else:
                item.run(st, dot)


class _TemplateCall:
    """{{template "name" pipeline}} among an EmitCmd's items."""

    __slots__ = ("tree", "pos", "name", "cmds")

    def __init__(self, sites: Sites, item: tuple[Any, ...]) -> None:
        _, self.pos, self.name, *ks = item
        self.tree = sites.tree
        self.cmds = [sites[k] for k in ks]

    def run(self, st: State, dot: Any) -> None:
        target = template_target(st, self.tree, self.pos, self.name)
        v = MISSING
        for cmd in self.cmds:
            v = cmd.run(st, dot, v)
        run_template(st, self.tree, self.pos, target, None if v is MISSING else v)


_BUILDERS: dict[str, Any] = {
    "chain": ChainCmd,
    "call": CallCmd,
    "var": VarCmd,
    "pipe": PipeCmd,
    "dot": DotCmd,
    "const": ConstCmd,
    "fail": FailCmd,
    "emit": EmitCmd,
}


def call_function(st: State, dot: Any, site: _Site, final: Any) -> Any:
    """evalCall of a function-map function; `and`, `or` and `call` through the site."""
    name, tree = site.name, site.tree
    gf = st.funcs.get(name)
    if gf is None:
        fail(st, tree, site.head_node, f"{quote(name)} is not a defined function")
    b = site.bound
    if b is None or b.key is not gf:
        b = site.bind_function(gf)
    if b.kind is not None:
        return site.call_function(st, dot, b, final)
    plan = b.plan
    if final is MISSING:
        if b.err0 is not None:
            fail(st, tree, site.head_node, b.err0)
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
            fail(st, tree, site.head_node, b.err1)
        argv = [conv(st, dot) for conv in plan]
        try:
            argv.append(b.final_check(final))
        except ArgError as err:
            fail(st, tree, last_evaluated(site.args[-1]) if site.args else site.head_node, err.reason)
    try:
        v = b.impl(*argv)
    except (FuncError, ExecError) as err:
        fail(st, tree, site.call_node, f"error calling {name}: {err}")
    return NIL if v is None else v


# -------------------------------------------------------------- statements


def show(v: Any) -> str:
    """What `{{ v }}` writes (values.print_value), strings at once."""
    return v if type(v) is str else print_value(v)


def show_copy(v: Any) -> str:
    return v if type(v) is str else print_copied_value(v)


def range_over(st: State, tree: FileTree, pos: int, kind: str, val: Any, two_vars: bool) -> Iterable[Any] | None:
    """(index, element) pairs of a range, None when there is nothing to iterate."""
    return range_pairs(st, tree, Where(pos, kind, tree.file), val, two_vars)


def template_target(st: State, tree: FileTree, pos: int, name: str) -> Tree:
    """walkTemplate's checks, made before its pipeline runs."""
    target = st.trees.get(name)
    if target is None:
        fail_at(st, tree, pos, "template", f"template {quote(name)} not defined")
    if st.depth >= MAX_EXEC_DEPTH:
        fail_at(st, tree, pos, "template", f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
    return target


def run_template(st: State, tree: FileTree, pos: int, target: Tree, dot: Any) -> None:
    d = define_of(target)
    run = d.run or d.load()
    frame = [dot] + [None] * (d.nslots - 1)
    sub = State(st.out, frame, target.name, st.depth + 1, st.trees, st.funcs, st.missingkey)
    try:
        run(sub, dot, d.sites)
    except RecursionError:
        fail_at(st, tree, pos, "template", f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")


# ------------------------------------------------------------ tracked forms


def mark(st: State, tree: FileTree, line: int, verbatim: bool) -> Mark:
    return Mark(st.name, tree.parse_name, line, verbatim)


def action_mark(st: State, tree: FileTree, line: int) -> None:
    """The mark of an action's printed value; executions run meanwhile (include) stay with it."""
    rec = st.rec
    rec.marks.append(mark(st, tree, line, False))
    if rec.subs:
        if rec.action_subs is None:
            rec.action_subs = {}
        rec.action_subs[len(rec.marks) - 1] = rec.subs
        rec.subs = None


def run_template_tracked(st: State, tree: FileTree, pos: int, target: Tree, dot: Any, line: int) -> None:
    """run_template in a tracked execution; calls in the executed tree remember their site."""
    d = tracked_define(target)
    run = d.run or d.load()
    frame = [dot] + [None] * (d.nslots - 1)
    sub = State(st.out, frame, target.name, st.depth + 1, st.trees, st.funcs, st.missingkey)
    rec = sub.rec = st.rec
    first = len(rec.marks)
    try:
        run(sub, dot, d.sites)
    except RecursionError:
        fail_at(st, tree, pos, "template", f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
    if st.depth == 0:
        if rec.calls is None:
            rec.calls = []
        rec.calls.append((first, len(rec.marks), mark(st, tree, line, False)))


_NAMESPACE: dict[str, Any] = {
    "__builtins__": builtins,
    "ABSENT": _ABSENT,
    "MISSING": MISSING,
    "NIL": NIL,
    "BREAK": _BREAK,
    "action_mark": action_mark,
    "mark": mark,
    "run_template_tracked": run_template_tracked,
    "CONTINUE": _CONTINUE,
    "fail_at": fail_at,
    "show": show,
    "show_copy": show_copy,
    "range_pairs": range_over,
    "run_template": run_template,
    "template_target": template_target,
    "truth": truth,
}
