"""Where a rendered document writes its head, remembered across runs instead of the head.

Helm reads every rendered document's SimpleHead (apiVersion, kind,
metadata.name, metadata.annotations) after converting the whole document to
JSON, so each must parse: parsing them (and importing PyYAML to) is most of a
warm run's YAML work. Once a document has parsed, runner.manifest keeps the
*spans* of its head values: offsets into the document's own text and how
the scalar there is quoted, never the values (a --set value in an annotation
or a name stays off the disk), under a keyed digest of the document
(runner.diskcache.secret_digest: the entry's name says nothing of the text).
The same document on a later run reads its head back from its own text.

Only one-line scalars that read back exactly are kept (plain, single-quoted,
double-quoted without escapes); a document whose head has any other (a
folded name, an escape, an alias, a merge key) is parsed every run. Nothing
here imports PyYAML when reading spans back.
"""

from __future__ import annotations

from runner.encoding.yamlresolve import Timestamp, resolve_plain

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    Span = tuple[int, int, int]  # (style, start, end) of a scalar in the document's text
    # (apiVersion, kind, metadata.name, annotations as ((key, value), ...) or None)
    Spans = tuple[Span | None, Span | None, Span | None, tuple[tuple[Span, Span], ...] | None]
    HeadFields = tuple[str, str, str, dict[str, str] | None]

PLAIN, SINGLE, DOUBLE = 0, 1, 2
EMPTY = "empty"  # the spans of a document with no content (an empty SimpleHead)


class _Unkept(Exception):
    """A head value spans cannot give back exactly."""


class HeadTypeError(Exception):
    """encoding/json's UnmarshalTypeError text for a SimpleHead field."""


def head_string(value: Any, field_name: str = "") -> str:
    """A SimpleHead string field from a scalar, as sigs.k8s.io/yaml fills string fields
    (whether the scalar comes from the parse, in runner.manifest, or from spans here)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        from runner.golang.strconv import format_float

        return format_float(value, "g", -1, 64)
    raise head_type_error(value, f"Go struct field {field_name} of type string")


def head_type_error(value: Any, target: str) -> HeadTypeError:
    """`cannot unmarshal KIND into TARGET` for a head value of the wrong kind."""
    from runner.encoding.gojson import json_kind

    return HeadTypeError(f"cannot unmarshal {json_kind(value)} into {target}")


def spans_of(text: str, top: Any, head: HeadFields) -> Spans | str | None:
    """The spans of `head` (read from `top`, the document's node), or None when some value
    is not one spans can give back; checked by reading them back."""
    if top is None:
        return EMPTY if head == ("", "", "", None) else None
    try:
        spans = _mapping_spans(top)
    except _Unkept:
        return None
    return spans if read_head(text, spans) == head else None


def read_head(text: str, spans: Spans | str) -> HeadFields | None:
    """The head a document's text holds at `spans`; None when they do not fit it."""
    if spans == EMPTY:
        return ("", "", "", None)
    try:
        version, kind, name, annotations = spans
        return (
            head_string(_scalar(text, version)),
            head_string(_scalar(text, kind)),
            head_string(_scalar(text, name)),
            None if annotations is None else {
                _key(text, k): head_string(_scalar(text, v)) for k, v in annotations
            },
        )
    except Exception:  # noqa: BLE001 - spans that do not fit this text: parse it instead
        return None


# -- from the node tree (the cold run) ------------------------------------------------------


def _mapping_spans(top: Any) -> Spans:
    from yaml.nodes import MappingNode, ScalarNode

    if not isinstance(top, MappingNode):
        raise _Unkept
    version = kind = name = annotations = None
    for key, value in _pairs(top):
        if key == "apiVersion":
            version = _span(value)
        elif key == "kind":
            kind = _span(value)
        elif key == "metadata":
            name, annotations = None, None
            if isinstance(value, ScalarNode) and resolve_plain(value.value) is None \
                    and value.tag == "?":
                continue  # metadata: (null)
            for meta_key, meta_value in _pairs(value):
                if meta_key == "name":
                    name = _span(meta_value)
                elif meta_key == "annotations":
                    annotations = _annotation_spans(meta_value)
    return version, kind, name, annotations


def _annotation_spans(node: Any) -> tuple[tuple[Span, Span], ...] | None:
    from yaml.nodes import ScalarNode

    if isinstance(node, ScalarNode) and node.tag == "?" and resolve_plain(node.value) is None:
        return None
    return tuple((_span(k), _span(v)) for k, v in _raw_pairs(node))


def _pairs(node: Any) -> list[tuple[str, Any]]:
    """(key text, value node) of a mapping whose keys are plain strings, in order."""
    return [(key.value, value) for key, value in _raw_pairs(node)]


def _raw_pairs(node: Any) -> list[tuple[Any, Any]]:
    from yaml.nodes import MappingNode, ScalarNode

    if not isinstance(node, MappingNode):
        raise _Unkept
    pairs = []
    for key, value in node.value:
        if not isinstance(key, ScalarNode) or (key.tag == "?" and key.value == "<<"):
            raise _Unkept  # a merge key or a collection key: parsed every run
        pairs.append((key, value))
    return pairs


def _span(node: Any) -> Span:
    from yaml.nodes import ScalarNode

    if not isinstance(node, ScalarNode) or node.tag not in ("?", "!"):
        raise _Unkept
    style = {None: PLAIN, "": PLAIN, "'": SINGLE, '"': DOUBLE}.get(node.style)
    if style is None or node.start_mark is None or node.end_mark is None:
        raise _Unkept  # a block scalar, or a node composed without marks
    return style, node.start_mark.index, node.end_mark.index


# -- back from the text (the warm run) ------------------------------------------------------


def _scalar(text: str, span: Span | None) -> Any:
    if span is None:
        return None
    style, start, end = span
    written = text[start:end]
    if "\n" in written or "\r" in written:
        raise _Unkept
    if style == PLAIN:
        value = resolve_plain(written)
        return str(value) if type(value) is Timestamp else value
    if len(written) < 2 or written[0] != written[-1] or written[0] not in "'\"":
        raise _Unkept
    inner = written[1:-1]
    if style == SINGLE:
        return inner.replace("''", "'")
    if "\\" in inner:
        raise _Unkept
    return inner


def _key(text: str, span: Span) -> str:
    value = _scalar(text, span)
    if value is None:
        raise _Unkept
    return head_string(value)  # checked against the parsed keys when the spans are kept
