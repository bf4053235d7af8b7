"""Where go-yaml v2's scanner differs from libyaml 0.2.5 (PyYAML's C parser).

go-yaml v2 ported an older libyaml and then changed it. For a few inputs the
two disagree, and goyaml.load takes this slower pure-Python route instead:

- a plain scalar in flow context ends at any of `,?[]{}` (so `[http://x?y=1]`
  is an error), and a ':' inside it is text unless a blank follows (libyaml
  0.2.5 rejects `[b:]` with "found unexpected ':'", go-yaml reads "b:");
- in double-quoted scalars go-yaml accepts the escape `\\'` and rejects `\\/`.

PyYAML's pure-Python scanner is close to the old behaviour; `_GoScanner`
adjusts the rest, and error texts are put in libyaml's words. It is used
only when libyaml's reading shows one of these cases (it has differences of
its own elsewhere, e.g. tabs in flow context).
"""

from __future__ import annotations

import yaml
from yaml.composer import Composer
from yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner
from yaml.tokens import ScalarToken

from runner.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_BLANKZ = "\0 \t\r\n\x85\u2028\u2029"


def needs_go_scanner(text: str) -> bool:
    """Go-only escapes: libyaml's result can't show a `\\/` was there."""
    return "\\/" in text


def may_split_on_question_mark(text: str) -> bool:
    return "?" in text and ("[" in text or "{" in text)


def has_flow_plain_question_mark(nodes: list[Any]) -> bool:
    """A plain scalar with '?' inside [...] or {...}: go-yaml ends the scalar there."""
    seen: set[int] = set()
    stack = [(node, False) for node in nodes]
    while stack:
        node, in_flow = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if in_flow and node.tag == "?" and "?" in node.value:
                return True
            continue
        in_flow = in_flow or bool(node.flow_style)
        if isinstance(node.value, list) and node.value and isinstance(node.value[0], tuple):
            stack.extend((part, in_flow) for pair in node.value for part in pair)
        else:
            stack.extend((child, in_flow) for child in node.value)
    return False


def differs_after_error(problem: str) -> bool:
    """libyaml rejected the text for a reason go-yaml may not share."""
    return problem.startswith(("found unexpected ':'", "found unknown escape character"))


class _GoScanner(Scanner):
    ESCAPE_REPLACEMENTS = {
        **{k: v for k, v in Scanner.ESCAPE_REPLACEMENTS.items() if k != "/"},
        "'": "'",
    }

    def _plain_length(self) -> int:
        """Characters up to go-yaml's end of a plain scalar's next chunk."""
        length = 0
        while True:
            ch = self.peek(length)
            if ch in _BLANKZ:
                return length
            if ch == ":" and self.peek(length + 1) in _BLANKZ:
                return length
            if self.flow_level and ch in ",?[]{}":
                return length
            length += 1

    def scan_plain(self) -> ScalarToken:
        chunks: list[str] = []
        start_mark = end_mark = self.get_mark()
        indent = self.indent + 1
        spaces: list[str] = []
        while self.peek() != "#":
            length = self._plain_length()
            if length == 0:
                break
            self.allow_simple_key = False
            chunks.extend(spaces)
            chunks.append(self.prefix(length))
            self.forward(length)
            end_mark = self.get_mark()
            spaces = self.scan_plain_spaces(indent, start_mark)
            if not spaces or self.peek() == "#" or (not self.flow_level and self.column < indent):
                break
        return ScalarToken("".join(chunks), True, start_mark, end_mark)


class _GoLoader(Reader, _GoScanner, Parser, Composer, BaseResolver):
    def __init__(self, text: str) -> None:
        Reader.__init__(self, text)
        _GoScanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        BaseResolver.__init__(self)

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            return "?" if implicit[0] else "!"
        return ""


def compose(text: str, first_only: bool) -> list[Any]:
    """The documents' node trees, go-yaml's way; raises yaml.MarkedYAMLError."""
    loader = _GoLoader(text)
    try:
        nodes = []
        while loader.check_node():
            nodes.append(loader.get_node())
            if first_only:
                break
        return nodes
    finally:
        loader.dispose()


_PROBLEMS = (
    (
        LazyPattern(r"expected escape sequence of \d+ hexadecimal numbers, but found .*"),
        "did not find expected hexdecimal number",
    ),
    (LazyPattern(r"expected ' ', but found .*"), "did not find expected whitespace or line break"),
    (LazyPattern(r"expected ',' or '([\]}])', but got .*"), r"did not find expected ',' or '\1'"),
    (LazyPattern(r"expected the node content, but found .*"), "did not find expected node content"),
    (LazyPattern(r"found unknown escape character .*"), "found unknown escape character"),
    (
        LazyPattern(r"found character .* that cannot start any token"),
        "found character that cannot start any token",
    ),
    (
        LazyPattern(r"mapping values are not allowed here"),
        "mapping values are not allowed in this context",
    ),
)


def libyaml_problem(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's wording of a problem in libyaml's (as go-yaml reports it)."""
    problem = exc.problem or ""
    for pattern, replacement in _PROBLEMS:
        if pattern.fullmatch(problem):
            return pattern.sub(replacement, problem)
    if problem.startswith("expected <block end>"):
        context = exc.context or ""
        return (
            "did not find expected '-' indicator"
            if "collection" in context
            else "did not find expected key"
        )
    return problem


def compose_events(parser: Any, first_only: bool) -> list[Any]:
    """Node trees built from a parser's events, anchors as go-yaml keeps them.

    go-yaml lets a later `&x` replace an earlier one (an alias takes the most
    recent); PyYAML's composers reject the second as a duplicate anchor.
    """
    nodes = []
    parser.get_event()  # stream start
    while not parser.check_event(yaml.StreamEndEvent):
        parser.get_event()  # document start
        anchors: dict[str, Any] = {}
        nodes.append(_compose(parser, anchors))
        parser.get_event()  # document end
        if first_only:
            break
    return nodes


def _compose(parser: Any, anchors: dict[str, Any]) -> Any:
    event = parser.get_event()
    if isinstance(event, AliasEvent):
        if event.anchor not in anchors:
            raise yaml.composer.ComposerError(
                None, None, f"found undefined alias {event.anchor!r}", event.start_mark
            )
        return anchors[event.anchor]
    # Each node keeps its event's marks, as libyaml's composer does: a diff finds a
    # changed field's line through them (runner.diff.compute).
    if isinstance(event, ScalarEvent):
        plain = event.tag is None and event.implicit[0]  # "! x" is a string for go-yaml
        tag = "?" if plain else ("!" if event.tag in (None, "!") else event.tag)
        node: Any = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
    elif isinstance(event, SequenceStartEvent):
        node = SequenceNode("", [], event.start_mark, event.end_mark, flow_style=event.flow_style)
    elif isinstance(event, MappingStartEvent):
        node = MappingNode("", [], event.start_mark, event.end_mark, flow_style=event.flow_style)
    else:
        raise yaml.composer.ComposerError(None, None, f"unexpected event {event}", None)
    if event.anchor is not None:
        anchors[event.anchor] = node
    if isinstance(node, SequenceNode):
        while not parser.check_event(yaml.SequenceEndEvent):
            node.value.append(_compose(parser, anchors))
        node.end_mark = parser.get_event().end_mark
    elif isinstance(node, MappingNode):
        while not parser.check_event(yaml.MappingEndEvent):
            key = _compose(parser, anchors)
            node.value.append((key, _compose(parser, anchors)))
        node.end_mark = parser.get_event().end_mark
    return node
