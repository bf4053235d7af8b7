"""Spec problems as users read them: `FILE:LINE: FIELD.PATH: what is wrong`, all at once.

pydantic's errors are turned into one problem per field, with the line the
field (or, for a missing key, its mapping) starts on, the path written as the
spec writes it (`releases[1].applyMethod`) and a message that says what the
field takes (`must be one of ssa, csa, auto`).
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from runner.errors import RunnerError
from runner.spec.source import Loaded, Path, Problem

_KINDS = {
    "bool_type": "a boolean", "bool_parsing": "a boolean",
    "int_type": "an integer", "int_parsing": "an integer", "int_from_float": "an integer",
    "float_type": "a number", "float_parsing": "a number",
    "string_type": "a string", "list_type": "a list", "dict_type": "a mapping",
    "model_type": "a mapping", "model_attributes_type": "a mapping", "none_required": "empty",
}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class SpecError(RunnerError):
    """A spec that cannot be used; its message lists every problem, one per line."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = sorted(problems, key=lambda p: (p.line, format_path(p.path)))
        lines = [format_problem(source, p) for p in self.problems]
        if len(lines) == 1:
            text = lines[0]
        else:
            text = f"{source} has {len(lines)} problems:\n" + "\n".join(lines)
        super().__init__(text)


def format_problem(source: str, problem: Problem) -> str:
    where = f"{source}:{problem.line}" if problem.line else source
    path = format_path(problem.path)
    return f"{where}: {path}: {problem.message}" if path else f"{where}: {problem.message}"


def format_path(path: Path) -> str:
    """('releases', 1, 'applyMethod') -> releases[1].applyMethod; odd keys quoted."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f'["{part}"]'
    return text


def validation_problems(err: Any, loaded: Loaded, refused: dict[str, str],
                        vocabulary: list[str]) -> list[Problem]:
    """pydantic ValidationError -> one Problem per field path (union branches folded)."""
    grouped: dict[Path, list[dict[str, Any]]] = {}
    for item in err.errors(include_url=False):
        path = data_path(loaded.data, tuple(item["loc"]), item["type"])
        grouped.setdefault(path, []).append(item)
    problems = []
    for path, items in grouped.items():
        message = _message(path, items, refused, vocabulary)
        problems.append(Problem(loaded.line_of(path), path, message))
    return problems


def data_path(data: Any, loc: tuple[Any, ...], kind: str) -> Path:
    """The loc's elements that name something in the data (pydantic adds union branch names);
    a missing key's name is kept."""
    path: list[str | int] = []
    current = data
    for i, part in enumerate(loc):
        if isinstance(current, dict) and part in current or isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            current = current[part]
            path.append(part)
        elif kind == "missing" and i == len(loc) - 1:
            path.append(part)
    return tuple(path)


def _message(path: Path, items: list[dict[str, Any]], refused: dict[str, str],
             vocabulary: list[str]) -> str:
    first = items[0]
    kind = first["type"]
    key = path[-1] if path else ""
    if kind == "extra_forbidden":
        if isinstance(key, str) and key in refused:
            return f"helmfile's {key} is not supported by deploy-runner ({refused[key]})"
        close = difflib.get_close_matches(str(key), vocabulary, n=1, cutoff=0.75)
        return "unknown key" + (f" (did you mean {close[0]}?)" if close else "")
    if kind == "missing":
        return "is required"
    if len(items) > 1:  # a union: say every shape it takes
        shapes = []
        for item in items:
            shape = _shape(item)
            if shape not in shapes:
                shapes.append(shape)
        return "must be " + " or ".join(shapes)
    return _single(first)


def _shape(item: dict[str, Any]) -> str:
    if item["type"] == "literal_error":
        return "one of " + _expected(item)
    return _KINDS.get(item["type"], str(item.get("msg", "")).lower())


def _single(item: dict[str, Any]) -> str:
    kind = item["type"]
    ctx = item.get("ctx") or {}
    if kind == "literal_error":
        return "must be one of " + _expected(item)
    if kind in _KINDS:
        return f"must be {_KINDS[kind]}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "value_error":
        return str(item["msg"]).removeprefix("Value error, ")
    return str(item["msg"])


def _expected(item: dict[str, Any]) -> str:
    """pydantic's "'ssa', 'csa' or 'auto'" -> ssa, csa, auto."""
    text = str((item.get("ctx") or {}).get("expected", ""))
    return ", ".join(part.strip().strip("'") for part in re.split(r",| or ", text) if part.strip())
