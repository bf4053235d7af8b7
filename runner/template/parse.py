"""Recursive-descent parser of text/template/parse (parse.go).

`parse_text(name, text, funcs)` returns every tree the text defines (the
file itself under `name`, plus each `define`/`block`), or raises ParseError
with Go's message. One method per grammar rule, as in Go; the three-token
lookahead and the `token[0].line` used in error messages follow Go exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import NoReturn

from runner.template.errors import ParseError
from runner.template.lex import Item, T, lex
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
from runner.template.numbers import parse_number, unquote

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
        self.compiled: object | None = None  # exec's compiled form, never pickled

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
        data = self.text.encode()
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
        self.items = items
        self.index = 0
        self.last = len(items) - 1  # the final item (EOF or an error) repeats forever
        self.tree_set: dict[str, Tree] = {}
        self.idents: list[tuple[str, int]] = []

    def next_item(self) -> Item:
        item = self.items[self.index]
        if self.index < self.last:
            self.index += 1
        return item


class _Parser:
    """parse.Tree's parsing state for one tree."""

    def __init__(self, shared: _Shared, tree: Tree) -> None:
        self.sh = shared
        self.tree = tree
        self.token: list[Item] = [Item(T.EOF, 0, "", 1)] * 3
        self.peek_count = 0
        self.vars = ["$"]
        self.action_line = 0
        self.range_depth = 0
        self.stack_depth = 0

    # ---------------------------------------------------------- tokens

    def next(self) -> Item:
        if self.peek_count > 0:
            self.peek_count -= 1
            return self.token[self.peek_count]
        sh = self.sh
        item = self.token[0] = sh.items[sh.index]
        if sh.index < sh.last:
            sh.index += 1
        return item

    def backup(self) -> None:
        self.peek_count += 1

    def backup2(self, t1: Item) -> None:
        self.token[1] = t1
        self.peek_count = 2

    def backup3(self, t2: Item, t1: Item) -> None:
        self.token[1] = t1
        self.token[2] = t2
        self.peek_count = 3

    def peek(self) -> Item:
        if self.peek_count > 0:
            return self.token[self.peek_count - 1]
        self.peek_count = 1
        self.token[0] = self.sh.next_item()
        return self.token[0]

    def next_non_space(self) -> Item:
        token = self.next()
        while token.typ == _SPACE:
            token = self.next()
        return token

    def peek_non_space(self) -> Item:
        token = self.next()
        while token.typ == _SPACE:
            token = self.next()
        self.peek_count += 1
        return token

    # ---------------------------------------------------------- errors

    def errorf(self, msg: str) -> NoReturn:
        raise ParseError(self.sh.parse_name, self.token[0].line, msg)

    def expect(self, expected: int, context: str) -> Item:
        token = self.next_non_space()
        if token.typ != expected:
            self.unexpected(token, context)
        return token

    def expect_one_of(self, e1: int, e2: int, context: str) -> Item:
        token = self.next_non_space()
        if token.typ not in (e1, e2):
            self.unexpected(token, context)
        return token

    def unexpected(self, token: Item, context: str) -> NoReturn:
        if token.typ == T.ERROR:
            extra = ""
            if self.action_line != 0 and self.action_line != token.line:
                extra = f" in action started at {self.sh.parse_name}:{self.action_line}"
                if token.val.endswith(" action"):
                    extra = extra[len(" in action") :]
            self.errorf(f"{token}{extra}")
        self.errorf(f"unexpected {token} in {context}")

    # ------------------------------------------------------- top level

    def add(self) -> None:
        tree = self.sh.tree_set.get(self.tree.name)
        if tree is None or is_empty_tree(tree.root):
            self.sh.tree_set[self.tree.name] = self.tree
            return
        if not is_empty_tree(self.tree.root):
            self.errorf(f"template: multiple definition of template {_q(self.tree.name)}")

    def parse(self) -> None:
        """The top level: like item_list, but also takes {{define}} and runs to EOF."""
        root = self.tree.root = ListNode(self.peek().pos)
        while self.peek().typ != T.EOF:
            if self.peek().typ == T.LEFT_DELIM:
                delim = self.next()
                if self.next_non_space().typ == T.DEFINE:
                    sub = _Parser(self.sh, Tree("definition", self.sh.parse_name, self.sh.text))
                    sub.parse_definition()
                    continue
                self.backup2(delim)
            node = self.text_or_action()
            if isinstance(node, (EndNode, ElseNode)):
                self.errorf(f"unexpected {node}")
            root.nodes.append(node)

    def parse_definition(self) -> None:
        context = "define clause"
        name = self.expect_one_of(T.STRING, T.RAW_STRING, context)
        self.tree.name = self._unquote(name.val)
        self.expect(T.RIGHT_DELIM, context)
        self.tree.root, end = self.item_list()
        if not isinstance(end, EndNode):
            self.errorf(f"unexpected {end} in {context}")
        self.add()

    def item_list(self) -> tuple[ListNode, Node]:
        lst = ListNode(self.peek_non_space().pos)
        while self.peek_non_space().typ != T.EOF:
            node = self.text_or_action()
            if isinstance(node, (EndNode, ElseNode)):
                return lst, node
            lst.nodes.append(node)
        self.errorf("unexpected EOF")

    def text_or_action(self) -> Node:
        token = self.next_non_space()
        if token.typ == T.TEXT:
            return TextNode(token.pos, token.val)
        if token.typ == T.LEFT_DELIM:
            self.action_line = token.line
            try:
                return self.action()
            finally:
                self.action_line = 0
        self.unexpected(token, "input")

    def action(self) -> Node:
        token = self.next_non_space()
        control = self._controls.get(token.typ)
        if control is not None:
            return control(self, token)
        self.backup()
        token = self.peek()
        # Variables are not popped here; they persist until "end".
        return ActionNode(token.pos, token.line, self.pipeline("command", T.RIGHT_DELIM))

    # --------------------------------------------------------- controls

    def break_control(self, token: Item) -> Node:
        nxt = self.next_non_space()
        if nxt.typ != T.RIGHT_DELIM:
            self.unexpected(nxt, "{{break}}")
        if self.range_depth == 0:
            self.errorf("{{break}} outside {{range}}")
        return BreakNode(token.pos, token.line)

    def continue_control(self, token: Item) -> Node:
        nxt = self.next_non_space()
        if nxt.typ != T.RIGHT_DELIM:
            self.unexpected(nxt, "{{continue}}")
        if self.range_depth == 0:
            self.errorf("{{continue}} outside {{range}}")
        return ContinueNode(token.pos, token.line)

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
        if context == "if" and self.peek().typ == T.IF:
            self.next()
            lst = ListNode(else_node.pos)
            lst.nodes.append(self.if_control(None))
            return lst
        if context == "with" and self.peek().typ == T.WITH:
            self.next()
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
        return EndNode(self.expect(T.RIGHT_DELIM, "end").pos)

    def else_control(self, token: Item) -> Node:
        peek = self.peek_non_space()
        if peek.typ in (T.IF, T.WITH):
            return ElseNode(peek.pos, peek.line)
        token = self.expect(T.RIGHT_DELIM, "else")
        return ElseNode(token.pos, token.line)

    def block_control(self, token: Item) -> Node:
        context = "block clause"
        token = self.next_non_space()
        name = self.parse_template_name(token, context)
        pipe = self.pipeline(context, T.RIGHT_DELIM)
        block = _Parser(self.sh, Tree(name, self.sh.parse_name, self.sh.text))
        block.tree.root, end = block.item_list()
        if not isinstance(end, EndNode):
            self.errorf(f"unexpected {end} in {context}")
        block.add()
        return TemplateNode(token.pos, token.line, name, pipe)

    def template_control(self, token: Item) -> Node:
        context = "template clause"
        token = self.next_non_space()
        name = self.parse_template_name(token, context)
        pipe = None
        if self.next_non_space().typ != T.RIGHT_DELIM:
            self.backup()
            pipe = self.pipeline(context, T.RIGHT_DELIM)
        return TemplateNode(token.pos, token.line, name, pipe)

    def parse_template_name(self, token: Item, context: str) -> str:
        if token.typ in (T.STRING, T.RAW_STRING):
            return self._unquote(token.val)
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
        token = self.peek_non_space()
        pipe = PipeNode(token.pos, token.line)
        self._declarations(pipe, context)
        while True:
            token = self.next_non_space()
            if token.typ == end:
                self.check_pipeline(pipe, context)
                return pipe
            if token.typ in _OPERAND_START:
                self.backup()
                pipe.cmds.append(self.command())
                if len(pipe.cmds) > MAX_PIPELINE_CMDS:
                    self.errorf("pipeline too long")
            else:
                self.unexpected(token, context)

    def _declarations(self, pipe: PipeNode, context: str) -> None:
        while True:
            v = self.peek_non_space()
            if v.typ != T.VARIABLE:
                return
            self.next()
            # Space is a token, so "$x foo" needs three-token lookahead to
            # tell an argument variable from a declaration.
            after = self.peek()
            nxt = self.peek_non_space()
            if nxt.typ in (T.ASSIGN, T.DECLARE):
                pipe.is_assign = nxt.typ == T.ASSIGN
                self.next_non_space()
                pipe.decl.append(VariableNode(v.pos, v.val))
                self.vars.append(v.val)
                return
            if nxt.typ == T.CHAR and nxt.val == ",":
                self.next_non_space()
                pipe.decl.append(VariableNode(v.pos, v.val))
                self.vars.append(v.val)
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek_non_space().typ in (T.VARIABLE, T.RIGHT_DELIM, T.RIGHT_PAREN):
                        continue  # the second variable of a range
                    self.errorf("range can only initialize variables")
                self.errorf(f"too many declarations in {context}")
            if after.typ == T.SPACE:
                self.backup3(v, after)
            else:
                self.backup2(v)
            return

    def check_pipeline(self, pipe: PipeNode, context: str) -> None:
        if not pipe.cmds:
            self.errorf(f"missing value for {context}")
        # Only the first command of a pipeline can start with a non-executable operand.
        for i, cmd in enumerate(pipe.cmds[1:]):
            if isinstance(cmd.args[0], (BoolNode, DotNode, NilNode, NumberNode, StringNode)):
                self.errorf(f"non executable command in pipeline stage {i + 2}")

    def command(self) -> CommandNode:
        cmd = CommandNode(self.peek_non_space().pos)
        while True:
            self.peek_non_space()  # skip leading spaces
            operand = self.operand()
            if operand is not None:
                cmd.args.append(operand)
            token = self.next()
            if token.typ == T.SPACE:
                continue
            if token.typ in (T.RIGHT_DELIM, T.RIGHT_PAREN):
                self.backup()
            elif token.typ != T.PIPE:
                self.unexpected(token, "operand")
            break
        if not cmd.args:
            self.errorf("empty command")
        return cmd

    def operand(self) -> Node | None:
        node = self.term()
        if node is None:
            return None
        if self.peek().typ == T.FIELD:
            chain = ChainNode(self.peek().pos, node)
            while self.peek().typ == T.FIELD:
                chain.add(self.next().val)
            # Fields after a field or variable extend it; literals can't have fields.
            if isinstance(node, FieldNode):
                return FieldNode(chain.pos, str(chain))
            if isinstance(node, VariableNode):
                return VariableNode(chain.pos, str(chain))
            if isinstance(node, (BoolNode, StringNode, NumberNode, NilNode, DotNode)):
                self.errorf(f"unexpected . after term {_q(str(node))}")
            return chain
        return node

    def term(self) -> Node | None:
        token = self.next_non_space()
        typ = token.typ
        if typ == T.IDENTIFIER:
            self.sh.idents.append((token.val, self.token[0].line))
            return IdentifierNode(token.pos, token.val)
        if typ == T.DOT:
            return DotNode(token.pos)
        if typ == T.NIL:
            return NilNode(token.pos)
        if typ == T.VARIABLE:
            return self.use_var(token.pos, token.val)
        if typ == T.FIELD:
            return FieldNode(token.pos, token.val)
        if typ == T.BOOL:
            return BoolNode(token.pos, token.val == "true")
        if typ in (T.CHAR_CONSTANT, T.COMPLEX, T.NUMBER):
            number, err = parse_number(token.pos, token.val, typ)
            if err is not None:
                self.errorf(err)
            return number
        if typ == T.LEFT_PAREN:
            return self._paren_pipeline()
        if typ in (T.STRING, T.RAW_STRING):
            return StringNode(token.pos, token.val, self._unquote(token.val))
        self.backup()
        return None

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
        self.errorf(f"undefined variable {_q(v.ident[0])}")

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


def _q(s: str) -> str:
    from runner.template.lex import go_quote

    return go_quote(s)


def parse_text(
    name: str, text: str, *, break_is_func: bool = False, continue_is_func: bool = False
) -> ParseResult:
    """Parse one file: its own tree under `name` plus every define/block in it.

    Function names are recorded, not checked: check_functions does that per
    function set, so one parse serves every render.
    """
    items = lex(text, break_ok=not break_is_func, continue_ok=not continue_is_func)
    shared = _Shared(name, text, items)
    top = _Parser(shared, Tree(name, name, text))
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
            raise ParseError(name, line, f"function {_q(ident)} not defined")
