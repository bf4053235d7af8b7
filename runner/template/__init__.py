"""Go's text/template for deploy-runner: a template set like Go's *template.Template.

    tmpl = Template("gotpl", funcs=function_map(), missingkey="zero")
    tmpl.parse("mychart/templates/cm.yaml", text)   # adds the file and its defines
    out = tmpl.execute("mychart/templates/cm.yaml", values)

Every file and `define` shares one namespace; a later definition replaces an
earlier one unless it is empty (Go's AddParseTree/associate), so parse order
matters as it does in Helm. Each parsed file is compiled to Python code
(compiler.py, runtime.py), cached in-process by (name, text) and across runs
by content (cache.py: the code objects, marshalled, written by
`store_pending` once a render is done); a tree's code is only materialised
when the tree first runs, and each generated function compiled on its first
call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from runner.gcpause import no_gc
from runner.golang.gofunc import GoFunc, gomethod
from runner.golang.strconv import quote
from runner.template import cache
from runner.template.builtins import BUILTINS
from runner.template.errors import ExecError, ParseError, TemplateError
from runner.template.parse import ParseResult, Tree, check_functions, parse_text
from runner.template.positions import TRACKING, SourceMap, SourcePos
from runner.template.runtime import (
    compile_result,
    define_of,
    entry_key_of,
    execute_tree,
    execute_tree_tracked,
    from_entry,
    pending_entries,
    pending_entry,
)
from runner.template.state import MISSINGKEY_MODES

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "BUILTINS",
    "ExecError",
    "ParseError",
    "SourceMap",
    "SourcePos",
    "Template",
    "TemplateError",
    "Tree",
    "gomethod",
    "open_pack",
    "parse_cached",
    "store_pending",
]

_CACHE: dict[tuple[str, str, bool, bool], ParseResult] = {}
_CACHE_LIMIT = 8192


def parse_cached(name: str, text: str, funcs: Mapping[str, Any], *, remember: bool = True) -> ParseResult:
    """Parse once per (name, text); check function names against `funcs` every time.
    `remember=False` keeps the compiled text out of the cross-run cache: tpl's texts
    come from values, which may hold secrets."""
    key = (name, text, "break" in funcs, "continue" in funcs)
    result = _CACHE.get(key)
    if result is None:
        try:
            with no_gc():
                result = _parse_persisted(name, text, key[2], key[3], remember)
        except ParseError as err:
            # An unknown function earlier in the text is the error Go reports first.
            idents = [(i, line) for i, line in getattr(err, "idents", []) if line <= err.line]
            check_functions(name, idents, funcs)
            raise
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = result
    check_functions(name, result.idents, funcs)
    return result


def _parse_persisted(name: str, text: str, break_is_func: bool, continue_is_func: bool,
                     remember: bool) -> ParseResult:
    """parse_text and compile_result, through the cross-run cache (runner.template.cache)
    for texts worth it."""
    key = None
    if remember and _worth_persisting(text) and cache.enabled():
        # Keyed by content only (a library chart vendored twice shares its entries),
        # unless the text might name a define after the template itself.
        key = cache.entry_key(name if name in text else "", text, f"{break_is_func:d}{continue_is_func:d}")
        entry = pending_entry(key) or cache.load(key)
        if entry is not None:
            return from_entry(name, text, (break_is_func, continue_is_func), entry, key)
    result = parse_text(name, text, break_is_func=break_is_func, continue_is_func=continue_is_func)
    compile_result(name, text, result, (break_is_func, continue_is_func), key)
    return result


_DEFAULT_PACK_LIMIT = 1024  # entries: the default pack holds whatever any process parsed


def open_pack(names: Iterable[str]) -> cache.Pack | None:
    """The cross-run cache's pack for a render of templates `names` (cache.Pack: one file
    for all its entries), read now; None when caching is off. Give it to the render's
    Template (`pack`) and to store_pending."""
    return cache.open_pack(names) if cache.enabled() else None


def store_pending(pack: cache.Pack | None = None) -> None:
    """Write the cache entries of the texts parsed, or compiled further, since the last
    call: a render calls it once done, when the functions that ran are compiled (only
    those are: the entry keeps the others' source). With the render's `pack`, its own
    entries go into it; without, every pending entry goes into the default pack."""
    if not cache.enabled():
        pending_entries()  # dropped
        return
    if pack is None:
        pack = cache.default_pack()
        fresh = pending_entries()
        if len(pack.stored) < _DEFAULT_PACK_LIMIT:  # else it starts again with these
            pack.keys.update(pack.stored.keys())
        pack.keys.update(fresh)
    else:
        fresh = pending_entries(pack.keys)
    cache.store(pack, fresh)


def _worth_persisting(text: str) -> bool:
    """Texts with actions: reading an entry (~10 us) beats compiling even a short one
    (~100 us, and the lexer's pattern is compiled on first use, ~1 ms); a text without
    any compiles to one string written out, as fast as an entry is read."""
    return "{{" in text


class Template:
    """A set of named templates sharing defines, executed with a function map."""

    def __init__(
        self,
        name: str = "",
        *,
        funcs: Mapping[str, GoFunc] | None = None,
        missingkey: str = "default",
    ) -> None:
        self.name = name
        self._trees: dict[str, Tree] = {}
        self._funcs: dict[str, GoFunc] = dict(BUILTINS)
        self._missingkey = 0
        self._merged: tuple[Any, dict[str, GoFunc]] | None = None
        self.pack: cache.Pack | None = None  # the cross-run cache's pack of this render (open_pack)
        if funcs:
            self.add_funcs(funcs)
        self.option(f"missingkey={missingkey}")

    # ------------------------------------------------------------ set up

    def add_funcs(self, funcs: Mapping[str, GoFunc]) -> Template:
        """Template.Funcs: add functions (later wins; user functions override builtins)."""
        self._funcs.update(funcs)
        self._merged = None
        return self

    def option(self, opt: str) -> Template:
        """Template.Option: only `missingkey=default|invalid|zero|error` exists."""
        key, _, value = opt.partition("=")
        if key != "missingkey" or value not in MISSINGKEY_MODES:
            raise ValueError(f"unrecognized option: {opt}")
        self._missingkey = MISSINGKEY_MODES[value]
        return self

    def parse(self, name: str, text: str) -> Template:
        """Parse `text` as template `name`, adding it and its defines to the set."""
        result = parse_cached(name, text, self._funcs)
        if self.pack is not None:
            key = entry_key_of(result)
            if key is not None:
                self.pack.keys.add(key)
        for tree_name, tree in result.trees.items():
            old = self._trees.get(tree_name)
            if old is not None and define_of(tree).empty and define_of(old).has_root:
                continue  # an empty redefinition doesn't replace a template
            self._trees[tree_name] = tree
        return self

    def add_tree(self, name: str, tree: Tree) -> Template:
        """AddParseTree: install an already parsed tree under `name`."""
        self._trees[name] = tree
        return self

    # ------------------------------------------------------------ queries

    def lookup(self, name: str) -> Tree | None:
        return self._trees.get(name)

    def defined_templates(self) -> list[str]:
        return sorted(n for n, t in self._trees.items() if define_of(t).has_root)

    # ---------------------------------------------------------- execution

    def _functions(self, funcs: Mapping[str, GoFunc] | None) -> dict[str, GoFunc]:
        if not funcs:
            return self._funcs
        merged = self._merged
        if merged is None or merged[0] is not funcs:
            merged = (funcs, {**self._funcs, **funcs})
            self._merged = merged
        return merged[1]

    def execute(self, name: str, data: Any, funcs: Mapping[str, GoFunc] | None = None) -> str:
        """ExecuteTemplate: the output of template `name` with dot = `data`.

        `funcs` are added over the set's functions for this call (engine-bound
        ones such as include and tpl).
        """
        tree = self._tree_to_run(name)
        if TRACKING.rec is not None:  # called (include, tpl) inside a tracked execution
            return self._run_tracked(tree, data, funcs)[0]
        return execute_tree(tree, self._trees, data, self._functions(funcs), self._missingkey)

    def execute_with_positions(
        self, name: str, data: Any, funcs: Mapping[str, GoFunc] | None = None
    ) -> tuple[str, SourceMap]:
        """execute, also returning where each piece of the output came from
        (runner.template.positions; the output is the same text)."""
        return self._run_tracked(self._tree_to_run(name), data, funcs)

    def _run_tracked(self, tree: Tree, data: Any, funcs: Mapping[str, GoFunc] | None) -> tuple[str, SourceMap]:
        parent = TRACKING.rec
        text, smap = execute_tree_tracked(tree, self._trees, data, self._functions(funcs), self._missingkey)
        smap.anonymous = tree.name == self.name  # tpl's text, not a file's
        if parent is not None:
            if parent.subs is None:
                parent.subs = []
            parent.subs.append(smap)
        return text, smap

    def _tree_to_run(self, name: str) -> Tree:
        tree = self._trees.get(name)
        if tree is None:
            raise ExecError.bare_text(
                f"template: no template {quote(name)} associated with template {quote(self.name)}",
                name,
            )
        if not define_of(tree).has_root:
            raise ExecError.bare(name, f"{quote(name)} is an incomplete or empty template")
        return tree
