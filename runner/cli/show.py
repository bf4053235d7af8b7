"""`show all|chart|values|readme|crds CHART` (helm show; alias `inspect`)."""

from __future__ import annotations

import argparse
import sys

from runner.cli.errors import user_errors
from runner.cli.flags import add_source_flags, group_help, helm_flags
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
    from runner.actions.show import show
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
