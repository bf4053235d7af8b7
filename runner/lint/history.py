"""Beyond Helm: `.Release.History` / `.DeployedChart(s)` used without a guard that holds when
the history is empty (HIP-0029's "How to teach this": lint warns on history use without
empty array checks).

The history is empty on every install, with `--release-history-max 0` (the default) and
in `template`, so `index .Release.History 0`, `.DeployedChart.Version` or
`(first .Release.History).Chart` fail a render there. Each is reported once per line,
with the file and line, unless it sits under a guard:

- `if`/`with` whose condition names the history (`if .Release.History`,
  `if gt (len .Release.History) 0`, `with .DeployedChart`, `if and .DeployedChart ...`),
  but not its `else`; a condition that tests for emptiness (`if not ...`,
  `if eq (len ...) 0`) guards the `else` instead;
- `range` over it (its body runs only for entries);
- a later argument of `and`/`or` after one that names the history
  (`and .DeployedChart (semverCompare "<2" .DeployedChart.Version)`).

Variables holding the history are not followed. Every file of templates/ is read,
defines included; a file that does not parse is left to the template rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runner.lint.chartload import load_v2
from runner.lint.support import WARNING, Linter
from runner.template.nodes import (
    ActionNode,
    BranchNode,
    ChainNode,
    CommandNode,
    FieldNode,
    IdentifierNode,
    IfNode,
    ListNode,
    Node,
    NumberNode,
    PipeNode,
    RangeNode,
    TemplateNode,
    VariableNode,
)

if TYPE_CHECKING:
    from runner.template.parse import Tree

# The names of the history, as a path from the top-level scope; all are empty together.
HISTORY = ("Release", "History")
CHARTS = ("DeployedCharts",)
CHART = ("DeployedChart",)
_LISTS = (HISTORY, CHARTS)
_FAMILY = (HISTORY, CHARTS, CHART)
_GUARD = "guard it with {{ if .Release.History }} (or {{ with .DeployedChart }})"


def lint_history(linter: Linter) -> None:
    chart, _, error = load_v2(linter.chart_dir)
    if error is not None or chart is None:
        return  # the template rules report a chart that does not load
    for template in chart.templates:
        text = template.data.decode("utf-8", "replace")
        for line, problem in unguarded_uses(template.name, text):
            linter.run_rule(WARNING, f"{template.name}:{line}", problem)


def unguarded_uses(name: str, text: str) -> list[tuple[int, str]]:
    """(line, message) for each unguarded use in one template file, one per line, in order."""
    from runner.template import ParseError, parse_text

    try:
        trees = parse_text(name, text).trees
    except ParseError:
        return []
    found: dict[int, str] = {}
    for tree in trees.values():
        if tree.root is not None:
            for pos, message in _Walk(tree).list(tree.root, False):
                found.setdefault(_line(text, pos), message)
    return sorted(found.items())


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _path(node: Node) -> tuple[str, ...] | None:
    """The field path a node reads from the top-level scope (`.X.Y` or `$.X.Y`)."""
    if isinstance(node, FieldNode):
        return tuple(node.ident)
    if isinstance(node, VariableNode) and node.ident[0] == "$":
        return tuple(node.ident[1:])
    return None


def _family(path: tuple[str, ...] | None, names: tuple[tuple[str, ...], ...] = _FAMILY) -> tuple[str, ...] | None:
    if path is None:
        return None
    return next((base for base in names if path[:len(base)] == base), None)


def mentions(node: Node | None) -> bool:
    """Whether a node names the history anywhere inside it."""
    if node is None:
        return False
    if _family(_path(node)) is not None:
        return True
    if isinstance(node, PipeNode):
        return any(mentions(cmd) for cmd in node.cmds)
    if isinstance(node, CommandNode):
        return any(mentions(arg) for arg in node.args)
    if isinstance(node, ChainNode):
        return mentions(node.node)
    return False


def _tests_emptiness(pipe: PipeNode) -> bool:
    """`not X`, `eq (len X) 0`, `le (len X) 0`, `lt (len X) 1`: true when the history is empty."""
    if len(pipe.cmds) != 1:
        return False
    args = pipe.cmds[0].args
    head = args[0] if args else None
    if not isinstance(head, IdentifierNode):
        return False
    if head.ident == "not":
        return any(mentions(arg) for arg in args[1:])
    limits = {"eq": "0", "le": "0", "lt": "1"}
    if head.ident in limits and len(args) == 3 and isinstance(args[2], NumberNode):
        return args[2].text == limits[head.ident] and mentions(args[1])
    return False


class _Walk:
    def __init__(self, tree: Tree) -> None:
        self.tree = tree

    def list(self, node: ListNode, guarded: bool) -> list[tuple[int, str]]:
        found: list[tuple[int, str]] = []
        for item in node.nodes:
            found += self.item(item, guarded)
        return found

    def item(self, node: Node, guarded: bool) -> list[tuple[int, str]]:
        if isinstance(node, ActionNode):
            return self.pipe(node.pipe, guarded)
        if isinstance(node, TemplateNode):
            return self.pipe(node.pipe, guarded) if node.pipe is not None else []
        if isinstance(node, BranchNode):
            return self.branch(node, guarded)
        return []

    def branch(self, node: BranchNode, guarded: bool) -> list[tuple[int, str]]:
        found = self.pipe(node.pipe, guarded)
        names = mentions(node.pipe)
        inverted = isinstance(node, IfNode) and _tests_emptiness(node.pipe)
        body = guarded or (names and not inverted)
        other = guarded or (inverted and not isinstance(node, RangeNode))
        found += self.list(node.list, body)
        if node.else_list is not None:
            found += self.list(node.else_list, other)
        return found

    def pipe(self, pipe: PipeNode | None, guarded: bool) -> list[tuple[int, str]]:
        found: list[tuple[int, str]] = []
        for cmd in pipe.cmds if pipe is not None else []:
            found += self.command(cmd, guarded)
        return found

    def command(self, cmd: CommandNode, guarded: bool) -> list[tuple[int, str]]:
        found: list[tuple[int, str]] = []
        head = cmd.args[0] if cmd.args else None
        function = head.ident if isinstance(head, IdentifierNode) else ""
        if not guarded and function == "index" and len(cmd.args) > 1 and \
                _family(_path(cmd.args[1]), _LISTS) is not None:
            found.append((cmd.pos, f"{cmd} fails when the history is empty (an install, "
                                   f"--release-history-max 0, template); {_GUARD}"))
        for position, arg in enumerate(cmd.args):
            found += self.term(arg, guarded)
            if function in ("and", "or") and position > 0 and mentions(arg):
                guarded = True  # the arguments after it run only when the history is there
        return found

    def term(self, node: Node, guarded: bool) -> list[tuple[int, str]]:
        if isinstance(node, PipeNode):
            return self.pipe(node, guarded)
        if isinstance(node, ChainNode):
            found = self.term(node.node, guarded)
            if not guarded and isinstance(node.node, PipeNode) and self._picks_entry(node.node):
                found.append((node.pos, f"{node} fails when the history is empty (no entry to read "
                                        f".{'.'.join(node.field)} from); {_GUARD}"))
            return found
        path = _path(node)
        if not guarded and _family(path, (CHART,)) is not None and len(path or ()) > len(CHART):
            return [(node.pos, f"{node} fails when there is no deployed chart (an install, "
                               f"--release-history-max 0, template); guard it with "
                               "{{ with .DeployedChart }} (or {{ if .DeployedChart }})")]
        return []

    def _picks_entry(self, pipe: PipeNode) -> bool:
        """(index .Release.History 0), (first .Release.History), ... as the head of a chain."""
        if len(pipe.cmds) != 1 or len(pipe.cmds[0].args) < 2:
            return False
        head, subject = pipe.cmds[0].args[:2]
        return (isinstance(head, IdentifierNode) and head.ident in ("index", "first", "last")
                and _family(_path(subject), _LISTS) is not None)
