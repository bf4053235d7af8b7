"""A spec's YAML read into plain data, with the line of every value kept.

PyYAML composes the node tree (libyaml's parser; node marks carry lines), and
this module builds Python values from it, remembering for each path (a tuple
of keys and list indexes) the line its value starts on, so a validation error
can say `deploy-runner.yaml:14: releases[1].applyMethod: ...`.

Scalars resolve as go-yaml v3 (helmfile v1's reader) resolves them into an
untyped value, YAML 1.2's core schema: `true`/`false` (any case form), `null`
and `~`, decimal, `0x` and `0o` integers, floats; `yes`, `on` and `off` stay
strings (a boolean field still accepts them, as go-yaml v3 does for a typed
bool). Merge keys (`<<`) and anchors work; duplicate keys, custom tags,
several documents and alias bombs are errors, never crashes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

Path = tuple[str | int, ...]

MAX_NODES = 200_000  # values built, aliases included: a spec is far smaller; a bomb is not
MAX_DEPTH = 500  # nesting: a spec's deepest values are a few levels into a values mapping
_INT = re.compile(r"[-+]?[0-9]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_OCT = re.compile(r"0o[0-7]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INFINITIES = {".inf": math.inf, ".Inf": math.inf, ".INF": math.inf, "+.inf": math.inf,
               "+.Inf": math.inf, "+.INF": math.inf, "-.inf": -math.inf, "-.Inf": -math.inf,
               "-.INF": -math.inf}
_NANS = {".nan", ".NaN", ".NAN"}
_CORE_TAGS = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
              "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:map",
              "tag:yaml.org,2002:seq")
_PLAIN = "?plain"  # the tag _loader gives plain scalars: resolved here, by the core schema


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec: where (line 0 when unknown), the field path, what."""

    line: int
    path: Path
    message: str


class SourceError(Exception):
    """The YAML could not be read; `problems` say where and why."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0].message if problems else "unreadable spec")
        self.problems = problems


@dataclass
class Loaded:
    """The data, and the line each path's value starts on (1-based)."""

    data: Any
    lines: dict[Path, int] = field(default_factory=dict)
    # The text of plain scalars read as numbers or booleans: a string field takes the text
    # (`version: 1.10` is "1.10", not 1.1), as go-yaml does when it decodes into a string.
    raw: dict[Path, str] = field(default_factory=dict)

    def line_of(self, path: Path) -> int:
        """The line of `path`, or of its nearest ancestor that has one (0: none)."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line:
                return line
        return 0


def load_yaml(text: str) -> Loaded:
    """The first and only document of `text`, with its lines; SourceError otherwise."""
    import yaml

    from runner.encoding.yamldecode import check_scanner_depth
    from runner.errors import RunnerError

    try:
        check_scanner_depth(text)  # libyaml has no nesting limit; go-yaml's is 10000
    except (RunnerError, ValueError) as err:
        raise SourceError([Problem(0, (), str(err))]) from None
    try:
        nodes = list(yaml.compose_all(text, Loader=_loader()))
    except yaml.MarkedYAMLError as err:
        raise SourceError([_syntax_problem(err)]) from None
    except yaml.YAMLError as err:
        raise SourceError([Problem(0, (), f"yaml: {err}")]) from None
    if len(nodes) > 1:
        line = nodes[1].start_mark.line + 1
        raise SourceError([Problem(line, (), "several YAML documents: a spec is one document "
                                             "(helmfile's `---` layering needs its templating)")])
    builder = _Builder()
    data = builder.value(nodes[0], ()) if nodes else None
    if builder.problems:
        raise SourceError(builder.problems)
    return Loaded(data, builder.lines, builder.raw)


def _loader() -> type:
    """libyaml's parser (PyYAML's when it is missing) whose plain scalars stay untyped
    (tag _PLAIN), so resolve_plain gives them YAML 1.2's types, not PyYAML's 1.1 ones."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc, valid-type]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is yaml.ScalarNode and implicit[0]:
                return _PLAIN
            return str(super().resolve(kind, value, implicit))

    return Loader


def _syntax_problem(err: Any) -> Problem:
    mark = err.problem_mark or err.context_mark
    line = mark.line + 1 if mark is not None else 0
    reason = err.problem or err.context or "invalid YAML"
    if err.context and err.problem:
        reason = f"{err.problem} ({err.context})"
    return Problem(line, (), f"yaml: {reason}")


class _Builder:
    """Python values from composed nodes; positions recorded by path."""

    def __init__(self) -> None:
        self.lines: dict[Path, int] = {}
        self.raw: dict[Path, str] = {}
        self.problems: list[Problem] = []
        self.built = 0
        self.open: set[int] = set()  # the collections being built: one met again is in itself

    def value(self, node: Any, path: Path) -> Any:
        self.built += 1
        line = node.start_mark.line + 1
        if self.built > MAX_NODES:
            return self._stop(line, path, f"too many values (over {MAX_NODES}, aliases counted)")
        if len(path) > MAX_DEPTH:
            return self._stop(line, path, f"nested deeper than {MAX_DEPTH} levels")
        self.lines.setdefault(path, line)
        kind = type(node).__name__
        if kind == "ScalarNode":
            return self._scalar(node, path)
        if id(node) in self.open:
            return self._stop(line, path, "an anchor contains an alias of itself")
        self.open.add(id(node))
        try:
            return self._mapping(node, path) if kind == "MappingNode" else self._sequence(node, path)
        finally:
            self.open.discard(id(node))

    def _stop(self, line: int, path: Path, message: str) -> None:
        """A limit reached: said once, the rest of the value left out."""
        if not any(p.message == message for p in self.problems):
            self.problems.append(Problem(line, path, message))

    def _sequence(self, node: Any, path: Path) -> list[Any]:
        if node.tag != "tag:yaml.org,2002:seq":
            self._tag_problem(node, path)
        return [self.value(item, (*path, i)) for i, item in enumerate(node.value)]

    def _mapping(self, node: Any, path: Path) -> dict[str, Any]:
        if node.tag != "tag:yaml.org,2002:map":
            self._tag_problem(node, path)
        out: dict[str, Any] = {}
        seen: dict[str, int] = {}
        merged: list[tuple[Any, Any]] = []
        for key_node, value_node in node.value:
            if key_node.tag == _PLAIN and key_node.value == "<<":
                merged.extend(self._merge_sources(value_node, path))
                continue
            key = self._key(key_node, path)
            if key is None:
                continue
            line = key_node.start_mark.line + 1
            if key in seen:
                self.problems.append(Problem(line, (*path, key),
                                             f'mapping key "{key}" already defined at line {seen[key]}'))
                continue
            seen[key] = line
            out[key] = self.value(value_node, (*path, key))
            self.lines[(*path, key)] = line  # a key's line, where its value is on later lines
        for key_node, value_node in merged:  # explicit keys win over merged ones
            key = self._key(key_node, path)
            if key is not None and key not in out:
                out[key] = self.value(value_node, (*path, key))
        return out

    def _merge_sources(self, node: Any, path: Path) -> list[tuple[Any, Any]]:
        """`<<: *anchor` or `<<: [*a, *b]`: the pairs to merge, earlier sources first."""
        kind = type(node).__name__
        sources = node.value if kind == "SequenceNode" else [node]
        pairs: list[tuple[Any, Any]] = []
        for source in sources:
            if type(source).__name__ != "MappingNode":
                self.problems.append(Problem(source.start_mark.line + 1, path,
                                             "a merge key (<<) takes a mapping or a list of mappings"))
                continue
            pairs.extend(source.value)
        return pairs

    def _key(self, node: Any, path: Path) -> str | None:
        if type(node).__name__ != "ScalarNode":
            self.problems.append(Problem(node.start_mark.line + 1, path,
                                         "a mapping key must be a scalar, not a list or a mapping"))
            return None
        return str(node.value)

    def _scalar(self, node: Any, path: Path) -> Any:
        tag, text = node.tag, node.value
        if tag == _PLAIN:
            value = resolve_plain(text)
            if value is not None and not isinstance(value, str):
                self.raw[path] = text
            return value
        if tag == "tag:yaml.org,2002:str":  # quoted, a block scalar, or !!str
            return text
        if tag not in _CORE_TAGS:
            self._tag_problem(node, path)
            return text
        value = resolve_plain(text)
        wanted = {"tag:yaml.org,2002:int": int, "tag:yaml.org,2002:float": float,
                  "tag:yaml.org,2002:bool": bool, "tag:yaml.org,2002:null": type(None)}.get(tag)
        if wanted is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if wanted is None or not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            self.problems.append(Problem(node.start_mark.line + 1, path,
                                         f"cannot read {text!r} as {tag.rsplit(':', 1)[-1]}"))
        return value

    def _tag_problem(self, node: Any, path: Path) -> None:
        self.problems.append(Problem(node.start_mark.line + 1, path,
                                     f"unsupported YAML tag {node.tag}"))


def resolve_plain(text: str) -> Any:
    """A plain scalar's value under YAML 1.2's core schema (go-yaml v3 into interface{})."""
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.fullmatch(text):
        return int(text)
    if _HEX.fullmatch(text):
        return int(text[2:], 16)
    if _OCT.fullmatch(text):
        return int(text[2:], 8)
    if _FLOAT.fullmatch(text):
        return float(text)
    if text in _INFINITIES:
        return _INFINITIES[text]
    if text in _NANS:
        return math.nan
    return text
