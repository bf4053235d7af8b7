"""GitHub Actions expressions (`${{ }}`), the subset this repository's action.yml and
examples/workflows use, evaluated as the runner evaluates them: contexts looked up without
regard to case, loose equality (strings compared ignoring case, other mixed types as
numbers), `&&` and `||` giving an operand's value, and the functions below. Anything else
(an operator, a function, a filter `.*`, an object interpolated into a string) raises
ExpressionError: a test must not pass on an expression this does not understand.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

TOKEN = re.compile(r"""\s*(?:
    (?P<number>-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?))
  | (?P<string>'(?:[^']|'')*')
  | (?P<op>\|\||&&|==|!=|<=|>=|[<>!().,\[\]])
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
)""", re.VERBOSE)
STATUS_FUNCTIONS = ("success", "always", "failure", "cancelled")


class ExpressionError(Exception):
    pass


@dataclass
class Status:
    """What the job's status functions answer for the step being decided."""

    failed: bool = False  # an earlier step failed (and was not continue-on-error)


def tokens(text: str) -> list[tuple[str, str]]:
    found, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ExpressionError(f"cannot read the expression {text!r} at {text[position:]!r}")
        kind = match.lastgroup or ""
        found.append((kind, match.group(kind)))
        position = match.end()
    return found


class Parser:
    """Recursive descent over GitHub's precedence: ( ) [] . ! < <= > >= == != && ||."""

    def __init__(self, text: str) -> None:
        self.text, self.items, self.at = text, tokens(text), 0

    def parse(self) -> Any:
        tree = self.either()
        if self.at != len(self.items):
            raise ExpressionError(f"unexpected {self.items[self.at][1]!r} in {self.text!r}")
        return tree

    def peek(self) -> str:
        return self.items[self.at][1] if self.at < len(self.items) else ""

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.at >= len(self.items):
            raise ExpressionError(f"{self.text!r} ends too early")
        item = self.items[self.at]
        if expected is not None and item[1] != expected:
            raise ExpressionError(f"expected {expected!r}, found {item[1]!r} in {self.text!r}")
        self.at += 1
        return item

    def either(self) -> Any:
        tree = self.both()
        while self.peek() == "||":
            self.take()
            tree = ("||", tree, self.both())
        return tree

    def both(self) -> Any:
        tree = self.equality()
        while self.peek() == "&&":
            self.take()
            tree = ("&&", tree, self.equality())
        return tree

    def equality(self) -> Any:
        tree = self.comparison()
        while self.peek() in ("==", "!="):
            tree = (self.take()[1], tree, self.comparison())
        return tree

    def comparison(self) -> Any:
        tree = self.unary()
        while self.peek() in ("<", "<=", ">", ">="):
            tree = (self.take()[1], tree, self.unary())
        return tree

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            return ("!", self.unary())
        return self.postfix()

    def postfix(self) -> Any:
        tree = self.primary()
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                kind, name = self.take()
                if kind != "name":
                    raise ExpressionError(f"a property name must follow '.' in {self.text!r}")
                tree = ("get", tree, ("literal", name))
            else:
                tree = ("get", tree, self.either())
                self.take("]")
        return tree

    def primary(self) -> Any:
        kind, value = self.take()
        if kind == "number":
            return ("literal", float(int(value, 16)) if value.lower().startswith("0x")
                    else float(value))
        if kind == "string":
            return ("literal", value[1:-1].replace("''", "'"))
        if value == "(":
            tree = self.either()
            self.take(")")
            return tree
        if kind == "name":
            if self.peek() == "(":
                self.take()
                arguments = []
                while self.peek() != ")":
                    arguments.append(self.either())
                    if self.peek() == ",":
                        self.take()
                self.take(")")
                return ("call", value.lower(), arguments)
            return {"true": ("literal", True), "false": ("literal", False),
                    "null": ("literal", None)}.get(value, ("context", value))
        raise ExpressionError(f"unexpected {value!r} in {self.text!r}")


def truthy(value: Any) -> bool:
    if isinstance(value, float) and math.isnan(value):
        return False
    return value not in (None, False, 0, "")


def number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        try:
            return float(int(text, 16)) if text.lower().startswith("0x") else float(text)
        except ValueError:
            return math.nan
    return math.nan


def equal(left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if type(left) is type(right) and not isinstance(left, int | float | bool):
        return left is right if isinstance(left, dict | list) else left == right
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    return number(left) == number(right)


def text(value: Any) -> str:
    """A value as `${{ }}` puts it into a string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise ExpressionError(f"an object or array interpolated into a string: {value!r} "
                          "(GitHub writes 'Object' or 'Array': use toJSON)")


def lookup(container: Any, key: Any) -> Any:
    if isinstance(container, Mapping):
        if not isinstance(key, str):
            return None
        if key in container:
            return container[key]
        folded = key.casefold()
        return next((v for k, v in container.items() if str(k).casefold() == folded), None)
    if isinstance(container, list):
        index = number(key)
        return container[int(index)] if not math.isnan(index) and 0 <= index < len(
            container) else None
    return None


class Evaluator:
    def __init__(self, contexts: Mapping[str, Any], status: Status | None = None) -> None:
        self.contexts = contexts
        self.status = status or Status()

    def evaluate(self, text_: str) -> Any:
        return self.value(Parser(text_).parse())

    def value(self, tree: Any) -> Any:
        kind = tree[0]
        if kind == "literal":
            return tree[1]
        if kind == "context":
            found = lookup(self.contexts, tree[1])
            if found is None and tree[1].casefold() not in {k.casefold() for k in self.contexts}:
                raise ExpressionError(f"unknown context {tree[1]!r}")
            return found
        if kind == "get":
            return lookup(self.value(tree[1]), self.value(tree[2]))
        if kind == "!":
            return not truthy(self.value(tree[1]))
        if kind == "&&":
            left = self.value(tree[1])
            return self.value(tree[2]) if truthy(left) else left
        if kind == "||":
            left = self.value(tree[1])
            return left if truthy(left) else self.value(tree[2])
        if kind in ("==", "!="):
            same = equal(self.value(tree[1]), self.value(tree[2]))
            return same if kind == "==" else not same
        if kind in ("<", "<=", ">", ">="):
            return self.compare(kind, self.value(tree[1]), self.value(tree[2]))
        if kind == "call":
            return self.call(tree[1], tree[2])
        raise ExpressionError(f"cannot evaluate {tree!r}")

    @staticmethod
    def compare(operator: str, left: Any, right: Any) -> bool:
        if isinstance(left, str) and isinstance(right, str):
            a, b = left.casefold(), right.casefold()
        else:
            a, b = number(left), number(right)
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[operator]

    def call(self, name: str, arguments: list[Any]) -> Any:
        if name in STATUS_FUNCTIONS:
            if arguments:
                raise ExpressionError(f"{name}() takes no arguments")
            return {"success": not self.status.failed, "always": True,
                    "failure": self.status.failed, "cancelled": False}[name]
        functions: dict[str, Callable[..., Any]] = {
            "fromjson": _from_json, "tojson": lambda v: json.dumps(v, indent=2),
            "contains": _contains, "startswith": lambda a, b: text(a).casefold().startswith(
                text(b).casefold()),
            "endswith": lambda a, b: text(a).casefold().endswith(text(b).casefold()),
            "format": _format, "join": _join,
        }
        if name not in functions:
            raise ExpressionError(f"the function {name}() is not implemented by this executor")
        return functions[name](*[self.value(argument) for argument in arguments])


def _from_json(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise ExpressionError(f"fromJSON of {value!r}: GitHub fails the step on empty input")
    return json.loads(value)


def _contains(haystack: Any, needle: Any) -> bool:
    if isinstance(haystack, list):
        return any(equal(item, needle) for item in haystack)
    return text(needle).casefold() in text(haystack).casefold()


def _format(template: Any, *arguments: Any) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(0) in ("{{", "}}"):
            return match.group(0)[0]
        return text(arguments[int(match.group(1))])

    return re.sub(r"\{\{|\}\}|\{(\d+)\}", replace, text(template))


def _join(items: Any, separator: Any = ",") -> str:
    if isinstance(items, list):
        return text(separator).join(text(item) for item in items)
    return text(items)


TEMPLATE = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)


def substitute(value: str, evaluator: Evaluator) -> str:
    """A string with each `${{ expr }}` replaced by its value as text."""
    return TEMPLATE.sub(lambda m: text(evaluator.evaluate(m.group(1))), value)


def condition(value: Any, evaluator: Evaluator) -> bool:
    """A step's `if:` as the runner decides it: `${{ }}` optional, and `success() &&`
    in front unless the expression calls a status function."""
    if isinstance(value, bool):
        return value and not evaluator.status.failed
    expression = str(value).strip()
    whole = TEMPLATE.fullmatch(expression)
    if whole:
        expression = whole.group(1)
    elif "${{" in expression:
        raise ExpressionError(f"an if: mixing text and ${{{{ }}}}: {value!r}")
    if not any(re.search(rf"\b{name}\s*\(", expression, re.IGNORECASE)
               for name in STATUS_FUNCTIONS):
        expression = f"success() && ({expression})"
    return truthy(evaluator.evaluate(expression))
