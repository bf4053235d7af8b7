"""`show all|chart|values|readme|crds CHART` (helm show; alias `inspect`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from runner.cli.cobra import Command, exact_args
from runner.cli.errors import user_errors
from runner.cli.flags import chart_path_flags, print_said
from runner.errors import RunnerError

if TYPE_CHECKING:
    from collections.abc import Callable

    from runner.cli.pflag import FlagSet, Namespace

LONG = """
This command consists of multiple subcommands to display information about a chart
"""
FORMATS = {
    "all": "show all information of the chart",
    "chart": "show the chart's definition",
    "crds": "show the chart's CRDs",
    "readme": "show the chart's README",
    "values": "show the chart's values",
}


def build(_name: str) -> Command:
    return Command("show", "show information of a chart", long=LONG, aliases=("inspect",),
                   children=[Command(f"{name} [CHART]", text, args=exact_args(1),
                                     run=lambda args, name=name: handle(args, name), flags=_flags(name))
                             for name, text in FORMATS.items()])


def _flags(name: str) -> Callable[[FlagSet], None]:
    def define(fs: FlagSet) -> None:
        chart_path_flags(fs)
        if name == "values":
            fs.string("jsonpath", "supply a JSONPath expression to filter the output")
    return define


@user_errors
def handle(args: Namespace, section: str) -> int:
    """show SECTION CHART: the chart's sections as their bytes are."""
    from runner.actions.show import show
    from runner.actions.template import locate_chart
    from runner.chart.loader import load_chart
    from runner.cli.flags import source_options

    if getattr(args, "jsonpath", ""):
        raise RunnerError("--jsonpath is not supported by deploy-runner yet")
    chart = load_chart(locate_chart(args.args[0], source_options(args), say=print_said), detect=False)
    sys.stdout.flush()  # a pull report may be buffered before the raw bytes
    sys.stdout.buffer.write(show(chart, section))
    return 0
