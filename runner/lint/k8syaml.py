"""Kubernetes' YAMLOrJSONDecoder as Helm's lint rules use it, into Helm's k8sYamlStruct stub.

Documents are split as k8s.io/apimachinery's YAMLReader splits them (a line
starting with `---` followed by nothing but an optional comment), each is
read with sigs.k8s.io/yaml (go-yaml v2, then JSON), and only apiVersion,
kind, metadata.name and metadata.namespace are kept, as Go strings.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from runner.chart.chartfile import go_string
from runner.encoding import goyaml
from runner.encoding.gojson import json_kind


@dataclass(frozen=True)
class K8sObject:
    """Helm's k8sYamlStruct: the head of one rendered object."""

    api_version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str = ""


class DecodeError(ValueError):
    """A document that does not decode; str() is Go's error text."""


def split_documents(text: str) -> list[str]:
    """YAMLReader.Read: documents between `---` separator lines (empty ones dropped)."""
    docs: list[str] = []
    buffer: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("---"):
            rest = line[3:].strip()
            if not rest or rest.startswith("#"):
                if buffer:
                    docs.append("".join(buffer))
                    buffer = []
                continue
        buffer.append(line)
    if buffer:
        docs.append("".join(buffer))
    return docs


def decode_objects(text: str) -> Iterator[K8sObject | None]:
    """YAMLOrJSONDecoder.Decode until EOF: each document's head (None for an empty one).

    A stream starting with `{` is read as JSON values; when one fails and at
    most one was read, the rest is read as YAML and the JSON error is the one
    reported should YAML fail too. Raises DecodeError at the first failure.
    """
    if not text.lstrip().startswith("{"):
        yield from _yaml_objects(text)
        return
    decoder = json.JSONDecoder()
    pos = count = 0
    while True:
        start = _skip_space(text, pos)
        if start >= len(text):
            return
        try:
            value, end = decoder.raw_decode(text, start)
            obj = to_object(value, json_stream=True)
        except json.JSONDecodeError:
            short, long = _json_syntax_error(text, start)
            first_error = long if count <= 1 else short
        except DecodeError as exc:
            first_error = str(exc)
        else:
            count, pos = count + 1, end
            yield obj
            continue
        if count > 1:
            raise DecodeError(first_error)
        yield from _yaml_fallback(_consume_whitespace(text, pos), first_error)
        return


def _yaml_fallback(text: str, first_error: str) -> Iterator[K8sObject | None]:
    """YAML after a failed JSON value: the first failure reports the JSON error."""
    first = True
    try:
        for obj in _yaml_objects(text):
            first = False
            yield obj
    except DecodeError as exc:
        raise DecodeError(first_error if first else str(exc)) from exc


def _yaml_objects(text: str) -> Iterator[K8sObject | None]:
    for doc in split_documents(text):
        try:
            value = goyaml.load(doc, ints=True)
        except ValueError as exc:
            raise DecodeError(getattr(exc, "unmarshal_message", str(exc))) from exc
        yield to_object(value)


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _consume_whitespace(text: str, pos: int) -> str:
    """consumeWhitespace: drop spaces up to and including the first newline."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
        if text[pos - 1] == "\n":
            break
    return text[pos:]


def _json_syntax_error(text: str, start: int) -> tuple[str, str]:
    """(json.Decoder's error, as YAMLOrJSONDecoder wraps it) for the value at start."""
    from runner.encoding.jsonscan import syntax_error

    rest = text[start:]
    message = syntax_error(rest)
    if message is None or message == "unexpected end of JSON input":
        return "unexpected EOF", "unexpected EOF"
    low, high = 1, len(rest)
    while low < high:  # the shortest prefix that already fails: it ends at the bad byte
        middle = (low + high) // 2
        if syntax_error(rest[:middle]) in (None, "unexpected end of JSON input"):
            low = middle + 1
        else:
            high = middle
    offset = len(text[: start + low].encode("utf-8", "surrogatepass"))
    return message, f"json: offset {offset}: {message}"


def to_object(value: Any, json_stream: bool = False) -> K8sObject | None:
    """json.Unmarshal into *k8sYamlStruct (field names matched case-insensitively)."""
    if value is None:
        return None
    prefix = "" if json_stream else "error unmarshaling JSON: while decoding JSON: "
    if not isinstance(value, dict):
        raise DecodeError(f"{prefix}json: cannot unmarshal {json_kind(value)} into Go value of type "
                          "rules.k8sYamlStruct")
    fields = _fields(value)
    metadata = fields.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise DecodeError(f"{prefix}json: cannot unmarshal {json_kind(metadata)} into Go struct field "
                          "k8sYamlStruct.Metadata of type rules.k8sYamlMetadata")
    meta = _fields(metadata or {})
    try:
        return K8sObject(
            api_version=_string(fields.get("apiversion"), "apiVersion", json_stream),
            kind=_string(fields.get("kind"), "Kind", json_stream),
            name=_string(meta.get("name"), "Metadata.Name", json_stream),
            namespace=_string(meta.get("namespace"), "Metadata.Namespace", json_stream),
        )
    except DecodeError as exc:
        raise DecodeError(f"{prefix}{exc}") from exc


def _fields(table: dict[str, Any]) -> dict[str, Any]:
    """Keys folded to lower case; the last of equal keys in JSON (sorted) order wins."""
    return {key.lower(): table[key] for key in sorted(table)}


def _string(value: Any, field: str, strict: bool = False) -> str:
    """A Go string field: sigs.k8s.io/yaml turns YAML scalars into strings; JSON does not."""
    if value is None:
        return ""
    if isinstance(value, dict | list) or (strict and not isinstance(value, str)):
        raise DecodeError(f"json: cannot unmarshal {json_kind(value)} into Go struct field "
                          f"k8sYamlStruct.{field} of type string")
    return go_string(value, "k8sYamlStruct", field)


def list_item_annotations(text: str) -> list[dict[str, Any]]:
    """The first document's items[].metadata.annotations (validateListAnnotations' struct)."""
    value = goyaml.load(text, ints=True)
    items = value.get("items") if isinstance(value, dict) else None
    out: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else []:
        metadata = _fields(item).get("metadata") if isinstance(item, dict) else None
        annotations = _fields(metadata).get("annotations") if isinstance(metadata, dict) else None
        out.append(annotations if isinstance(annotations, dict) else {})
    return out
