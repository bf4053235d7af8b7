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
    """Yield each document's head (None for an empty document); raise DecodeError at the first bad one."""
    if text.lstrip(" \t\r\n").startswith("{"):
        yield from _decode_json_stream(text)
        return
    for doc in split_documents(text):
        try:
            value = goyaml.load(doc, ints=True)
        except ValueError as exc:
            raise DecodeError(getattr(exc, "unmarshal_message", str(exc))) from exc
        yield to_object(value)


def _decode_json_stream(text: str) -> Iterator[K8sObject | None]:
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at >= len(text):
            return
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise DecodeError(f"invalid character looking for beginning of value ({exc.msg})") from exc
        yield to_object(value, json_stream=True)


def to_object(value: Any, json_stream: bool = False) -> K8sObject | None:
    """json.Unmarshal into *k8sYamlStruct (field names matched case-insensitively)."""
    if value is None:
        return None
    prefix = "" if json_stream else "error unmarshaling JSON: while decoding JSON: "
    if not isinstance(value, dict):
        raise DecodeError(f"{prefix}json: cannot unmarshal {_json_kind(value)} into Go value of type "
                          "rules.k8sYamlStruct")
    fields = _fields(value)
    metadata = fields.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise DecodeError(f"{prefix}json: cannot unmarshal {_json_kind(metadata)} into Go struct field "
                          "k8sYamlStruct.Metadata of type rules.k8sYamlMetadata")
    meta = _fields(metadata or {})
    try:
        return K8sObject(
            api_version=_string(fields.get("apiversion"), "apiVersion"),
            kind=_string(fields.get("kind"), "Kind"),
            name=_string(meta.get("name"), "Metadata.Name"),
            namespace=_string(meta.get("namespace"), "Metadata.Namespace"),
        )
    except DecodeError as exc:
        raise DecodeError(f"{prefix}{exc}") from exc


def _fields(table: dict[str, Any]) -> dict[str, Any]:
    """Keys folded to lower case; the last of equal keys in JSON (sorted) order wins."""
    return {key.lower(): table[key] for key in sorted(table)}


def _string(value: Any, field: str) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        raise DecodeError(f"json: cannot unmarshal {_json_kind(value)} into Go struct field "
                          f"k8sYamlStruct.{field} of type string")
    return go_string(value, "k8sYamlStruct", field)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


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
