"""go-yaml v2's strict mode as sigs.k8s.io/yaml.UnmarshalStrict uses it: duplicate map keys."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from runner.encoding.yamlresolve import resolve_plain


def duplicate_key_errors(data: bytes) -> list[str]:
    """`line N: key "k" already set in map` for every repeated key of the first document."""
    try:
        node = next(iter(yaml.compose_all(data, Loader=yaml.CSafeLoader)), None)
    except yaml.YAMLError:
        return []  # a broken document fails the non-strict load first
    errors: list[str] = []
    if node is not None:
        _walk(node, errors)
    return errors


def _walk(node: Node, errors: list[str]) -> None:
    if isinstance(node, SequenceNode):
        for item in node.value:
            _walk(item, errors)
    elif isinstance(node, MappingNode):
        seen: set[tuple[str, Any]] = set()
        for key, value in node.value:
            resolved = _key(key)
            if resolved is not None and resolved[1] != "<<":
                if resolved in seen:
                    errors.append(f"line {key.start_mark.line + 1}: key {_go_syntax(resolved[1])} "
                                  "already set in map")
                seen.add(resolved)
            _walk(value, errors)


def _key(node: Node) -> tuple[str, Any] | None:
    if not isinstance(node, ScalarNode):
        return None
    value: Any = resolve_plain(node.value) if node.style is None else node.value
    return type(value).__name__, value


def _go_syntax(value: Any) -> str:
    """%#v of a decoded key."""
    if isinstance(value, str):
        from runner.golang.strconv import quote

        return quote(value)
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
