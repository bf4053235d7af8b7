"""Helm's output.Encode*: `-o json` (encoding/json, one line) and `-o yaml` (sigs.k8s.io/yaml)."""

from __future__ import annotations

from typing import Any


def encode_data(data: Any, output: str) -> str:
    """The text Helm writes for `data` under -o json or -o yaml, final newline included."""
    if output == "json":
        from runner.release.codec import go_json

        return go_json(data) + "\n"
    from runner.encoding.goyaml import dump

    return dump(data)
