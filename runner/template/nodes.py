"""Parse-tree nodes of text/template/parse (node.go).

One small class per construct. Every node keeps its byte position in the
template text and prints itself back as template text (`str(node)`), which
is what error messages quote in `at <...>`. Nodes are plain slotted
objects, so trees pickle with the default slot state (restored in C, no
Python call per node).
"""

from __future__ import annotations

from runner.golang.strconv import quote


class Node:
    """Subclasses set `pos` themselves (no super().__init__ call: one node per token)."""

    __slots__ = ("pos",)
    kind = "node"

    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class ListNode(Node):
    __slots__ = ("nodes",)
    kind = "list"

    def __init__(self, pos: int) -> None:
        self.pos = pos
        self.nodes: list[Node] = []

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


class TextNode(Node):
    __slots__ = ("text",)
    kind = "text"

    def __init__(self, pos: int, text: str) -> None:
        self.pos = pos
        self.text = text

    def __str__(self) -> str:
        return self.text


class CommentNode(Node):
    __slots__ = ("text",)
    kind = "comment"

    def __init__(self, pos: int, text: str) -> None:
        self.pos = pos
        self.text = text

    def __str__(self) -> str:
        return "{{" + self.text + "}}"


class IdentifierNode(Node):
    __slots__ = ("ident",)
    kind = "identifier"

    def __init__(self, pos: int, ident: str) -> None:
        self.pos = pos
        self.ident = ident

    def __str__(self) -> str:
        return self.ident


class VariableNode(Node):
    """$x or $x.Field.Chain: ident[0] is the variable name."""

    __slots__ = ("ident",)
    kind = "variable"

    def __init__(self, pos: int, ident: str) -> None:
        self.pos = pos
        self.ident = ident.split(".")

    def __str__(self) -> str:
        return ".".join(self.ident)


class DotNode(Node):
    __slots__ = ()
    kind = "dot"

    def __str__(self) -> str:
        return "."


class NilNode(Node):
    __slots__ = ()
    kind = "nil"

    def __str__(self) -> str:
        return "nil"


class FieldNode(Node):
    """.Field.Chain: ident holds the names without dots."""

    __slots__ = ("ident",)
    kind = "field"

    def __init__(self, pos: int, ident: str) -> None:
        self.pos = pos
        self.ident = ident[1:].split(".")  # drop the leading "."

    def __str__(self) -> str:
        return "".join("." + i for i in self.ident)


class ChainNode(Node):
    """A term followed by fields: (pipe).X.Y or fn.X."""

    __slots__ = ("node", "field")
    kind = "chain"

    def __init__(self, pos: int, node: Node) -> None:
        self.pos = pos
        self.node = node
        self.field: list[str] = []

    def add(self, field: str) -> None:
        if not field or field[0] != ".":
            raise ValueError("no dot in field")
        field = field[1:]
        if not field:
            raise ValueError("empty field")
        self.field.append(field)

    def __str__(self) -> str:
        head = str(self.node)
        if isinstance(self.node, PipeNode):
            head = "(" + head + ")"
        return head + "".join("." + f for f in self.field)


class BoolNode(Node):
    __slots__ = ("value",)
    kind = "bool"

    def __init__(self, pos: int, value: bool) -> None:
        self.pos = pos
        self.value = value

    def __str__(self) -> str:
        return "true" if self.value else "false"


class NumberNode(Node):
    """A numeric constant with every Go reading that fits (int64, uint64, float64, complex128)."""

    __slots__ = (
        "text",
        "is_int",
        "is_uint",
        "is_float",
        "is_complex",
        "int64",
        "uint64",
        "float64",
        "complex128",
    )
    kind = "number"

    def __init__(self, pos: int, text: str) -> None:
        self.pos = pos
        self.text = text
        self.is_int = self.is_uint = self.is_float = self.is_complex = False
        self.int64 = 0
        self.uint64 = 0
        self.float64 = 0.0
        self.complex128 = 0j

    def __str__(self) -> str:
        return self.text


class StringNode(Node):
    __slots__ = ("quoted", "text")
    kind = "string"

    def __init__(self, pos: int, quoted: str, text: str) -> None:
        self.pos = pos
        self.quoted = quoted  # the original text, with quotes
        self.text = text

    def __str__(self) -> str:
        return self.quoted


class EndNode(Node):
    __slots__ = ()
    kind = "end"

    def __str__(self) -> str:
        return "{{end}}"


class ElseNode(Node):
    __slots__ = ("line",)
    kind = "else"

    def __init__(self, pos: int, line: int) -> None:
        self.pos = pos
        self.line = line

    def __str__(self) -> str:
        return "{{else}}"


class BreakNode(Node):
    __slots__ = ("line",)
    kind = "break"

    def __init__(self, pos: int, line: int) -> None:
        self.pos = pos
        self.line = line

    def __str__(self) -> str:
        return "{{break}}"


class ContinueNode(Node):
    __slots__ = ("line",)
    kind = "continue"

    def __init__(self, pos: int, line: int) -> None:
        self.pos = pos
        self.line = line

    def __str__(self) -> str:
        return "{{continue}}"


class CommandNode(Node):
    __slots__ = ("args",)
    kind = "command"

    def __init__(self, pos: int) -> None:
        self.pos = pos
        self.args: list[Node] = []

    def __str__(self) -> str:
        parts = []
        for arg in self.args:
            text = str(arg)
            if isinstance(arg, PipeNode):
                text = "(" + text + ")"
            parts.append(text)
        return " ".join(parts)


class PipeNode(Node):
    __slots__ = ("line", "is_assign", "decl", "cmds")
    kind = "pipe"

    def __init__(self, pos: int, line: int) -> None:
        self.pos = pos
        self.line = line
        self.is_assign = False
        self.decl: list[VariableNode] = []
        self.cmds: list[CommandNode] = []

    def __str__(self) -> str:
        text = ""
        if self.decl:
            text = ", ".join(str(v) for v in self.decl) + " := "
        return text + " | ".join(str(c) for c in self.cmds)


class ActionNode(Node):
    __slots__ = ("line", "pipe")
    kind = "action"

    def __init__(self, pos: int, line: int, pipe: PipeNode) -> None:
        self.pos = pos
        self.line = line
        self.pipe = pipe

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


class BranchNode(Node):
    """Shared shape of if, range and with."""

    __slots__ = ("line", "pipe", "list", "else_list")
    keyword = ""

    def __init__(
        self, pos: int, line: int, pipe: PipeNode, lst: ListNode, else_list: ListNode | None
    ) -> None:
        self.pos = pos
        self.line = line
        self.pipe = pipe
        self.list = lst
        self.else_list = else_list

    def __str__(self) -> str:
        text = "{{" + self.keyword + " " + str(self.pipe) + "}}" + str(self.list)
        if self.else_list is not None:
            text += "{{else}}" + str(self.else_list)
        return text + "{{end}}"


class IfNode(BranchNode):
    __slots__ = ()
    kind = "if"
    keyword = "if"


class RangeNode(BranchNode):
    __slots__ = ()
    kind = "range"
    keyword = "range"


class WithNode(BranchNode):
    __slots__ = ()
    kind = "with"
    keyword = "with"


class TemplateNode(Node):
    __slots__ = ("line", "name", "pipe")
    kind = "template"

    def __init__(self, pos: int, line: int, name: str, pipe: PipeNode | None) -> None:
        self.pos = pos
        self.line = line
        self.name = name
        self.pipe = pipe

    def __str__(self) -> str:
        if self.pipe is None:
            return "{{template " + quote(self.name) + "}}"
        return "{{template " + quote(self.name) + " " + str(self.pipe) + "}}"


def is_empty_tree(node: Node | None) -> bool:
    """parse.IsEmptyTree: nothing but space or comments."""
    if node is None or isinstance(node, CommentNode):
        return True
    if isinstance(node, ListNode):
        return all(is_empty_tree(n) for n in node.nodes)
    if isinstance(node, TextNode):
        return node.text.strip(" \t\n\r\v\f\x85\xa0") == ""
    return False


def last_evaluated(node: Node) -> Node:
    """The node Go's executor last marked (state.at) after evaluating `node`.

    Errors raised after an argument or pipeline was evaluated (a wrong
    argument type, a range over a non-iterable) are reported at that node.
    """
    if isinstance(node, PipeNode):
        return last_evaluated(node.cmds[-1]) if node.cmds else node
    if isinstance(node, CommandNode):
        first = node.args[0]
        if len(node.args) > 1 and isinstance(first, (IdentifierNode, FieldNode, VariableNode, ChainNode)):
            return last_evaluated(node.args[-1])
        return last_evaluated(first)
    if isinstance(node, ChainNode):
        return last_evaluated(node.node)
    return node
