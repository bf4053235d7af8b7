"""`show all|chart|values|readme|crds CHART` (Helm's action.Show; alias `inspect`)."""

from __future__ import annotations

import argparse
import sys

from runner.actions.flags import add_source_flags, group_help, helm_flags
from runner.actions.pull import user_errors
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

FORMATS = {
    "all": "show all information of the chart",
    "chart": "show the chart's definition",
    "crds": "show the chart's CRDs",
    "readme": "show the chart's README",
    "values": "show the chart's values",
}
README_NAMES = ("readme.md", "readme.txt", "readme")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("show", aliases=["inspect"],
                                   help="show information of a chart (as helm show)")
    parser.set_defaults(handler=group_help(parser))
    commands = parser.add_subparsers(dest="show_format", metavar="COMMAND")
    for name, text in FORMATS.items():
        command = commands.add_parser(name, help=text, allow_abbrev=False)
        command.add_argument("charts", nargs="*", metavar="CHART")
        add_source_flags(command)
        if name == "values":
            command.add_argument("--jsonpath", default="")
        command.set_defaults(handler=handle)
        helm_flags(command)



@user_errors
def handle(args: argparse.Namespace) -> int:
    from runner.actions.template import locate_chart
    from runner.chart.loader import load_chart

    if len(args.charts) != 1:
        raise RunnerError(f'"helm show {args.show_format}" requires 1 argument\n\n'
                          f"Usage:  helm show {args.show_format} [CHART] [flags]")
    if getattr(args, "jsonpath", ""):
        raise RunnerError("--jsonpath is not supported by deploy-runner yet")
    chart = load_chart(locate_chart(args.charts[0], args), detect=False)
    sys.stdout.flush()  # a pull report may be buffered before the raw bytes
    sys.stdout.buffer.write(show(chart, args.show_format))
    return 0


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
    from runner.chart.sources.gostructs import metadata_struct
    from runner.encoding.goyaml import dump

    return dump(metadata_struct(chart.metadata).as_map())


def find_readme(chart: Any) -> bytes | None:
    """The first chart file named README.md, README.txt or README (any case)."""
    for file in chart.files:
        if file.name.lower() in README_NAMES:
            return bytes(file.data)
    return None
