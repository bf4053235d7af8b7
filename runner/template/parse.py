"""Recursive-descent parser of text/template/parse (parse.go).

`parse_text(name, text, funcs)` returns every tree the text defines (the
file itself under `name`, plus each `define`/`block`), or raises ParseError
with Go's message. One method per grammar rule, as in Go; the three-token
lookahead and the `token[0].line` used in error messages follow Go exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Container

from runner.golang.strconv import quote, unquote
from runner.template.errors import ParseError
from runner.template.lex import Item, T, item_text, lex
from runner.template.nodes import (
    ActionNode,
    BoolNode,
    BreakNode,
    ChainNode,
    CommandNode,
    ContinueNode,
    DotNode,
    ElseNode,
    EndNode,
    FieldNode,
    IdentifierNode,
    IfNode,
    ListNode,
    NilNode,
    Node,
    NumberNode,
    PipeNode,
    RangeNode,
    StringNode,
    TemplateNode,
    TextNode,
    VariableNode,
    WithNode,
    is_empty_tree,
)
from runner.template.numbers import parse_number

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import NoReturn

MAX_STACK_DEPTH = 10000
_SPACE = T.SPACE
MAX_PIPELINE_CMDS = 100000


class Tree:
    """One parsed template: its name, the file it came from, and its root list."""

    __slots__ = ("name", "parse_name", "root", "text", "compiled", "__weakref__")

    def __init__(self, name: str, parse_name: str, text: str) -> None:
        self.name = name
        self.parse_name = parse_name  # name of the top-level template, for errors
        self.root: ListNode | None = None
        self.text = text
        self.compiled: object | None = None  # runtime's compiled form, never pickled

    def __getstate__(self) -> dict[str, object]:
        return {
            "name": self.name,
            "parse_name": self.parse_name,
            "root": self.root,
            "text": self.text,
        }

    def __setstate__(self, state: dict[str, object]) -> None:
        for key, value in state.items():
            setattr(self, key, value)
        self.compiled = None

    def error_context(self, node: Node) -> tuple[str, str]:
        """parse.Tree.ErrorContext: ("NAME:LINE:COL", node text); COL counts bytes from 0."""
        data = self.text.encode("utf-8", "surrogatepass")  # as lex counts positions
        before = data[: node.pos]
        newline = before.rfind(b"\n")
        col = node.pos if newline < 0 else node.pos - newline - 1
        line = 1 + before.count(b"\n")
        return f"{self.parse_name}:{line}:{col}", str(node)


class ParseResult:
    """Trees of one parsed text, plus the functions it names (checked per function set)."""

    __slots__ = ("trees", "idents")

    def __init__(self, trees: dict[str, Tree], idents: list[tuple[str, int]]) -> None:
        self.trees = trees
        self.idents = idents  # (function name, line of the error Go would report)


class _Shared:
    """State shared by the tree being parsed and the define/block trees inside it."""

    def __init__(self, name: str, text: str, items: list[Item]) -> None:
        self.parse_name = name
        self.text = text
        # Every rule stops within a few reads of EOF or ERROR; the copies let
        # those reads go past the end and see that last item again.
        self.items = items + [items[-1]] * _PAST_END
        self.tree_set: dict[str, Tree] = {}
        self.idents: list[tuple[str, int]] = []


_PAST_END = 8


class _Parser:
    """parse.Tree's parsing state for one tree.

    Go keeps up to three tokens of lookahead and reports an error at the line
    of token[0], the last item this tree took from the lexer. Here all items
    are read already: `i` is the next one, backing up moves it back, and
    `seen` (kept up to date when `i` moves back or a peek looks ahead) is how
    far this parser has read, so token[0] is items[max(seen, i) - 1].
    """

    def __init__(self, shared: _Shared, tree: Tree, start: int) -> None:
        self.sh = shared
        self.items = shared.items
        self.tree = tree
        self.i = start
        self.seen = start
        self.vars = ["$"]
        self.action_line = 0
        self.range_depth = 0
        self.stack_depth = 0

    # ---------------------------------------------------------- tokens

    def next(self) -> Item:
        item = self.items[self.i]
        self.i += 1
        return item

    def backup(self) -> None:
        if self.i > self.seen:
            self.seen = self.i
        self.i -= 1

    def rewind(self, i: int) -> None:
        """Read again from item i (also Go's backup2 and backup3)."""
        if self.i > self.seen:
            self.seen = self.i
        self.i = i

    def peek(self) -> Item:
        i = self.i
        if i >= self.seen:
            self.seen = i + 1
        return self.items[i]

    def next_non_space(self) -> Item:
        items = self.items
        item = items[self.i]
        self.i += 1
        while item[0] == _SPACE:
            item = items[self.i]
            self.i += 1
        return item

    def peek_non_space(self) -> Item:
        """The next item that is not a space; the spaces before it are read."""
        items = self.items
        i = self.i
        item = items[i]
        while item[0] == _SPACE:
            i += 1
            item = items[i]
        self.i = i
        if i >= self.seen:
            self.seen = i + 1
        return item

    def token_line(self) -> int:
        """The line of Go's token[0]: the furthest item this parser has read."""
        return self.items[max(self.seen, self.i) - 1][3]

    # ---------------------------------------------------------- errors

    def errorf(self, msg: str) -> NoReturn:
        raise ParseError(self.sh.parse_name, self.token_line(), msg)

    def expect(self, expected: int, context: str) -> Item:
        token = self.next_non_space()
        if token[0] != expected:
            self.unexpected(token, context)
        return token

    def expect_one_of(self, e1: int, e2: int, context: str) -> Item:
        token = self.next_non_space()
        if token[0] not in (e1, e2):
            self.unexpected(token, context)
        return token

    def unexpected(self, token: Item, context: str) -> NoReturn:
        typ, _, val, line = token
        if typ == T.ERROR:
            extra = ""
            if self.action_line != 0 and self.action_line != line:
                extra = f" in action started at {self.sh.parse_name}:{self.action_line}"
                if val.endswith(" action"):
                    extra = extra[len(" in action") :]
            self.errorf(f"{val}{extra}")
        self.errorf(f"unexpected {item_text(token)} in {context}")

    # ------------------------------------------------------- top level

    def add(self) -> None:
        tree = self.sh.tree_set.get(self.tree.name)
        if tree is None or is_empty_tree(tree.root):
            self.sh.tree_set[self.tree.name] = self.tree
            return
        if not is_empty_tree(self.tree.root):
            self.errorf(f"template: multiple definition of template {quote(self.tree.name)}")

    def parse(self) -> None:
        """The top level: like item_list, but also takes {{define}} and runs to EOF."""
        root = self.tree.root = ListNode(self.peek()[1])
        while (typ := self.peek()[0]) != T.EOF:
            if typ == T.LEFT_DELIM:
                delim = self.i
                self.i += 1
                if self.next_non_space()[0] == T.DEFINE:
                    sub = _Parser(self.sh, Tree("definition", self.sh.parse_name, self.sh.text), self.i)
                    sub.parse_definition()
                    self.i = sub.i
                    continue
                self.rewind(delim)
            node = self.text_or_action(self.peek_non_space())
            if isinstance(node, (EndNode, ElseNode)):
                self.errorf(f"unexpected {node}")
            root.nodes.append(node)

    def parse_definition(self) -> None:
        context = "define clause"
        name = self.expect_one_of(T.STRING, T.RAW_STRING, context)
        self.tree.name = self._unquote(name[2])
        self.expect(T.RIGHT_DELIM, context)
        self.tree.root, end = self.item_list()
        if not isinstance(end, EndNode):
            self.errorf(f"unexpected {end} in {context}")
        self.add()

    def item_list(self) -> tuple[ListNode, Node]:
        lst = ListNode(self.peek_non_space()[1])
        nodes = lst.nodes
        while (token := self.peek_non_space())[0] != T.EOF:
            node = self.text_or_action(token)
            if isinstance(node, (EndNode, ElseNode)):
                return lst, node
            nodes.append(node)
        self.errorf("unexpected EOF")

    def text_or_action(self, token: Item) -> Node:
        """The text or action starting at `token`, the next item (peeked)."""
        self.i += 1
        typ, pos, val, line = token
        if typ == T.TEXT:
            return TextNode(pos, val)
        if typ == T.LEFT_DELIM:
            self.action_line = line
            try:
                return self.action()
            finally:
                self.action_line = 0
        self.unexpected(token, "input")

    def action(self) -> Node:
        token = self.peek_non_space()
        control = self._controls.get(token[0])
        if control is not None:
            self.i += 1
            return control(self, token)
        # Variables are not popped here; they persist until "end".
        return ActionNode(token[1], token[3], self.pipeline("command", T.RIGHT_DELIM))

    # --------------------------------------------------------- controls

    def break_control(self, token: Item) -> Node:
        nxt = self.next_non_space()
        if nxt[0] != T.RIGHT_DELIM:
            self.unexpected(nxt, "{{break}}")
        if self.range_depth == 0:
            self.errorf("{{break}} outside {{range}}")
        return BreakNode(token[1], token[3])

    def continue_control(self, token: Item) -> Node:
        nxt = self.next_non_space()
        if nxt[0] != T.RIGHT_DELIM:
            self.unexpected(nxt, "{{continue}}")
        if self.range_depth == 0:
            self.errorf("{{continue}} outside {{range}}")
        return ContinueNode(token[1], token[3])

    def parse_control(self, context: str) -> tuple[int, int, PipeNode, ListNode, ListNode | None]:
        mark = len(self.vars)
        try:
            pipe = self.pipeline(context, T.RIGHT_DELIM)
            if context == "range":
                self.range_depth += 1
            lst, nxt = self.item_list()
            if context == "range":
                self.range_depth -= 1
            else_list = None
            if isinstance(nxt, ElseNode):
                else_list = self._else_part(context, nxt)
            return pipe.pos, pipe.line, pipe, lst, else_list
        finally:
            del self.vars[mark:]

    def _else_part(self, context: str, else_node: ElseNode) -> ListNode:
        # "{{else if ...}}" and "{{else with ...}}" nest a new control in the
        # else list; its {{end}} closes both.
        if context == "if" and self.peek()[0] == T.IF:
            self.i += 1
            lst = ListNode(else_node.pos)
            lst.nodes.append(self.if_control(None))
            return lst
        if context == "with" and self.peek()[0] == T.WITH:
            self.i += 1
            lst = ListNode(else_node.pos)
            lst.nodes.append(self.with_control(None))
            return lst
        lst, nxt = self.item_list()
        if not isinstance(nxt, EndNode):
            self.errorf(f"expected end; found {nxt}")
        return lst

    def if_control(self, token: Item | None) -> Node:
        return IfNode(*self.parse_control("if"))

    def range_control(self, token: Item | None) -> Node:
        return RangeNode(*self.parse_control("range"))

    def with_control(self, token: Item | None) -> Node:
        return WithNode(*self.parse_control("with"))

    def end_control(self, token: Item) -> Node:
        return EndNode(self.expect(T.RIGHT_DELIM, "end")[1])

    def else_control(self, token: Item) -> Node:
        peek = self.peek_non_space()
        if peek[0] in (T.IF, T.WITH):
            return ElseNode(peek[1], peek[3])
        token = self.expect(T.RIGHT_DELIM, "else")
        return ElseNode(token[1], token[3])

    def block_control(self, token: Item) -> Node:
        context = "block clause"
        token = self.next_non_space()
        name = self.parse_template_name(token, context)
        pipe = self.pipeline(context, T.RIGHT_DELIM)
        block = _Parser(self.sh, Tree(name, self.sh.parse_name, self.sh.text), self.i)
        block.tree.root, end = block.item_list()
        if not isinstance(end, EndNode):
            self.errorf(f"unexpected {end} in {context}")  # at this parser's last item, as in Go
        block.add()
        self.i = block.i
        return TemplateNode(token[1], token[3], name, pipe)

    def template_control(self, token: Item) -> Node:
        context = "template clause"
        token = self.next_non_space()
        name = self.parse_template_name(token, context)
        pipe = None
        if self.next_non_space()[0] != T.RIGHT_DELIM:
            self.backup()
            pipe = self.pipeline(context, T.RIGHT_DELIM)
        return TemplateNode(token[1], token[3], name, pipe)

    def parse_template_name(self, token: Item, context: str) -> str:
        if token[0] in (T.STRING, T.RAW_STRING):
            return self._unquote(token[2])
        self.unexpected(token, context)

    _controls: dict[int, Callable[[_Parser, Item], Node]] = {
        T.BLOCK: block_control,
        T.BREAK: break_control,
        T.CONTINUE: continue_control,
        T.ELSE: else_control,
        T.END: end_control,
        T.IF: if_control,
        T.RANGE: range_control,
        T.TEMPLATE: template_control,
        T.WITH: with_control,
    }

    # -------------------------------------------------------- pipelines

    def pipeline(self, context: str, end: int) -> PipeNode:
        typ, pos, _, line = self.peek_non_space()
        pipe = PipeNode(pos, line)
        if typ == T.VARIABLE:
            self._declarations(pipe, context)
        cmds = pipe.cmds
        while True:
            token = self.peek_non_space()
            typ = token[0]
            if typ in _OPERAND_START:
                cmds.append(self.command(token))
                if len(cmds) > MAX_PIPELINE_CMDS:
                    self.errorf("pipeline too long")
                continue
            self.i += 1
            if typ != end:
                self.unexpected(token, context)
            self.check_pipeline(pipe, context)
            return pipe

    def _declarations(self, pipe: PipeNode, context: str) -> None:
        while True:
            v = self.peek_non_space()
            if v[0] != T.VARIABLE:
                return
            at_variable = self.i
            self.i += 1
            # Space is a token, so "$x foo" needs three-token lookahead to
            # tell an argument variable from a declaration.
            nxt = self.peek_non_space()
            if nxt[0] in (T.ASSIGN, T.DECLARE):
                pipe.is_assign = nxt[0] == T.ASSIGN
                self.next_non_space()
                pipe.decl.append(VariableNode(v[1], v[2]))
                self.vars.append(v[2])
                return
            if nxt[0] == T.CHAR and nxt[2] == ",":
                self.next_non_space()
                pipe.decl.append(VariableNode(v[1], v[2]))
                self.vars.append(v[2])
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek_non_space()[0] in (T.VARIABLE, T.RIGHT_DELIM, T.RIGHT_PAREN):
                        continue  # the second variable of a range
                    self.errorf("range can only initialize variables")
                self.errorf(f"too many declarations in {context}")
            self.rewind(at_variable)  # Go's backup3 (or backup2 with no space after $x)
            return

    def check_pipeline(self, pipe: PipeNode, context: str) -> None:
        if not pipe.cmds:
            self.errorf(f"missing value for {context}")
        # Only the first command of a pipeline can start with a non-executable operand.
        for i, cmd in enumerate(pipe.cmds[1:]):
            if isinstance(cmd.args[0], (BoolNode, DotNode, NilNode, NumberNode, StringNode)):
                self.errorf(f"non executable command in pipeline stage {i + 2}")

    def command(self, token: Item) -> CommandNode:
        """The command starting at `token`, the next item (peeked)."""
        cmd = CommandNode(token[1])
        args = cmd.args
        items = self.items
        while True:
            operand = self.operand(token)
            if operand is not None:
                args.append(operand)
            typ = items[self.i][0]
            self.i += 1
            if typ == _SPACE:
                token = self.peek_non_space()
                continue
            if typ == T.RIGHT_DELIM or typ == T.RIGHT_PAREN:
                self.backup()
            elif typ != T.PIPE:
                self.unexpected(items[self.i - 1], "operand")
            break
        if not args:
            self.errorf("empty command")
        return cmd

    def operand(self, token: Item) -> Node | None:
        node = self.term(token)
        if node is None:
            return None
        if self.peek()[0] != T.FIELD:
            return node
        pos = self.peek()[1]
        fields = []
        while self.peek()[0] == T.FIELD:
            fields.append(self.next()[2])
        # Fields after a field or variable extend it (Go prints the chain and reads
        # it back as one node, at the chain's position); literals can't have fields.
        if isinstance(node, (FieldNode, VariableNode)):
            node.pos = pos
            node.ident.extend(field[1:] for field in fields)
            return node
        if isinstance(node, (BoolNode, StringNode, NumberNode, NilNode, DotNode)):
            self.errorf(f"unexpected . after term {quote(str(node))}")
        chain = ChainNode(pos, node)
        for field in fields:
            chain.add(field)
        return chain

    def term(self, token: Item) -> Node | None:
        """The term starting at `token`, the next item (peeked); None, with the item
        left unread, when it starts none."""
        typ, pos, val, _ = token
        if typ not in _OPERAND_START:
            return None
        self.i += 1
        if typ == T.FIELD:
            return FieldNode(pos, val)
        if typ == T.IDENTIFIER:
            self.sh.idents.append((val, self.token_line()))
            return IdentifierNode(pos, val)
        if typ == T.VARIABLE:
            return self.use_var(pos, val)
        if typ == T.STRING or typ == T.RAW_STRING:
            return StringNode(pos, val, self._unquote(val))
        if typ == T.DOT:
            return DotNode(pos)
        if typ == T.LEFT_PAREN:
            return self._paren_pipeline()
        if typ == T.NIL:
            return NilNode(pos)
        if typ == T.BOOL:
            return BoolNode(pos, val == "true")
        number, err = parse_number(pos, val, typ)  # CHAR_CONSTANT, COMPLEX or NUMBER
        if err is not None:
            self.errorf(err)
        return number

    def _paren_pipeline(self) -> PipeNode:
        if self.stack_depth >= MAX_STACK_DEPTH:
            self.errorf("max expression depth exceeded")
        self.stack_depth += 1
        try:
            return self.pipeline("parenthesized pipeline", T.RIGHT_PAREN)
        finally:
            self.stack_depth -= 1

    def use_var(self, pos: int, name: str) -> VariableNode:
        v = VariableNode(pos, name)
        if v.ident[0] in self.vars:
            return v
        self.errorf(f"undefined variable {quote(v.ident[0])}")

    def _unquote(self, quoted: str) -> str:
        text, err = unquote(quoted)
        if err is not None:
            self.errorf(err)
        return text


_OPERAND_START = frozenset(
    {
        T.BOOL,
        T.CHAR_CONSTANT,
        T.COMPLEX,
        T.DOT,
        T.FIELD,
        T.IDENTIFIER,
        T.NUMBER,
        T.NIL,
        T.RAW_STRING,
        T.STRING,
        T.VARIABLE,
        T.LEFT_PAREN,
    }
)


def parse_text(
    name: str, text: str, *, break_is_func: bool = False, continue_is_func: bool = False
) -> ParseResult:
    """Parse one file: its own tree under `name` plus every define/block in it.

    Function names are recorded, not checked: check_functions does that per
    function set, so one parse serves every render.
    """
    items = lex(text, break_ok=not break_is_func, continue_ok=not continue_is_func)
    shared = _Shared(name, text, items)
    top = _Parser(shared, Tree(name, name, text), 0)
    try:
        top.parse()
        top.add()
    except ParseError as err:
        err.idents = shared.idents  # type: ignore[attr-defined]
        raise
    return ParseResult(shared.tree_set, shared.idents)


def check_functions(name: str, idents: list[tuple[str, int]], funcs: Container[str]) -> None:
    """Go's parse-time `function %q not defined`, for the first unknown name."""
    for ident, line in idents:
        if ident not in funcs:
            raise ParseError(name, line, f"function {quote(ident)} not defined")
