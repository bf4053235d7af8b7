"""docs/architecture.md describes the code as it is: its layout names every module of runner/
(and nothing that is gone), and its layer table is the `layers` contract of pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "architecture.md"
_NAME = re.compile(r"\w+(\.py|/)")


def _section(title: str) -> str:
    return DOC.read_text().split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def layout_names(block: str) -> set[str]:
    """The files and packages under `runner/` the layout names, as paths (`runner/cli/`, ...).

    A package is a name ending in `/`; the names of its modules and subpackages stand two
    columns further in, before their description (two spaces); deeper lines continue a
    description.
    """
    names: set[str] = set()
    stack: list[tuple[int, str]] = []  # (indentation, package path)
    for line in block.splitlines():
        text = line.lstrip(" ")
        indent = len(line) - len(text)
        if not text or text.startswith("```"):
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if not stack:
            if indent == 0 and text.startswith("runner/"):
                stack.append((0, "runner/"))
            continue
        if indent != stack[-1][0] + 2:
            continue  # a description going on
        for name in (n.strip() for n in re.split(r"\s{2,}", text, maxsplit=1)[0].split(",")):
            if name:
                assert _NAME.fullmatch(name), f"not a module or package name in the layout: {line!r}"
                names.add(stack[-1][1] + name)
                if name.endswith("/"):
                    stack.append((indent, stack[-1][1] + name))
    return names


def code_names() -> set[str]:
    names = set()
    for path in (REPO / "runner").rglob("*.py"):
        relative = path.relative_to(REPO)
        names.update(f"{'/'.join(relative.parts[:i])}/" for i in range(2, len(relative.parts)))
        if path.name != "__init__.py":
            names.add(relative.as_posix())
    return names


def test_the_layout_names_every_module_and_package() -> None:
    documented = {name for name in layout_names(_section("The layout")) if not name.endswith("/__init__.py")}
    assert sorted(code_names() - documented) == [], "modules missing from docs/architecture.md's layout"
    assert sorted(documented - code_names()) == [], "docs/architecture.md's layout names what is not there"


def test_the_layer_table_is_the_layers_contract() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [layers] = [contract["layers"] for contract in config if contract["id"] == "layers"]
    contract = [{f"runner.{name.strip(' ()')}" for name in re.split(r"[:|]", layer)} for layer in layers]
    table = _section("The layering rules").split("\n\n| layer | modules |\n", 1)[1].split("\n\n", 1)[0]
    rows = [set(re.findall(r"`(runner\.\w+)`", row.split("|")[2])) for row in table.splitlines()[1:]]
    assert rows == contract


def test_the_layout_reader_reads_names_and_skips_descriptions() -> None:
    block = ("```\nrunner/\n  a.py, b/        one\n    c.py        two,\n"
             "                  three.py, go on\n  d.py\nother/   x.py\n```\n")
    assert layout_names(block) == {"runner/a.py", "runner/b/", "runner/b/c.py", "runner/d.py"}
