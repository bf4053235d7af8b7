"""A schema document read as santhosh-tekuri/jsonschema reads it (UnmarshalJSON): JSON
only, with encoding/json's error texts. values.schema.json (runner.chart.schema) and
remote `$ref` documents (runner.chart.schema_remote) both come through here.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def unmarshal_json(text: str) -> Any:
    """santhosh's UnmarshalJSON: the document, or ValueError with encoding/json's text."""
    import json

    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        raise ValueError(_json_error(exc, text)) from None


def _reject_constant(name: str) -> Any:
    """NaN and Infinity are Python's JSON extensions; Go's decoder rejects them."""
    raise ValueError(f"not JSON: {name}")


# encoding/json's white space (isSpace): what may precede the end of input.
_JSON_SPACE = " \t\r\n"


def _json_error(exc: Exception, text: str) -> str:
    """santhosh's UnmarshalJSON error (a json.Decoder) for a schema that is not JSON.

    The Decoder reports the scanner's complaint about a byte of the text, but
    a value cut short by the end of input is io.ErrUnexpectedEOF, and input
    of white space only is io.EOF.
    """
    from runner.encoding.jsonscan import syntax_error

    if not text.strip(_JSON_SPACE):
        return "EOF"
    message = syntax_error(text)
    if message is None:
        return str(exc)
    # A complaint about a byte of the text stays the same whatever follows it;
    # one that needed the end of input moves to a NUL put after the text.
    if syntax_error(text + "\x00") != message:
        return "unexpected EOF"
    if message.endswith(" after top-level value"):
        return "invalid character after top-level value"  # santhosh's own trailing-data check
    return message
