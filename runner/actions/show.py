"""Helm's action.Show: the sections of a chart that `show all|chart|values|readme|crds`
print (runner.cli.show)."""

from __future__ import annotations

from typing import Any

README_NAMES = ("readme.md", "readme.txt", "readme")


def show(chart: Any, output: str) -> bytes:
    """Show.Run: the sections `output` asks for, separated by `---` under `all`.
    Files are printed as their bytes are."""
    parts: list[bytes] = []
    every = output == "all"
    if output in ("chart", "all"):
        parts.append(chart_yaml(chart).encode() + b"\n")
    if output in ("values", "all") and chart.raw_values is not None:
        parts.append((b"---\n" if every else b"") + bytes(chart.raw_values) + b"\n")
    readme = find_readme(chart) if output in ("readme", "all") else None
    if readme is not None:
        parts.append((b"---\n" if every else b"") + readme + b"\n")
    for _, crd in chart.crd_objects() if output in ("crds", "all") else []:
        data = bytes(crd.data)
        parts.append((b"" if data.startswith(b"---") else b"---\n") + data + b"\n")
    return b"".join(parts)


def chart_yaml(chart: Any) -> str:
    """sigs.k8s.io/yaml.Marshal of the chart's Metadata (JSON names, omitempty, sorted)."""
    from runner.chart.gostructs import metadata_struct
    from runner.encoding.goyaml import dump

    return dump(metadata_struct(chart.metadata).as_map())


def find_readme(chart: Any) -> bytes | None:
    """The first chart file named README.md, README.txt or README (any case)."""
    for file in chart.files:
        if file.name.lower() in README_NAMES:
            return bytes(file.data)
    return None
