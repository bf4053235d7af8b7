"""The YAML round trip Helm's post-rendering puts manifests through.

Helm 4 merges rendered files with sigs.k8s.io/kustomize/kyaml (`kio.ParseAll`,
`kio.StringAll`): each document is decoded into go-yaml v3 nodes, annotated,
and encoded again with go-yaml v3's encoder (indent 2, sequences inside
mappings not indented, no line folding). Scalar and collection styles
survive; layout, indentation and most blank lines do not. This module does
the same on libyaml's events.

Comments are kept where go-yaml v3 keeps them, for the placements compared
with Helm (see _Comments): above an entry, after a value on its line, after
the last entries of a collection, at the document's end. Anchors, aliases and
explicit tags are written back as they were (tags in short form; a `<<` key
as go-yaml v3 spells it, `!!merge <<`). Documents with aliases as keys,
comments inside flow collections or on a block scalar's header, or other
comment placements are refused (`Unsupported`): a different byte is worse
than a clear refusal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from yaml import YAMLError, events
from yaml._yaml import CParser

from runner.encoding.yamlemit import _Emitter, _is_simple_key
from runner.encoding.yamlerrors import error_text
from runner.encoding.yamlstyle import (
    BREAKS,
    DOUBLE,
    LITERAL,
    PLAIN,
    SINGLE,
    _indicators,
    analyze,
)

SCALAR, MAPPING, SEQUENCE, ALIAS = "ScalarNode", "MappingNode", "SequenceNode", "AliasNode"
FOLDED = LITERAL + 1
_STYLES = {None: PLAIN, "": PLAIN, "'": SINGLE, '"': DOUBLE, "|": LITERAL, ">": FOLDED}
_SEPARATOR = re.compile(r"\n---[^\n]*\n")
_COMMENT = re.compile(r"(?:^|(?<=[ \t\n]))#")
# kio's reader annotations: set on every document read, removed on writing.
READER_ANNOTATIONS = ("config.kubernetes.io/index", "internal.config.kubernetes.io/index")


class KyamlError(ValueError):
    """kyaml's error text (e.g. `MalformedYAMLError: yaml: line 1: ...`)."""


class Unsupported(KyamlError):
    """A document this module cannot round-trip byte for byte as go-yaml v3 does."""


@dataclass(slots=True)
class Node:
    """A go-yaml v3 node: a scalar's text and style, or a collection's content."""

    kind: str
    value: str = ""  # a scalar's text, an alias's anchor name
    style: int = PLAIN
    flow: bool = False
    null: bool = False  # a plain scalar that resolves to null (`~`, `null`, nothing)
    content: list[Node] = field(default_factory=list)  # mappings: key, value, key, value...
    line: int = 0  # where it starts in the source (0-based)
    anchor: str = ""
    tag: str = ""  # an explicit tag as go-yaml v3 writes it (`!!str`, `!custom`)
    head: list[str] = field(default_factory=list)  # comment lines before it ("" a blank line)
    comment: str = ""  # the comment after it on its line
    foot: list[str] = field(default_factory=list)  # comment lines after an entry (key or item);
    # on a document's root, the comment lines after a blank line at its end

    def field(self, name: str) -> Node | None:
        for i in range(0, len(self.content) - 1, 2):
            if self.content[i].value == name:
                return self.content[i + 1]
        return None


# ------------------------------------------------------------ reading


def parse_all(text: str) -> list[Node]:
    """kio.ParseAll: the non-empty documents of a stream, `List`s unwrapped."""
    values = split_documents(text.replace("\r\n", "\n"))
    nodes: list[Node] = []
    for i, value in enumerate(values):
        if i != len(values) - 1:
            value += "\n"
        node = _decode_first(value)
        if node is None or (node.kind == SCALAR and node.null):
            continue
        for key in READER_ANNOTATIONS:
            set_annotation(node, key, str(len(nodes)))
        items = node.field("items")
        if len(values) == 1 and _meta_field(node, "kind") in ("List", "ResourceList") and items is not None:
            nodes.extend(items.content)  # kio unwraps a lone List into its items
            continue
        nodes.append(node)
    return nodes


def split_documents(text: str) -> list[str]:
    """kio's splitDocuments: cut at `---` lines, which may carry only a comment."""
    if not text:
        return []
    docs: list[str] = []
    prev = 0
    for match in _SEPARATOR.finditer(text):
        rest = match.group()[4:].strip()
        if rest and not rest.startswith("#"):
            raise KyamlError(f"invalid document separator: {match.group().strip()}")
        docs.append(text[prev:match.start()])
        prev = match.end()
    docs.append(text[prev:])
    return docs


def _meta_field(node: Node, name: str) -> str:
    value = node.field(name) if node.kind == MAPPING else None
    return value.value if value is not None and value.kind == SCALAR else ""


def _decode_first(text: str) -> Node | None:
    """yaml.v3 Decoder.Decode: the first document, or None for none or an empty one."""
    parser = CParser(text)
    try:
        builder = _Builder(text)
        return builder.document(parser)
    except YAMLError as exc:
        raise KyamlError(f"MalformedYAMLError: {error_text(exc, text)}") from None
    finally:
        parser.dispose()


def _short_tag(tag: str | None) -> str:
    """`tag:yaml.org,2002:str` as `!!str`; other tags as written."""
    if not tag:
        return ""
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag


class _Builder:
    """Nodes from libyaml events, refusing what the encoder here cannot reproduce."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[tuple[int, int]] = []  # scalars: a '#' inside is text
        self.flow_spans: list[tuple[int, int]] = []  # flow collections: comments inside are refused
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.stack: list[tuple[int, Node]] = []  # open block collections: (column, node)
        self.anchors: set[str] = set()
        self.comments = _Comments(text)

    def document(self, parser: CParser) -> Node | None:
        event = parser.get_event()  # StreamStart
        event = parser.get_event()
        if isinstance(event, events.StreamEndEvent):
            return None
        root = self.node(parser, parser.get_event())
        parser.get_event()  # DocumentEnd
        self.comments.place(root, self.spans, self.flow_spans)
        return root

    def offset(self, mark: Any) -> int:
        return self.line_starts[mark.line] + mark.column

    def node(self, parser: CParser, event: Any) -> Node:
        if isinstance(event, events.AliasEvent):
            if event.anchor not in self.anchors:
                raise KyamlError(f"MalformedYAMLError: yaml: unknown anchor '{event.anchor}' referenced")
            alias = Node(ALIAS, event.anchor, line=event.start_mark.line)
            self.ends(alias, event.start_mark, event.end_mark)
            return alias
        if isinstance(event, events.ScalarEvent):
            return self.scalar(event)
        if event.anchor:
            self.anchors.add(event.anchor)
        kind = MAPPING if isinstance(event, events.MappingStartEvent) else SEQUENCE
        node = Node(kind, flow=bool(event.flow_style), line=event.start_mark.line, anchor=event.anchor or "",
                    tag="" if event.implicit else _short_tag(event.tag))
        if not node.flow:
            self.stack.append((event.start_mark.column, node))
        end = events.MappingEndEvent if kind == MAPPING else events.SequenceEndEvent
        while not isinstance(item := parser.get_event(), end):
            child = self.node(parser, item)
            if not node.flow and (kind == SEQUENCE or len(node.content) % 2 == 0):
                self.comments.entry(child, len(self.stack))
            node.content.append(child)
        if node.flow:
            self.flow_spans.append((self.offset(event.start_mark), self.offset(item.end_mark)))
            self.ends(node, event.start_mark, item.end_mark)
        else:
            self.stack.pop()
        return node

    def scalar(self, event: events.ScalarEvent) -> Node:
        if event.anchor:
            self.anchors.add(event.anchor)
        style = _STYLES[event.style]
        null = style == PLAIN and event.value in ("", "~", "null", "Null", "NULL")
        explicit = event.tag is not None and event.tag != "!" and not any(event.implicit)
        node = Node(SCALAR, event.value, style, null=null and not explicit, line=event.start_mark.line,
                    anchor=event.anchor or "", tag=_short_tag(event.tag) if explicit else "")
        start = self.offset(event.start_mark)
        self.spans.append((start, self.offset(event.end_mark)))
        if style >= LITERAL and _COMMENT.search(self.text, start, self.text.find("\n", start) % (len(self.text) + 1)):
            raise Unsupported("YAML comments in this position")  # on a block scalar's header line
        self.ends(node, event.start_mark, event.end_mark)
        return node

    def ends(self, node: Node, start: Any, end: Any) -> None:
        """A scalar or flow collection: a comment after it on its line is its own."""
        last = end.line - 1 if end.column == 0 and end.line > start.line else end.line
        for line in range(start.line, last + 1):
            self.comments.stacks[line] = tuple(self.stack)
        # A comment after a key whose value is a block collection belongs to the key;
        # after a multi-line node it is refused (no entry for that line).
        self.comments.trailing[start.line] = (end.column, node) if last == start.line else (-1, None)


class _Comments:
    """Where go-yaml v3 keeps a document's comments, for the shapes charts write:
    comment lines before an entry (its head), after the last entry of a block
    collection (its foot), and at the end of a line (the node ending there)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.entries: dict[int, tuple[int, Node]] = {}  # line -> (depth, outermost entry starting there)
        self.trailing: dict[int, tuple[int, Node]] = {}  # line -> (end column, node ending there)
        self.stacks: dict[int, tuple[tuple[int, Node], ...]] = {}  # line -> open block collections
        self.root = Node(MAPPING)  # the document's root, once built
        self.commented: set[int] = set()  # lines ending in a comment

    def entry(self, node: Node, depth: int) -> None:
        if node.line not in self.entries or depth < self.entries[node.line][0]:
            self.entries[node.line] = (depth, node)

    def place(self, root: Node, spans: list[tuple[int, int]], flow_spans: list[tuple[int, int]]) -> None:
        self.root = root
        full: list[int] = []
        for match in _COMMENT.finditer(self.text):
            at = match.start()
            if any(start <= at < end for start, end in spans):
                continue
            if any(start <= at < end for start, end in flow_spans):
                raise Unsupported("YAML comments in this position")
            line = self.text.count("\n", 0, at)
            column = at - (self.text.rfind("\n", 0, at) + 1)
            if self.lines[line][:column].strip():
                self.trailing_comment(line, column)
            else:
                full.append(line)
        for block in self.blocks(full):
            self.block(block)

    def trailing_comment(self, line: int, column: int) -> None:
        end_column, node = self.trailing.get(line, (-1, None))
        if node is None or end_column > column:
            raise Unsupported("YAML comments in this position")
        node.comment = self.lines[line][column:]
        self.commented.add(line)

    def blocks(self, comment_lines: list[int]) -> list[list[int]]:
        """Runs of comment lines: adjacent ones, or ones in one column parted by blank lines."""
        blocks: list[list[int]] = []
        for line in comment_lines:
            between = self.lines[blocks[-1][-1] + 1:line] if blocks else None
            if between is not None and all(not text.strip() for text in between) and (
                    not between or self.indent(line) == self.indent(blocks[-1][-1])):
                blocks[-1].append(line)
            else:
                blocks.append([line])
        return blocks

    def block(self, block: list[int]) -> None:
        """Head comment of the next entry, or foot comment of an entry before."""
        groups: list[list[int]] = [[block[0]]]
        for previous, line in zip(block, block[1:], strict=False):
            if line - previous > 2:
                raise Unsupported("YAML comments in this position")
            if line - previous == 2:
                groups.append([])
            groups[-1].append(line)
        texts: list[str] = []
        for group in groups:
            texts += ([""] if texts else []) + [self.lines[line].lstrip() for line in group]
        column = self.indent(block[0])
        after, before = self.next_content(block[-1]), self.previous_content(block[0])
        blank_after = after is not None and self.blank(block[-1] + 1)
        if blank_after and self.blank(block[-1] + 2):
            raise Unsupported("YAML comments in this position")
        if before is None:
            if after is None:
                raise Unsupported("YAML comments in this position")
            self.head(texts + ([""] if blank_after else []), after)
        elif len(groups) > 1:
            if blank_after or after is None or any(self.indent(line) != self.indent(after) for line in block):
                raise Unsupported("YAML comments in this position")
            self.head(texts, after)
        elif after is None and (self.blank(block[0] - 1) or (before in self.commented
                                                             and self.owned_by_root(before, column))):
            if column or self.root.foot:
                raise Unsupported("YAML comments in this position")
            self.root.foot = texts  # the document's own foot comment: written after everything
        elif after is None or blank_after:
            self.foot([""] * self.blank(block[0] - 1) + texts, before, column, after)
        else:
            # Lines indented into a collection that closes here are its foot; the rest head the next entry.
            split = 0
            while split < len(block) and any(self.indent(after) < start <= self.indent(block[split])
                                             for start, _ in self.stacks.get(before, ())):
                split += 1
            if split:
                owner_columns = {self.owner(before, self.indent(line)) for line in block[:split]}
                if len(owner_columns) > 1:
                    raise Unsupported("YAML comments in this position")
                self.foot(texts[:split], before, self.indent(block[0]), after)
            if split < len(block):
                self.head(texts[split:], after)

    def head(self, texts: list[str], after: int) -> None:
        """Comment lines right above an entry, at its indentation."""
        entry = self.entries.get(after)
        if entry is None:
            raise Unsupported("YAML comments in this position")
        entry[1].head = texts

    def foot(self, texts: list[str], before: int, column: int, after: int | None) -> None:
        """Comment lines after the last entry (so far) of the innermost collection not
        indented past them, where it ends or before a blank line and its next entry."""
        owners = [(start, node) for start, node in self.stacks.get(before, ()) if start <= column]
        if not owners:
            raise Unsupported("YAML comments in this position")
        start, owner = owners[-1]
        if after is not None and self.indent(after) > start:
            raise Unsupported("YAML comments in this position")
        entries = owner.content[::2] if owner.kind == MAPPING else owner.content
        earlier = [e for e in entries if e.line <= before]
        entry = earlier[-1] if earlier else None
        if entry is None or entry.foot:
            raise Unsupported("YAML comments in this position")
        entry.foot = texts

    def next_content(self, line: int) -> int | None:
        for i in range(line + 1, len(self.lines)):
            if self.lines[i].strip() and not self.lines[i].lstrip().startswith("#"):
                return i
        return None

    def previous_content(self, line: int) -> int | None:
        for i in range(line - 1, -1, -1):
            if self.lines[i].strip() and not self.lines[i].lstrip().startswith("#"):
                return i
        return None

    def owned_by_root(self, line: int, column: int) -> bool:
        owners = [node for start, node in self.stacks.get(line, ()) if start <= column]
        return bool(owners) and owners[-1] is self.root

    def owner(self, line: int, column: int) -> int:
        """The column of the innermost collection open at `line` not indented past `column`."""
        return max((start for start, _ in self.stacks.get(line, ()) if start <= column), default=-1)

    def blank(self, line: int) -> bool:
        return 0 <= line < len(self.lines) and not self.lines[line].strip()

    def indent(self, line: int) -> int:
        return len(self.lines[line]) - len(self.lines[line].lstrip())


# ------------------------------------------------------------ annotations


def _lookup_create(node: Node, name: str) -> Node:
    """PathGetter with Create: the field's mapping, added (or replacing a null) if missing."""
    _expect_mapping(node)
    for i in range(0, len(node.content) - 1, 2):
        if node.content[i].value == name:
            value = node.content[i + 1]
            if value.kind == SCALAR and value.null:
                value = node.content[i + 1] = Node(MAPPING)
            return value
    value = Node(MAPPING)
    node.content += [Node(SCALAR, name), value]
    return value


def _expect_mapping(node: Node) -> None:
    """yaml.ErrorIfInvalid: a mapping, or null."""
    if node.kind != MAPPING and not node.null:
        raise KyamlError(f"wrong node kind: expected MappingNode but got {node.kind}: "
                         f"node contents:\n{string_all([node])}")


def clear_empty_annotations(node: Node) -> None:
    """yaml.ClearEmptyAnnotations: drop `metadata.annotations`, then `metadata`, when empty or null."""
    _expect_mapping(node)
    metadata = node.field("metadata")
    if metadata is not None:
        _expect_mapping(metadata)
        _clear_if_empty(metadata, "annotations")
    _clear_if_empty(node, "metadata")


def _clear_if_empty(node: Node, name: str) -> None:
    """FieldClearer{IfEmpty: true}: the field goes when its value has no content."""
    for i in range(0, len(node.content) - 1, 2):
        if node.content[i].value == name:
            if not node.content[i + 1].content:
                del node.content[i:i + 2]
            return


def set_annotation(node: Node, key: str, value: str) -> None:
    """yaml.SetAnnotation: a single-quoted value, the path created as needed."""
    clear_empty_annotations(node)
    annotations = _lookup_create(_lookup_create(node, "metadata"), "annotations")
    _expect_mapping(annotations)
    quoted = Node(SCALAR, value, SINGLE)
    for i in range(0, len(annotations.content) - 1, 2):
        if annotations.content[i].value == key:
            annotations.content[i + 1] = quoted
            return
    annotations.content += [Node(SCALAR, key), quoted]


def missing_metadata(node: Node) -> bool:
    """RNode.GetMeta's ErrMissingMetadata: no apiVersion, no kind and no metadata with content."""
    if node.kind != MAPPING:
        return not node.null
    fields = [node.field(name) for name in ("apiVersion", "kind", "metadata")]
    return all(f is None or f.null or (f.kind != SCALAR and not f.content) for f in fields)


def pop_annotation(node: Node, key: str) -> str:
    """The annotation's value ("" when absent), removed as yaml.ClearAnnotation does."""
    _expect_mapping(node)
    metadata = node.field("metadata")
    annotations = metadata.field("annotations") if metadata is not None and metadata.kind == MAPPING else None
    if annotations is None or annotations.kind != MAPPING:
        return ""
    for i in range(0, len(annotations.content) - 1, 2):
        if annotations.content[i].value == key:
            value = annotations.content[i + 1].value
            del annotations.content[i:i + 2]
            return value
    return ""


# ------------------------------------------------------------ writing


def string_all(nodes: list[Node]) -> str:
    """kio.StringAll: reader annotations and empty annotations removed, then go-yaml v3."""
    emitter = _NodeEmitter()
    for i, node in enumerate(nodes):
        if node.kind == MAPPING:
            for key in READER_ANNOTATIONS:
                pop_annotation(node, key)
            clear_empty_annotations(node)
        emitter.document(node, first=i == 0)
    return "".join(emitter.out)


def _ends_with_sequence_foot(value: Node) -> bool:
    return value.kind == SEQUENCE and not value.flow and bool(value.content) and bool(value.content[-1].foot)


class _NodeEmitter(_Emitter):
    """go-yaml v3's emitter on nodes, with kyaml's compact sequence indentation."""

    def __init__(self) -> None:
        super().__init__(v3=True)
        self.flow_level = 0

    def document(self, root: Node, first: bool) -> None:
        self.indent = -1
        if not first:
            self.write_indent()
            self.write_indicator("---", True, False, False)
        self.emit(root, mapping_value=False)
        self.comment_lines(["", *root.foot] if root.foot else [])
        self.indent = -1
        self.write_indent()

    def raise_indent(self, flow: bool) -> None:
        """yaml_emitter_increase_indent with best indent 2 (all indents stay even)."""
        if self.indent < 0:
            self.indent = self.best_indent if flow else 0
        else:
            self.indent += self.best_indent

    def emit(self, node: Node, mapping_value: bool, simple_key: bool = False) -> None:
        if node.anchor:
            self.write_indicator("&" + node.anchor, True, False, False)
        if node.tag:
            self.write_indicator(node.tag, True, False, False)
        if node.kind == ALIAS:
            self.write_indicator("*" + node.value, True, False, False)
        elif node.kind == SCALAR:
            if node.value == "<<" and node.style == PLAIN and not node.tag:
                self.write_indicator("!!merge", True, False, False)  # go-yaml v3 spells out the merge tag
            saved = self.indent
            self.raise_indent(True)
            self.scalar(node, simple_key)
            self.indent = saved
        elif self.flow_level or node.flow or not node.content:
            self.flow_collection(node)
        elif node.kind == MAPPING:
            self.block_mapping(node)
        else:
            compact = mapping_value and (self.column == 0 or not self.indention)
            self.block_sequence(node, compact)
        if node.comment and not simple_key:
            self.put(" " + node.comment)

    def block_sequence(self, node: Node, compact: bool) -> None:
        saved = self.indent
        if not compact or self.indent < 0:
            self.raise_indent(False)
        for i, item in enumerate(node.content):
            self.comment_lines(item.head)
            self.write_indent()
            self.write_indicator("-", True, False, True)
            self.emit(item, mapping_value=False)
            self.foot_lines(item.foot, last=i == len(node.content) - 1)
        self.indent = saved

    def block_mapping(self, node: Node) -> None:
        saved = self.indent
        self.raise_indent(False)
        for i in range(0, len(node.content), 2):
            key, value = node.content[i], node.content[i + 1]
            self.comment_lines(key.head)
            self.write_indent()
            if self.simple_key(key):
                self.emit(key, mapping_value=False, simple_key=True)
                self.write_indicator(":", False, False, False)
                if key.comment:
                    self.put(" " + key.comment)
            else:
                if key.comment:
                    raise Unsupported("YAML comments in this position")
                self.write_indicator("?", True, False, True)
                self.emit(key, mapping_value=False)
                self.write_indent()
                self.write_indicator(":", True, False, True)
            self.emit(value, mapping_value=True)
            last = i + 2 >= len(node.content)
            self.foot_lines(key.foot, last)
            if not last and _ends_with_sequence_foot(value):
                self.put_break()  # go-yaml v3 parts a list's closing comment from the next key
        self.indent = saved

    def comment_lines(self, lines: list[str]) -> None:
        """Whole-line comments at the current indentation; "" is a blank line."""
        for line in lines:
            if line:
                self.write_indent()
                self.put(line)
            elif self.column:
                self.put_break()  # end the line the blank one follows
            self.put_break()
            self.indention = self.whitespace = True

    def foot_lines(self, lines: list[str], last: bool) -> None:
        """Comments after an entry; a blank line parts them from a following entry."""
        self.comment_lines(lines)
        if lines and not last:
            self.put_break()

    def flow_collection(self, node: Node) -> None:
        mapping = node.kind == MAPPING
        self.write_indicator("{" if mapping else "[", True, True, False)
        saved = self.indent
        self.raise_indent(True)
        self.flow_level += 1
        step = 2 if mapping else 1
        for i in range(0, len(node.content), step):
            if i:
                self.write_indicator(",", False, False, False)
            if self.column == 0:
                self.write_indent()
            if not mapping:
                self.emit(node.content[i], mapping_value=False)
                continue
            key = node.content[i]
            if self.simple_key(key):
                self.emit(key, mapping_value=False, simple_key=True)
                self.write_indicator(":", False, False, False)
            else:
                self.write_indicator("?", True, False, False)
                self.emit(key, mapping_value=False)
                self.write_indicator(":", True, False, False)
            self.emit(node.content[i + 1], mapping_value=True)
        self.flow_level -= 1
        self.indent = saved
        if self.column == 0:
            self.write_indent()
        self.write_indicator("}" if mapping else "]", False, False, False)

    @staticmethod
    def simple_key(key: Node) -> bool:
        """yaml_emitter_check_simple_key: short one-line scalars and empty collections."""
        if key.kind == ALIAS:
            raise Unsupported("aliases as mapping keys")
        if key.kind != SCALAR:
            return not key.content
        return _is_simple_key(key.value)

    def scalar(self, node: Node, simple_key: bool) -> None:
        style = self.select_style(node, simple_key)
        value = node.value
        if style == PLAIN:
            if value and not self.whitespace:
                self.put(" ")
            self.put(value)
            self.whitespace = self.indention = False
        elif style == SINGLE:
            self.single_quoted(value, not simple_key)
        elif style == DOUBLE:
            self.double_quoted(value, not simple_key)
        elif style == LITERAL:
            self.literal(value)
        else:
            self.folded(value)

    def select_style(self, node: Node, simple_key: bool) -> int:
        """encode.go's choice from the node, then yaml_emitter_select_scalar_style."""
        value = node.value
        style = node.style
        if style == PLAIN and "\n" in value:
            style = LITERAL
        _, block_plain, single_ok, block_ok, multiline = analyze(value, True) if value else (
            DOUBLE, True, True, False, False)
        if simple_key and multiline:
            style = DOUBLE
        if style == PLAIN:
            flow_plain = bool(value) and block_plain and not _indicators(value)[0]
            if (self.flow_level and not flow_plain) or (not self.flow_level and not block_plain):
                style = SINGLE
            if not value and (self.flow_level or simple_key):
                style = SINGLE
        if style == SINGLE and not single_ok:
            style = DOUBLE
        if style in (LITERAL, FOLDED) and (not block_ok or self.flow_level or simple_key):
            style = DOUBLE
        return style

    def folded(self, s: str) -> None:
        """yaml_emitter_write_folded_scalar (go-yaml v3, its look-ahead quirk included)."""
        self.block_header(">", s)
        self.indention = self.whitespace = True
        breaks = leading_spaces = True
        # go-yaml looks past line breaks from the start of the value, not from i.
        first_text = len(s) - len(s.lstrip(BREAKS))
        blank_start = first_text == len(s) or s[first_text] in " \t\x00" + BREAKS
        for c in s:
            if c in BREAKS:
                if not breaks and not leading_spaces and c == "\n" and not blank_start:
                    self.put_break()
                self.write_break(c)
                self.indention = breaks = True
            else:
                if breaks:
                    self.write_indent()
                    leading_spaces = c in " \t"
                self.put(c)
                self.indention = breaks = False
