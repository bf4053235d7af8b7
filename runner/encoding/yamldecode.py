"""go-yaml v2's decoding of libyaml's node trees: the parsing half of runner.encoding.goyaml.

libyaml (PyYAML's CParser) composes the node tree with tag resolution left
to go-yaml's rules, which `_Builder` applies as it turns nodes into Go
values (resolution, merge keys, map keys, the JSON round trip). Where go-yaml
v2's scanner differs from libyaml, runner.encoding.goscan composes instead.

Kept apart from goyaml so that writing YAML (toYaml) and a run whose YAML
trees all come from the cache never import PyYAML.
"""

from __future__ import annotations

import math
import re

from yaml import MarkedYAMLError, YAMLError
from yaml._yaml import CParser
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from runner.deepstack import on_deep_thread, run_deep
from runner.encoding import goscan
from runner.encoding.yamlerrors import GoYAMLError, error_text
from runner.encoding.yamlresolve import INT64_MAX, RESOLVE_MAP, Timestamp, resolve_plain
from runner.golang.strconv import format_float
from runner.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_PLAIN = "?"  # resolver tag for an untagged plain scalar
_QUOTED = "!"  # resolver tag for an untagged quoted (or "!"-tagged) scalar
_TAG = "tag:yaml.org,2002:"


def first_document(text: str, ints: bool) -> Any:
    """goyaml.load of a text _reader_guard has passed."""
    if _needs_deep_stack(text):
        return run_deep(lambda: first_document(text, ints))
    nodes = _nodes(text, first_only=True)
    return _builder(text, ints).document(nodes[0]) if nodes else None


def first_document_fields(text: str, keys: tuple[str, ...], ints: bool) -> Any:
    """goyaml.load_fields of a text _reader_guard has passed."""
    return first_document_fields_and_node(text, keys, ints)[0]


def first_document_fields_and_node(text: str, keys: tuple[str, ...], ints: bool) -> tuple[Any, Any]:
    """first_document_fields, and the document's node (None when there is none): its
    scalars' marks say where in `text` each value was written (runner.heads_cache)."""
    if _needs_deep_stack(text):
        return run_deep(lambda: first_document_fields_and_node(text, keys, ints))
    nodes = _nodes(text, first_only=True)
    if not nodes:
        return None, None
    top = nodes[0]
    builder = _builder(text, ints)
    if not isinstance(top, MappingNode):
        return builder.document(top), top
    if builder.json_depth_unknown:  # encoding/json checks the whole document's depth: build it
        whole = builder.document(top)
        return {key: whole[key] for key in keys if key in whole}, top
    checker = _Checker(ints)  # no aliases here (they leave the depth unknown)
    checker.start()
    checker.value(top)
    if checker.key_error is not None or checker.non_finite:
        builder.document(top)  # raises: the whole value tells which NaN json.Marshal meets first
    picked: dict[str, Any] = {}
    _NodePicker(ints).fill(top, picked)
    plain = _Builder(ints)
    return {key: plain.value(picked[key]) for key in keys if key in picked}, top


def all_documents(text: str, ints: bool) -> list[Any]:
    """goyaml.load_all of a text _reader_guard has passed."""
    if _needs_deep_stack(text):
        return run_deep(lambda: all_documents(text, ints))
    builder = _builder(text, ints)
    return [builder.document(node) for node in _nodes(text, first_only=False)]


def _needs_deep_stack(text: str) -> bool:
    """A text that may nest deeper than a default stack's recursion allows (the builders
    recurse ~3 frames a level) decodes on a deep thread, unless on one already."""
    return not on_deep_thread() and _nesting_bound(text) > _INLINE_DEPTH


_INLINE_DEPTH = 200


class _Composer(CParser):
    """libyaml's composer with tag resolution left to go-yaml's rules below."""

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _QUOTED
        return ""

    def descend_resolver(self, *_: Any) -> None:
        return None

    def ascend_resolver(self, *_: Any) -> None:
        return None



class _Builder:
    """Turns libyaml nodes into Go values the way go-yaml v2 + the JSON round trip do."""

    def __init__(self, ints: bool) -> None:
        self.ints = ints
        # sigs.k8s.io/yaml turns go-yaml's value into JSON once go-yaml has decoded
        # the whole document: a key JSON cannot hold, then NaN or Inf (json.Marshal's
        # complaint), fail only when go-yaml itself found nothing wrong.
        self.key_error: GoYAMLError | None = None
        self.non_finite = False

    json_depth_unknown = False  # True where the text may nest deeper than JSON allows

    def start(self) -> None:
        """Before a document: go-yaml's decoder is new for each."""
        self.key_error, self.non_finite = None, False

    def document(self, node: Any) -> Any:
        """One document's value, or the error Helm reports first for it."""
        self.start()
        value = self.value(node)
        self.raise_json_errors(value)
        if self.json_depth_unknown:
            check_json_depth(value)
        return value

    def raise_json_errors(self, value: Any) -> None:
        if self.key_error is not None:
            raise self.key_error
        if self.non_finite:
            bad = _first_non_finite(value)
            if bad is not None:  # a later duplicate key may have replaced it
                raise GoYAMLError(f"json: unsupported value: {format_float(bad)}")

    def value(self, node: Any) -> Any:
        if isinstance(node, ScalarNode):
            return self.json_value(self.scalar(node))
        if isinstance(node, SequenceNode):
            return [self.value(child) for child in node.value]
        return self.mapping(node)

    def json_value(self, value: Any) -> Any:
        """The JSON round trip: numbers become float64, NaN/Inf are errors (see __init__)."""
        if value is None or value is True or value is False or type(value) is str:
            return value
        if isinstance(value, float):
            if math.isnan(value) or math.isinf(value):
                self.non_finite = True
            return value
        if isinstance(value, int):
            return value if self.ints else float(value)
        return str(value)

    def scalar(self, node: Any) -> Any:
        tag, text = node.tag, node.value
        if tag == _PLAIN:
            value = resolve_plain(text)
            return str(value) if type(value) is Timestamp else value
        if tag == _QUOTED or tag == _TAG + "str" or not tag.startswith(_TAG):
            return text
        return self.tagged(tag[len(_TAG) :], text)

    def tagged(self, short: str, text: str) -> Any:
        if short == "binary":
            import base64

            # Go's base64.StdEncoding: padding required, only \r and \n skipped.
            data = text.replace("\r", "").replace("\n", "").encode("utf-8", "surrogateescape")
            try:
                return base64.b64decode(data, validate=True).decode("utf-8", "replace")
            except ValueError:
                raise GoYAMLError("yaml: !!binary value contains invalid base64 data") from None
        if short not in ("bool", "int", "float", "null", "timestamp"):
            return text
        value = resolve_plain(text)
        if short == "float" and type(value) is int:
            return float(value)
        if short == "timestamp" and type(value) is Timestamp:
            return str(value)
        expected = {"bool": bool, "int": int, "float": float, "null": type(None)}.get(short)
        if expected is not None and type(value) is not expected:
            shown = "!!" + {bool: "bool", int: "int", float: "float", type(None): "null"}.get(
                type(value), "str"
            )
            raise GoYAMLError(f"yaml: cannot decode {shown} `{text}` as a !!{short}")
        return value

    def mapping(self, node: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        self.fill(node, out)
        return out

    def fill(self, node: Any, out: dict[str, Any]) -> None:
        """go-yaml v2 decoder.mapping: pairs in order, `<<` merges overwrite earlier keys."""
        for key_node, value_node in node.value:
            if (
                isinstance(key_node, ScalarNode)
                and key_node.value == "<<"
                and key_node.tag == _PLAIN
            ):
                self.merge(value_node, out)
                continue
            key = self.key(key_node, value_node)
            out[key] = self.value(value_node)

    def merge(self, node: Any, out: dict[str, Any]) -> None:
        if isinstance(node, MappingNode):
            self.fill(node, out)
            return
        if isinstance(node, SequenceNode) and all(isinstance(n, MappingNode) for n in node.value):
            for child in reversed(node.value):  # earlier maps take precedence
                self.fill(child, out)
            return
        raise GoYAMLError("yaml: map merge requires map or sequence of maps as the value")

    def key(self, node: Any, value_node: Any) -> str:
        """sigs.k8s.io/yaml convertToJSONableObject: non-string keys become strings."""
        if not isinstance(node, ScalarNode):
            raise GoYAMLError(f"yaml: invalid map key: {_go_syntax(self.raw(node))}")
        key = self.scalar(node)
        if type(key) is str:
            return key
        if key is True or key is False:
            return "true" if key else "false"
        if isinstance(key, float):
            # sigs.k8s.io/yaml formats float keys with float32 precision.
            text = format_float(key, "g", -1, 32)
            return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
        if isinstance(key, int) and key <= INT64_MAX:
            return str(key)
        if self.key_error is None:  # raised once the document is decoded (see __init__)
            value = _go_syntax(self.raw(value_node))
            self.key_error = GoYAMLError(
                f"unsupported map key of type: uint64, key: {key:#x}, value: {value}"
                if isinstance(key, int)
                else f"unsupported map key of type: %!s(<nil>), key: <nil>, value: {value}"
            )
        return str(key)

    def raw(self, node: Any) -> Any:
        """The go-yaml value before the JSON conversion (for error texts only)."""
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        if isinstance(node, SequenceNode):
            return [self.raw(child) for child in node.value]
        return {self.raw(k): self.raw(v) for k, v in node.value}


class _Checker(_Builder):
    """Walks a node tree raising exactly what _Builder would, building nothing."""

    def value(self, node: Any) -> None:
        if isinstance(node, ScalarNode):
            # Only tagged scalars and go-yaml's words (.nan, .inf) can fail the JSON round trip.
            if node.tag != _QUOTED and (node.tag != _PLAIN or node.value in RESOLVE_MAP):
                self.json_value(self.scalar(node))
        elif isinstance(node, SequenceNode):
            for child in node.value:
                self.value(child)
        else:
            self.fill(node, {})


class _NodePicker(_Builder):
    """A mapping's keys, merges applied, each to its value's node (left unbuilt)."""

    def value(self, node: Any) -> Any:
        return node


# ------------------------------------------------------------ limits

MAX_DEPTH = 10000  # go-yaml v2's max_flow_level and max_indents; encoding/json's maxNestingDepth

# go-yaml v2 decode.go: past 1000 decodes (100 of them through aliases), the share that
# may come from alias expansion falls from 99% (up to 400,000 decodes) to 10% (4,000,000).
_RATIO_LOW, _RATIO_HIGH = 400_000, 4_000_000

# An alias token: `*name` after a blank, a flow indicator or at a line's start. A text
# without one decodes with the uncounted builders (aliases are rare in charts).
_ALIAS = LazyPattern(r"(?:^|[\s\[{,])\*[^\s\[\]{},]", re.M)


def _allowed_alias_ratio(decodes: int) -> float:
    if decodes <= _RATIO_LOW:
        return 0.99
    if decodes >= _RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * ((decodes - _RATIO_LOW) / (_RATIO_HIGH - _RATIO_LOW))


class _AliasBudget:
    """go-yaml v2's decoder counts (decode.go `unmarshal`, `alias`), for one document.

    libyaml's composer hands an alias back as its anchor's node itself. A node's
    first place in the walk (its parent and the visit's number there) is its home:
    met anywhere else, it stands for an alias, which go-yaml decodes (one count) and
    then, one alias level deeper, decodes the anchor's node again. Re-walked through
    an alias, a parent meets its children at their homes again: not aliases.
    """

    __slots__ = ("active", "alias_depth", "aliased", "decodes", "frames", "homes", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.decodes = 1  # the document node
        self.aliased = self.alias_depth = 0
        self.homes: dict[int, tuple[int, int]] = {}
        self.frames: list[list[int]] = [[0, 0]]  # per collection being walked: [id, visits]
        self.active: set[int] = set()  # collections being decoded (an alias to one is a cycle)

    def visit(self, node: Any) -> bool:
        """Count the visit of `node` at the walk's current place; True when it is an alias
        (then the anchor's node is counted too, with alias_depth raised by the caller)."""
        frame = self.frames[-1]
        place = (frame[0], frame[1])
        frame[1] += 1
        self.count()
        home = self.homes.setdefault(id(node), place)
        if home == place:
            return False
        if id(node) in self.active:
            raise GoYAMLError(f"yaml: anchor '{self.anchor_name(node)}' value contains itself")
        self.alias_depth += 1
        self.count()
        return True

    def count(self) -> None:
        self.decodes += 1
        if self.alias_depth:
            self.aliased += 1
            if (self.aliased > 100 and self.decodes > 1000
                    and self.aliased / self.decodes > _allowed_alias_ratio(self.decodes)):
                raise GoYAMLError("yaml: document contains excessive aliasing")

    def enter(self, node: Any) -> None:
        self.frames.append([id(node), 0])
        self.active.add(id(node))

    def leave(self, node: Any) -> None:
        self.frames.pop()
        self.active.discard(id(node))

    def anchor_name(self, node: Any) -> str:
        """The anchor at the node's start (`!!tag &name` or `&name`), as go-yaml names it."""
        mark = node.start_mark
        line = self.text.splitlines()[mark.line] if self.text else ""
        found = re.search(r"&([^\s\[\]{},]*)", line[mark.column:])
        return found[1] if found else ""


class _Counting:
    """A builder's walk with go-yaml's alias budget and self-containing anchors."""

    budget: _AliasBudget

    def start(self) -> None:
        super().start()  # type: ignore[misc]
        self.budget = _AliasBudget(self.budget.text)

    def value(self, node: Any) -> Any:
        aliased = self.budget.visit(node)
        try:
            return self.own_value(node)
        finally:
            if aliased:
                self.budget.alias_depth -= 1

    def own_value(self, node: Any) -> Any:
        if isinstance(node, ScalarNode):
            return super().value(node)  # type: ignore[misc]
        self.budget.enter(node)
        try:
            return super().value(node)  # type: ignore[misc]
        finally:
            self.budget.leave(node)

    def key(self, node: Any, value_node: Any) -> str:
        if not isinstance(node, ScalarNode):
            self.value(node)  # go-yaml decodes a key before it looks at its kind
        elif self.budget.visit(node):
            self.budget.alias_depth -= 1
        return super().key(node, value_node)  # type: ignore[misc]

    def merge(self, node: Any, out: dict[str, Any]) -> None:
        """go-yaml v2 decoder.merge: an alias must name a map; a sequence's items are decoded
        last to first, each a map or an alias of one."""
        budget = self.budget
        frame = budget.frames[-1]
        place = (frame[0], frame[1])
        if isinstance(node, SequenceNode) and budget.homes.get(id(node), place) == place:
            frame[1] += 1  # the sequence itself is not decoded, only its items
            budget.homes[id(node)] = place
            budget.enter(node)
            try:
                for child in reversed(node.value):
                    self._merge_one(child, out)
            finally:
                budget.leave(node)
            return
        self._merge_one(node, out)

    def _merge_one(self, node: Any, out: dict[str, Any]) -> None:
        if not isinstance(node, MappingNode):
            raise GoYAMLError("yaml: map merge requires map or sequence of maps as the value")
        aliased = self.budget.visit(node)
        self.budget.enter(node)
        try:
            self.fill(node, out)  # type: ignore[attr-defined]
        finally:
            self.budget.leave(node)
            if aliased:
                self.budget.alias_depth -= 1


class _CountingBuilder(_Counting, _Builder):
    pass


def _builder(text: str, ints: bool) -> _Builder:
    builder = _CountingBuilder(ints) if "*" in text and _ALIAS.search(text) else _Builder(ints)
    _prepare(builder, text)
    return builder


def _prepare(builder: _Builder, text: str) -> None:
    if isinstance(builder, _Counting):
        builder.budget = _AliasBudget(text)
        builder.json_depth_unknown = True  # an alias may nest its anchor's depth again
    else:
        builder.json_depth_unknown = _nesting_bound(text) > MAX_DEPTH


def _nesting_bound(text: str) -> int:
    """At least how deep a text's flow plus block collections can nest (cheap, no parse):
    each `[` or `{` opens one flow level; nested block collections start at ever greater
    columns, so a text's longest line bounds their depth."""
    flow = text.count("[") + text.count("{")
    return flow + (len(text) if len(text) <= MAX_DEPTH else _longest_line(text))


def _longest_line(text: str) -> int:
    return max(map(len, text.split("\n")))


def check_scanner_depth(text: str) -> None:
    """go-yaml v2's scanner refuses flow collections or block indentation nested over
    10000 deep ("exceeded max depth of 10000"); libyaml has no such limit."""
    if text.count("[") + text.count("{") <= MAX_DEPTH and (
        len(text) <= MAX_DEPTH or _longest_line(text) <= MAX_DEPTH
    ):
        return
    from yaml import tokens

    flow_start = (tokens.FlowSequenceStartToken, tokens.FlowMappingStartToken)
    flow_end = (tokens.FlowSequenceEndToken, tokens.FlowMappingEndToken)
    block_start = (tokens.BlockSequenceStartToken, tokens.BlockMappingStartToken)
    scanner = CParser(text)
    flow = block = 0
    try:
        while True:
            token = scanner.get_token()
            if token is None or isinstance(token, tokens.StreamEndToken):
                return
            if isinstance(token, flow_start):
                flow += 1
                if flow > MAX_DEPTH:
                    _raise_depth(token)
            elif isinstance(token, flow_end):
                flow = max(flow - 1, 0)
            elif isinstance(token, block_start):
                block += 1
                if block > MAX_DEPTH:
                    _raise_depth(token)
            elif isinstance(token, tokens.BlockEndToken):
                block -= 1
    except YAMLError:
        return  # the parse that follows reports it
    finally:
        scanner.dispose()


def _raise_depth(token: Any) -> None:
    line = token.start_mark.line  # go-yaml: a scanner error's line, counted from 1; none on line 1
    where = f"line {line + 1}: " if line else ""
    raise GoYAMLError(f"yaml: {where}exceeded max depth of {MAX_DEPTH}")


def check_json_depth(value: Any) -> None:
    """encoding/json's scanner: a value nested over 10000 deep (counted in json.Marshal's
    order, map keys sorted) fails sigs.k8s.io/yaml's Unmarshal after the YAML decoded."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = [item[k] for k in sorted(item, reverse=True)]
        elif isinstance(item, list):
            children = list(reversed(item))
        else:
            continue
        if depth > MAX_DEPTH:
            char = "{" if isinstance(item, dict) else "["
            raise GoYAMLError(
                f"while decoding JSON: invalid character '{char}' exceeded max depth",
                stage="error unmarshaling JSON",
            )
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def _first_non_finite(value: Any) -> Any:
    """The NaN or Inf json.Marshal meets first (it writes map keys sorted), else None."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return value
    children = [value[k] for k in sorted(value)] if isinstance(value, dict) else value
    if isinstance(children, list):
        for child in children:
            found = _first_non_finite(child)
            if found is not None:
                return found
    return None


def _go_syntax(value: Any, nested: bool = False) -> str:
    """A small `%#v` for go-yaml values in error texts."""
    if value is None:
        return "interface {}(nil)" if nested else "<nil>"
    if isinstance(value, str):
        from runner.golang.strconv import quote

        return quote(value)
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_syntax(v, True) for v in value) + "}"
    if isinstance(value, dict):
        ordered = sorted(value.items(), key=lambda kv: (not isinstance(kv[0], str), str(kv[0])))
        items = ", ".join(f"{_go_syntax(k, True)}:{_go_syntax(v, True)}" for k, v in ordered)
        return "map[interface {}]interface {}{" + items + "}"
    if isinstance(value, float):
        return format_float(value, "g", -1, 64)
    return str(value)


def _nodes(text: str, first_only: bool) -> list[Any]:
    """Node trees of the documents (or just the first), parsed as go-yaml v2 would."""
    check_scanner_depth(text)  # before libyaml's composer recurses (in C) that deep
    if goscan.needs_go_scanner(text):
        return _go_nodes(text, first_only)
    if "!" in text and _NON_SPECIFIC_TAG.search(text):  # the find is ~50x faster
        nodes = _event_nodes(text, first_only)  # sees a "!" tag libyaml's composer hides
    else:
        nodes = _libyaml_nodes(text, first_only)
    if goscan.may_split_on_question_mark(text) and goscan.has_flow_plain_question_mark(nodes):
        return _go_nodes(text, first_only)
    return nodes


# "! 2": go-yaml gives the non-specific tag's value as a string.
_NON_SPECIFIC_TAG = LazyPattern(r"(?:^|[\s\[{,])!(?=[\s\]},]|$)", re.M)


def _libyaml_nodes(text: str, first_only: bool) -> list[Any]:
    composer = _Composer(text)
    try:
        nodes = []
        while composer.check_node():
            nodes.append(composer.get_node())
            if first_only:
                break
        return nodes
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or ""
        if isinstance(exc, MarkedYAMLError) and goscan.differs_after_error(problem):
            return _go_nodes(text, first_only)
        if "duplicate anchor" in (getattr(exc, "context", None) or "") + problem:
            return _event_nodes(text, first_only)
        raise GoYAMLError(error_text(exc, text)) from None
    finally:
        composer.dispose()


def _event_nodes(text: str, first_only: bool) -> list[Any]:
    parser = _Composer(text)
    try:
        return goscan.compose_events(parser, first_only)
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or ""
        if isinstance(exc, MarkedYAMLError) and goscan.differs_after_error(problem):
            return _go_nodes(text, first_only)
        raise GoYAMLError(error_text(exc, text)) from None
    finally:
        parser.dispose()


def _go_nodes(text: str, first_only: bool) -> list[Any]:
    try:
        return goscan.compose(text, first_only)
    except MarkedYAMLError as exc:
        exc.problem = goscan.libyaml_problem(exc)
        raise GoYAMLError(error_text(exc, text)) from None
