"""Helm's output.Encode*: `-o json` (encoding/json, one line) and `-o yaml` (sigs.k8s.io/yaml)."""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def encode_data(data: Any, output: str) -> str:
    """The text Helm writes for `data` under -o json or -o yaml, final newline included."""
    if output == "json":
        from runner.release.codec import go_json

        return go_json(data) + "\n"
    from runner.encoding.goyaml import dump

    return dump(data)
