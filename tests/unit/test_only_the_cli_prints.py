"""Only the front ends print (docs/architecture.md): below them, what Helm would print is told
to a callback (ActionConfig.tell, runner.chart.sources.messages' `say`, an on_warning) and the
CLI prints it. A `print(...)` or a use of sys.stdout / sys.stderr anywhere else fails here."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# The front ends, and the test infrastructure that runs beside them.
MAY_PRINT = ("runner/cli/", "runner/report/", "runner/awslambda/")  # the front ends


def printing(tree: ast.AST) -> list[str]:
    """Where a module prints itself, as `line N: what`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found.append(f"line {node.lineno}: print()")
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sys"
                and node.attr in ("stdout", "stderr", "__stdout__", "__stderr__")):
            found.append(f"line {node.lineno}: sys.{node.attr}")
    return found


def test_nothing_below_the_front_ends_prints() -> None:
    found = {}
    for path in sorted((REPO / "runner").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        where = [] if name.startswith(MAY_PRINT) else printing(ast.parse(path.read_text(), name))
        if where:
            found[name] = where
    assert found == {}


def test_the_check_finds_what_it_looks_for() -> None:
    text = "import sys\nprint('x')\ndef f(out=sys.stderr):\n    sys.stdout.write('y')\n"
    assert printing(ast.parse(text)) == ["line 2: print()", "line 3: sys.stderr", "line 4: sys.stdout"]
