"""santhosh-tekuri/jsonschema v6's error tree and messages, rebuilt from jsonschema's errors.

Helm prints each violation as `- at '<json pointer>': <message>`: several
errors from one subschema application are grouped under `validation failed`,
`allOf`/`anyOf`/`oneOf`/`contains`/`propertyNames` list their causes one
level deeper, and numbers are printed by golang.org/x/text (`1,000`,
`1.2345675×10⁰⁶`). Messages follow santhosh's kind package.
"""

from __future__ import annotations

import json
import re

from runner.records import Record

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from jsonschema.exceptions import ValidationError

_GROUP = "validation failed"  # santhosh's kind.Group
_TYPE_ORDER = ("null", "boolean", "number", "integer", "string", "array", "object")


class _Node(Record):
    __slots__ = ("location", "message", "causes")

    def __init__(self, location: str, message: str, causes: list[_Node] | None = None) -> None:
        self.location = location
        self.message = message
        self.causes = causes if causes is not None else []

    def lines(self, depth: int) -> list[str]:
        out = [f"{'  ' * depth}- at '{self.location}': {self.message}"]
        for cause in self.causes:
            out.extend(cause.lines(depth + 1))
        return out


def error_report(errors: list[ValidationError], validator: Any) -> str:
    """Helm's lines for one schema's violations, ending with a newline."""
    nodes = _build(errors, [], validator)
    if len(nodes) == 1 and nodes[0].message == _GROUP:
        # Schema.validate lists a group's causes when the root's one error is a group
        # (one property with several violations): they print at the top level.
        nodes = nodes[0].causes
    return "\n".join(line for node in nodes for line in node.lines(0)) + "\n"


def _pointer(path: list[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


# santhosh's validate() checks these first, in this order, and stops at the first that
# fails: a null where a string enum is wanted reads `got null, want string` alone.
_STOPPING_KEYWORDS = ("type", "const", "enum", "format")


def _stopping_error(errors: list[ValidationError]) -> ValidationError | None:
    """The error santhosh would stop at among one schema application's errors, if any."""
    for keyword in _STOPPING_KEYWORDS:
        for error in errors:
            if list(error.relative_schema_path) == [keyword]:
                return error
    return None


def _build(errors: list[ValidationError], base: list[Any], validator: Any) -> list[_Node]:
    """Nodes for errors raised by one schema applied at instance path `base`."""
    stopped = _stopping_error(errors)
    if stopped is not None:
        errors = [stopped]
    groups: dict[tuple[Any, ...], list[ValidationError]] = {}
    for error in errors:
        groups.setdefault(_group_key(error), []).append(error)
    nodes: list[_Node] = []
    for key in sorted(groups, key=_sort_key):
        nodes.extend(_group_nodes(key, groups[key], base, validator))
    return nodes


# Keywords whose errors group under a named child (a property, a pattern, an index) ...
_NAMED_CHILD_KEYWORDS = ("properties", "patternProperties", "dependentSchemas", "prefixItems")
# ... and keywords whose errors group under the instance's first step only.
_ITEM_KEYWORDS = (
    "items",
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
)


def _sort_key(key: tuple[Any, ...]) -> tuple[int, str]:
    keyword = key[0]
    rank = (
        0 if keyword == "required" else 2 if keyword in ("properties", "patternProperties") else 1
    )
    return rank, json.dumps(key, default=str)


def _group_key(error: ValidationError) -> tuple[Any, ...]:
    path = list(error.relative_schema_path)
    keyword = path[0] if path else error.validator
    if keyword in _NAMED_CHILD_KEYWORDS and len(path) > 1:
        return (keyword, str(path[1]), _first_instance(error))
    if keyword in _ITEM_KEYWORDS and len(path) > 1:
        return (keyword, _first_instance(error))
    if keyword == "propertyNames" and len(path) > 1:
        return (keyword, str(error.instance))
    return (keyword,)


def _first_instance(error: ValidationError) -> str:
    path = list(error.relative_path)
    return str(path[0]) if path else ""


def _strip(error: ValidationError, schema_steps: int, instance_steps: int) -> None:
    for _ in range(schema_steps):
        error.relative_schema_path.popleft()
    for _ in range(instance_steps):
        if error.relative_path:
            error.relative_path.popleft()


def _group_nodes(
    key: tuple[Any, ...], errors: list[ValidationError], base: list[Any], validator: Any
) -> list[_Node]:
    keyword = key[0]
    here = _pointer(base)
    if keyword in _NAMED_CHILD_KEYWORDS and len(key) > 2:
        child = base + [key[2]] if key[2] != "" else base
        for error in errors:
            _strip(error, 2, 1 if key[2] != "" else 0)
        return [_collapse(_pointer(child), _build(errors, child, validator))]
    if keyword in _ITEM_KEYWORDS and len(key) > 1:
        child = base + [key[1]] if key[1] != "" else base
        for error in errors:
            # array-form items (drafts 4-7) carry the item index in the schema path too
            positional = len(error.relative_schema_path) > 1 and isinstance(
                error.relative_schema_path[1], int
            )
            _strip(error, 2 if positional else 1, 1 if key[1] != "" else 0)
        return [_collapse(_pointer(child), _build(errors, child, validator))]
    if keyword == "propertyNames" and len(key) > 1:
        for error in errors:
            _strip(error, 1, 0)
        causes = [_Node("", n.message, n.causes) for n in _build(errors, [], validator)]
        return [_Node("", f"invalid propertyName {_quote(key[1])}", causes)]
    if keyword in ("allOf", "$ref", "$dynamicRef", "then", "else", "dependencies") and any(
        len(e.relative_schema_path) > 1 for e in errors
    ):
        return _applicator_nodes(keyword, errors, base, validator)
    if keyword == "required":
        return [_leaf(errors[0], here, validator)]  # jsonschema reports each missing name
    if keyword in ("dependentRequired", "dependencies"):
        return _dependency_nodes(errors, base, validator)
    return [_leaf(error, here, validator) for error in errors]


def _dependency_nodes(
    errors: list[ValidationError], base: list[Any], validator: Any
) -> list[_Node]:
    """Array-form dependencies: one line per property; schema-form ones apply a subschema."""
    here = _pointer(base)
    names = [e for e in errors if len(e.relative_schema_path) <= 2]
    schemas = [e for e in errors if len(e.relative_schema_path) > 2]
    nodes = [_Node(here, text) for text in _dependent_messages(names[0])] if names else []
    for error in schemas:
        _strip(error, 2, 0)
    if schemas:
        nodes.append(_collapse(here, _build(schemas, base, validator)))
    return nodes


def _applicator_nodes(
    keyword: str, errors: list[ValidationError], base: list[Any], validator: Any
) -> list[_Node]:
    here = _pointer(base)
    if keyword == "allOf":
        by_index: dict[int, list[ValidationError]] = {}
        for error in errors:
            index = error.relative_schema_path[1]
            _strip(error, 2, 0)
            by_index.setdefault(index, []).append(error)
        causes = [_collapse(here, _build(by_index[i], base, validator)) for i in sorted(by_index)]
        return [_Node(here, "'allOf' failed", causes)]
    steps = 1 if keyword in ("$ref", "$dynamicRef", "then", "else") else 2
    for error in errors:
        _strip(error, steps, 0)
    return [_collapse(here, _build(errors, base, validator))]


def _collapse(location: str, nodes: list[_Node]) -> _Node:
    if len(nodes) == 1:
        return nodes[0]
    return _Node(location, _GROUP, nodes)


def _subschema_causes(
    error: ValidationError, here: str, base: list[Any], validator: Any
) -> list[_Node]:
    by_index: dict[int, list[ValidationError]] = {}
    for sub in error.context or []:
        index = sub.relative_schema_path[0]
        sub.relative_schema_path.popleft()
        by_index.setdefault(index, []).append(sub)
    return [_collapse(here, _build(by_index[i], base, validator)) for i in sorted(by_index)]


def _leaf(error: ValidationError, here: str, validator: Any) -> _Node:
    keyword = error.validator
    if keyword is None:
        return _Node(here, "false schema")
    base = _path_from_pointer(here)
    if keyword == "anyOf":
        return _Node(here, "'anyOf' failed", _subschema_causes(error, here, base, validator))
    if keyword == "oneOf":
        matched = _one_of_matches(error, validator)
        if len(matched) >= 2:
            return _Node(here, f"'oneOf' failed, subschemas {matched[0]}, {matched[1]} matched")
        return _Node(
            here, "'oneOf' failed, none matched", _subschema_causes(error, here, base, validator)
        )
    if keyword == "contains":
        return _Node(
            here, "no items match contains schema", _contains_causes(error, base, validator)
        )
    return _Node(here, _message(error))


def _path_from_pointer(pointer: str) -> list[Any]:
    if not pointer:
        return []
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


def _one_of_matches(error: ValidationError, validator: Any) -> list[int]:
    subschemas = error.validator_value or []
    return [
        i
        for i, sub in enumerate(subschemas)
        if validator.evolve(schema=sub).is_valid(error.instance)
    ]


def _contains_causes(error: ValidationError, base: list[Any], validator: Any) -> list[_Node]:
    causes: list[_Node] = []
    sub_validator = validator.evolve(schema=error.validator_value)
    for index, item in enumerate(error.instance if isinstance(error.instance, list) else []):
        item_errors = list(sub_validator.iter_errors(item))
        if item_errors:
            child = base + [index]
            causes.append(_collapse(_pointer(child), _build(item_errors, child, validator)))
    return causes


def _message(error: ValidationError) -> str:
    keyword, want, got = error.validator, error.validator_value, error.instance
    simple = {
        "minLength": lambda: f"minLength: got {_group_int(len(got))}, want {_group_int(want)}",
        "maxLength": lambda: f"maxLength: got {_group_int(len(got))}, want {_group_int(want)}",
        "minItems": lambda: f"minItems: got {_group_int(len(got))}, want {_group_int(want)}",
        "maxItems": lambda: f"maxItems: got {_group_int(len(got))}, want {_group_int(want)}",
        "minProperties": lambda: (
            f"minProperties: got {_group_int(len(got))}, want {_group_int(want)}"
        ),
        "maxProperties": lambda: (
            f"maxProperties: got {_group_int(len(got))}, want {_group_int(want)}"
        ),
        "pattern": lambda: f"{_quote(got)} does not match pattern {_quote(want)}",
        "not": lambda: "'not' failed",
        "uniqueItems": lambda: _unique_message(got),
        "required": lambda: _required_message(error),
        "type": lambda: f"got {_json_type(got)}, want {_want_types(want)}",
        "enum": lambda: _enum_message(want),
        "const": lambda: _const_message(want),
        "format": lambda: f"{_display(got)} is not valid {want}: {_format_reason(error)}",
        "additionalProperties": lambda: _additional_message(error),
        "additionalItems": lambda: (
            f"last {len(got) - len(error.schema.get('items', []))} additionalItem(s) not allowed"
        ),
        "false": lambda: "false schema",
    }
    if keyword in simple:
        return simple[keyword]()
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        return f"{_bound_keyword(error)}: got {_number(got)}, want {_number(_bound_value(error))}"
    return error.message


def _bound_keyword(error: ValidationError) -> str:
    """Draft 4 spells exclusive bounds as booleans next to minimum/maximum."""
    keyword = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    if keyword in ("minimum", "maximum") and schema.get("exclusive" + keyword.capitalize()) is True:
        return "exclusive" + keyword.capitalize()
    return keyword


def _bound_value(error: ValidationError) -> Any:
    if isinstance(error.validator_value, bool):
        schema = error.schema if isinstance(error.schema, dict) else {}
        return schema.get("minimum" if "Minimum" in error.validator else "maximum")
    return error.validator_value


def _unique_message(items: list[Any]) -> str:
    for i, first in enumerate(items):
        for j in range(i + 1, len(items)):
            if _json_equal(first, items[j]):
                return f"items at {i} and {j} are equal"
    return "items are not unique"


def _json_equal(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _required_message(error: ValidationError) -> str:
    present = error.instance if isinstance(error.instance, dict) else {}
    missing = [name for name in error.validator_value if name not in present]
    if len(missing) == 1:
        return f"missing property {_quote(missing[0])}"
    return f"missing properties {', '.join(_quote(m) for m in missing)}"


def _additional_message(error: ValidationError) -> str:
    schema = error.schema if isinstance(error.schema, dict) else {}
    known = schema.get("properties", {})
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    extra = [
        key
        for key in error.instance
        if key not in known and not any(p.search(key) for p in patterns)
    ]
    return f"additional properties {', '.join(_quote(k) for k in sorted(extra))} not allowed"


def _dependent_messages(error: ValidationError) -> list[str]:
    """One line per property whose dependent names are missing (santhosh's DependentRequired)."""
    present = error.instance if isinstance(error.instance, dict) else {}
    lines = []
    for prop, needed in sorted((error.validator_value or {}).items()):
        if prop in present and isinstance(needed, list):
            missing = [n for n in needed if n not in present]
            if missing:
                names = ", ".join(_quote(m) for m in missing)
                lines.append(f"properties {names} required, if {_quote(prop)} exists")
    return lines


def _enum_message(want: list[Any]) -> str:
    if any(isinstance(w, list | dict) for w in want):
        return "'enum' failed"
    if len(want) == 1:
        return f"value must be {_display(want[0])}"
    return f"value must be one of {', '.join(_display(w) for w in want)}"


def _const_message(want: Any) -> str:
    if isinstance(want, list | dict):
        return "'const' failed"
    return f"value must be {_display(want)}"


def _format_reason(error: ValidationError) -> str:
    cause = error.cause
    return str(cause) if cause is not None else "invalid"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _want_types(want: Any) -> str:
    types = [want] if isinstance(want, str) else list(want)
    ordered = [t for t in _TYPE_ORDER if t in types] + [t for t in types if t not in _TYPE_ORDER]
    return " or ".join(ordered)


def _quote(text: str) -> str:
    """santhosh's quote: Go %q with `\\"` unescaped and `'` escaped, in single quotes."""
    from runner.golang.strconv import quote

    inner = quote(str(text))[1:-1]
    return "'" + inner.replace('\\"', '"').replace("'", "\\'") + "'"


def _display(value: Any) -> str:
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list | dict):
        return "value"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))  # json.Number keeps the literal text
    return repr(value)


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _group_int(number: int) -> str:
    return f"{number:,}"


def _number(value: Any) -> str:
    """golang.org/x/text's English %v of a float64: grouping, `×10ⁿⁿ` beyond 1e6 or below 1e-4."""
    number = float(value)
    if number == 0:
        return "0"
    digits, exponent = _shortest(abs(number))
    sign = "-" if number < 0 else ""
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        power = f"{'-' if exponent < 0 else ''}{abs(exponent):02d}".translate(_SUPERSCRIPT)
        return f"{sign}{mantissa}×10{power}"
    point = exponent + 1
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    whole = digits[:point].ljust(point, "0")
    fraction = digits[point:]
    return f"{sign}{int(whole):,}" + (f".{fraction}" if fraction else "")


def _shortest(number: float) -> tuple[str, int]:
    """Shortest round-trip digits and decimal exponent of a positive float."""
    text = repr(number)
    if "e" in text:
        mant, _, exp_text = text.partition("e")
        digits = mant.replace(".", "").lstrip("0").rstrip("0") or "0"
        return digits, int(exp_text)
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    if whole.strip("0"):
        digits = (whole.lstrip("0") + fraction).rstrip("0") or "0"
        return digits, len(whole.lstrip("0")) - 1
    stripped = fraction.lstrip("0")
    return stripped.rstrip("0"), -(len(fraction) - len(stripped)) - 1
