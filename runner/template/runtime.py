"""What generated template code (runner.template.compiler) runs on.

A parsed file becomes one Python module source, compiled once; each tree
(the file and every `define` in it) gets a `Define` holding its factory's
code object, materialised into `(run, nslots)` on the tree's first
execution only. Across runs the code objects are kept by cache.py (marshal),
so a warm run neither parses, nor unpickles trees, nor generates code; a
tree loaded that way parses its text again only if something asks for its
nodes (`.root`: tracked executions, which run the closure compiler).

The helpers below are the generated code's globals: call sites, field
access and missingkey, range iteration, `{{template}}` calls. Errors name
the node by the position and text embedded in the generated code.
"""

from __future__ import annotations

import builtins
import marshal
from collections.abc import Iterable
from types import CodeType, FunctionType
from typing import Any, NoReturn

from runner.funcs.registry import FuncError
from runner.template import compiler
from runner.template.calls import ArgError
from runner.template.errors import ExecError
from runner.template.gotypes import print_copied_value, print_value
from runner.template.lex import go_quote
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
from runner.template.ranges import range_pairs
from runner.template.sites import _field, _Site
from runner.template.state import (
    _ABSENT,
    MAX_EXEC_DEPTH,
    MISSINGKEY_INVALID,
    MISSINGKEY_ZERO,
    State,
    fail,
)
from runner.template.values import MISSING, NIL, truth

# ------------------------------------------------------------ compiled files


class FileCode:
    """What the trees of one parsed file share: its text, and the globals of its code."""

    __slots__ = ("parse_name", "text", "_globals")

    def __init__(self, parse_name: str, text: str) -> None:
        self.parse_name = parse_name
        self.text = text
        self._globals: dict[str, Any] | None = None

    def globals(self) -> dict[str, Any]:
        g = self._globals
        if g is None:
            g = self._globals = dict(_NAMESPACE)
            g["T"] = Tree(self.parse_name, self.parse_name, self.text)  # errors' locations
        return g


class Define:
    """One tree's generated code; `load()` makes its run function on first use."""

    __slots__ = ("code", "file", "run", "nslots", "empty", "has_root")

    def __init__(self, code: CodeType | bytes, file: FileCode, empty: bool, has_root: bool) -> None:
        self.code = code  # marshalled when it came from the cache
        self.file = file
        self.run: Any = None
        self.nslots = 0
        self.empty = empty  # parse.IsEmptyTree of its root
        self.has_root = has_root

    def load(self) -> Any:
        code = self.code if isinstance(self.code, CodeType) else marshal.loads(self.code)
        self.run, self.nslots = FunctionType(code, self.file.globals())()
        return self.run


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


def compile_result(name: str, text: str, result: ParseResult) -> None:
    """Generate and compile the code of every tree of a fresh parse (attached as `tree.compiled`)."""
    trees = list(result.trees.values())
    module = compile(compiler.generate(trees), f"<template {name}>", "exec")
    codes = {c.co_name: c for c in module.co_consts if isinstance(c, CodeType)}
    file = FileCode(name, text)
    for i, tree in enumerate(trees):
        tree.compiled = Define(codes[f"mk_{i}"], file, is_empty_tree(tree.root), tree.root is not None)


def to_entry(result: ParseResult) -> tuple[Any, ...]:
    """What cache.py stores for a compiled parse: marshal-able, each tree's code apart."""
    defines = []
    for name, tree in result.trees.items():
        d: Define = tree.compiled  # type: ignore[assignment]
        code = d.code if isinstance(d.code, bytes) else marshal.dumps(d.code)
        defines.append((name, d.has_root, d.empty, code))
    return (list(result.idents), tuple(defines))


def from_entry(name: str, text: str, modes: tuple[bool, bool], entry: tuple[Any, ...]) -> ParseResult:
    """The ParseResult a cache entry stands for; trees' code is unmarshalled on first run."""
    idents, defines = entry
    file = FileCode(name, text)
    trees: dict[str, Tree] = {}
    for tree_name, has_root, empty, code in defines:
        tree = CodeTree(tree_name, name, text)
        tree.modes = modes
        tree.root = _UNPARSED if has_root else None
        tree.compiled = Define(code, file, empty, has_root)
        trees[tree_name] = tree
    return ParseResult(trees, idents)


def define_of(tree: Tree) -> Define:
    """The tree's code; trees built elsewhere (not by parse_cached) are compiled here."""
    d = tree.compiled
    if d is None:
        compile_result(tree.parse_name, tree.text, ParseResult({tree.name: tree}, []))
        d = tree.compiled
    return d  # type: ignore[return-value]


def execute_tree(tree: Tree, trees: dict[str, Tree], data: Any, funcs: dict[str, Any], missingkey: int) -> str:
    """Run `tree` with dot = `data`; returns the output text or raises ExecError."""
    d = define_of(tree)
    run = d.run or d.load()
    st = State([], [data] + [None] * (d.nslots - 1), tree.name, 0, trees, funcs, missingkey)
    run(st, data)
    return "".join(st.out)


# ------------------------------------------------------------------ helpers


class Where(Node):
    """A node as a call site keeps it: where an argument's evaluation ends (errors
    point there), its kind, and its whole text (the `call` builtin names it)."""

    __slots__ = ("text", "kind", "whole")

    def __init__(self, pos: int, text: str, kind: str = "node", whole: str = "") -> None:
        super().__init__(pos)
        self.text = text
        self.kind = kind  # type: ignore[misc]
        self.whole = whole or text

    def __str__(self) -> str:
        return self.text


def fail_at(st: State, tree: Tree, pos: int, text: str, reason: str) -> NoReturn:
    fail(st, tree, Where(pos, text), reason)


def _arg_node(spec: tuple[Any, ...]) -> Node:
    kind, pos = spec[0], spec[1]
    if kind == "w":
        return Where(pos, spec[2], spec[3], spec[4])
    if kind == "s":
        return StringNode(pos, spec[2], spec[3])
    if kind == "b":
        return BoolNode(pos, spec[2])
    if kind == "n":
        return NilNode(pos)
    n = NumberNode(pos, spec[2])
    n.is_int, n.is_uint, n.is_float, n.is_complex, n.int64, n.uint64, n.float64, n.complex128 = spec[3:]
    return n


def mksite(
    sites: list[Any],
    k: int,
    tree: Tree,
    name: str,
    call: tuple[int, str],
    head: tuple[int, str],
    args: tuple[tuple[Any, ...], ...],
    evals: tuple[Any, ...],
) -> _Site:
    site = _Site(tree, name, Where(*call), Where(*head), [_arg_node(a) for a in args], list(evals))
    sites[k] = site
    return site


def dot_arg(st: State, dot: Any) -> Any:
    return dot


def missing_key(st: State, tree: Tree, pos: int, text: str, name: str) -> Any:
    """A key missing from a plain dict, per missingkey mode."""
    mode = st.missingkey
    if mode == MISSINGKEY_ZERO:
        return NIL
    if mode == MISSINGKEY_INVALID:
        return None
    fail_at(st, tree, pos, text, f"map has no entry for key {go_quote(name)}")


def field(st: State, tree: Tree, r: Any, name: str, site: _Site, final: Any, dot: Any, boxed: bool) -> Any:
    """evalField on anything but a plain dict."""
    return _field(st, tree, site.head_node, r, name, site, final, dot, boxed)


def call_function(st: State, dot: Any, site: _Site, final: Any) -> Any:
    """evalFunction + evalCall: the function looked up by name per call, its plan per site."""
    name, tree = site.name, site.tree
    gf = st.funcs.get(name)
    if gf is None:
        fail(st, tree, site.head_node, f"{go_quote(name)} is not a defined function")
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


def range_over(st: State, tree: Tree, pos: int, text: str, val: Any, two_vars: bool) -> Iterable[Any] | None:
    """(index, element) pairs of a range, None when there is nothing to iterate."""
    return range_pairs(st, tree, Where(pos, text), val, two_vars)


def template_target(st: State, tree: Tree, pos: int, text: str, name: str) -> Tree:
    """walkTemplate's checks, made before its pipeline runs."""
    target = st.trees.get(name)
    if target is None:
        fail_at(st, tree, pos, text, f"template {go_quote(name)} not defined")
    if st.depth >= MAX_EXEC_DEPTH:
        fail_at(st, tree, pos, text, f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
    return target


def run_template(st: State, tree: Tree, pos: int, text: str, target: Tree, dot: Any) -> None:
    d = define_of(target)
    run = d.run or d.load()
    frame = [dot] + [None] * (d.nslots - 1)
    sub = State(st.out, frame, target.name, st.depth + 1, st.trees, st.funcs, st.missingkey)
    try:
        run(sub, dot)
    except RecursionError:
        fail_at(st, tree, pos, text, f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")


_NAMESPACE: dict[str, Any] = {
    "__builtins__": builtins,
    "ABSENT": _ABSENT,
    "MISSING": MISSING,
    "NIL": NIL,
    "call_function": call_function,
    "dot_arg": dot_arg,
    "fail_at": fail_at,
    "field": field,
    "missing_key": missing_key,
    "mksite": mksite,
    "print_copied_value": print_copied_value,
    "print_value": print_value,
    "range_pairs": range_over,
    "run_template": run_template,
    "template_target": template_target,
    "truth": truth,
}
