"""YAML as Helm reads and writes it: sigs.k8s.io/yaml over go-yaml v2.

Reading (`load`) is sigs.k8s.io/yaml.Unmarshal into interface{}: go-yaml v2
decodes the first document with YAML 1.1 scalars (`y`, `yes`, `on`, `off`
are booleans, also as keys; `0x1F`, `017`, `1_000` are ints; timestamps stay
the text they were written as), map keys become strings, then a JSON round
trip turns every number into a float64 (Python float) unless `ints=True`.
libyaml (PyYAML's CParser) does the scanning and parsing — go-yaml v2 is a
port of the same C code, so its error texts match — and
runner.encoding.yamldecode applies go-yaml's resolution, merge-key and key
rules on the node tree. It (with PyYAML) is imported at the first parse:
writing YAML and resolving scalars (`resolve_plain`) never load it.

Where go-yaml v2's scanner differs from libyaml 0.2.5 (':' and '?' in flow
plain scalars, some escapes, redefined anchors) runner.encoding.goscan takes
over. Writing (`dump`, toYaml; `dump_pretty`, toYamlPretty) lives in
runner.encoding.yamlemit, the resolution of plain scalars in
runner.encoding.yamlresolve, go-yaml's error texts in
runner.encoding.yamlerrors: this module is their front, and imports none of
the parsing until a parse.
"""

from __future__ import annotations

from runner.encoding.yamlemit import EncodeError, dump, dump_pretty  # noqa: F401 - public API
from runner.encoding.yamlerrors import GoYAMLError, reader_guard
from runner.encoding.yamlresolve import Timestamp, resolve_plain  # noqa: F401 - public API

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "EncodeError",
    "GoYAMLError",
    "Timestamp",
    "dump",
    "decode",
    "dump_pretty",
    "load",
    "load_all",
    "load_fields",
    "load_fields_and_node",
    "load_into",
    "resolve_plain",
]

# ------------------------------------------------------------ public API


def _text(data: str | bytes) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "surrogateescape")  # bad bytes: see _reader_guard
    return data


def load(data: str | bytes, *, ints: bool = False) -> Any:
    """sigs.k8s.io/yaml.Unmarshal of the first document into interface{}.

    Numbers are float64 (Python float); `ints=True` keeps integers as int
    (go-yaml's own typing, as JSONToYAML sees it). An empty document is None.
    Raises GoYAMLError with go-yaml's / encoding/json's text. Trees come from
    this run's memory, else from `decode`. Only a chart's own files are kept
    across runs (runner.encoding.yamlcache, through chartfile): what reaches
    here (fromYaml's rendered text, -f values, lint's documents, repository
    indexes) may hold secrets, and nothing of it is written to disk.
    """
    text = _text(data)
    key = (text, ints)
    cached = _LOAD_CACHE.get(key, _MISSING)
    if cached is not _MISSING:
        return _copy(cached)
    value = decode(text, ints)
    if len(text) <= 65536:
        if len(_LOAD_CACHE) >= 256:
            _LOAD_CACHE.clear()
        _LOAD_CACHE[key] = _copy(value)
    return value


# fromYaml often reads the same text many times in one render (loops,
# include output); callers may mutate what they get, so hand out copies.
_LOAD_CACHE: dict[tuple[str, bool], Any] = {}
_MISSING = object()


def decode(data: str | bytes, ints: bool = False) -> Any:
    """`load` without its caches: the first document parsed now (PyYAML imported at the first)."""
    text = _text(data)
    reader_guard(text)
    from runner.encoding import yamldecode

    return yamldecode.first_document(text, ints)


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {k: _copy(v) if type(v) in (dict, list) else v for k, v in value.items()}
    if kind is list:
        return [_copy(v) if type(v) in (dict, list) else v for v in value]
    return value


def load_fields(data: str | bytes, keys: tuple[str, ...], *, ints: bool = False) -> Any:
    """`load` for a reader of a few top-level keys (Helm's SimpleHead, say).

    The whole document is checked as `load` checks it (same errors, same
    order), but of a mapping only the values of `keys` are built: the result
    holds those of them that are present. Any other document comes whole.
    """
    text = _text(data)
    reader_guard(text)
    from runner.encoding import yamldecode

    return yamldecode.first_document_fields(text, keys, ints)


def load_fields_and_node(data: str | bytes, keys: tuple[str, ...], *, ints: bool = False) -> Any:
    """`load_fields`, and the document's node tree (PyYAML nodes with their marks; None
    for an empty document)."""
    text = _text(data)
    reader_guard(text)
    from runner.encoding import yamldecode

    return yamldecode.first_document_fields_and_node(text, keys, ints)


def load_all(data: str | bytes, *, ints: bool = False) -> list[Any]:
    """Every document of a stream, each as `load` would give it."""
    text = _text(data)
    reader_guard(text)
    from runner.encoding import yamldecode

    return yamldecode.all_documents(text, ints)


def load_into(data: str | bytes, target: type) -> Any:
    """sigs.k8s.io/yaml.Unmarshal into *map[string]interface{} (dict) or *[]interface{} (list).

    A null document gives an empty value; a document of another kind raises
    GoYAMLError whose unmarshal_message is the JSON decoder's complaint.
    """
    value = load(data)
    if value is None:
        return target()
    if isinstance(value, target):
        return value
    from runner.encoding.gojson import json_kind

    go_target = "map[string]interface {}" if target is dict else "[]interface {}"
    kind = json_kind(value)
    raise GoYAMLError(
        f"while decoding JSON: json: cannot unmarshal {kind} into Go value of type {go_target}",
        stage="error unmarshaling JSON",
    )
