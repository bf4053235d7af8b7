"""`pull` (Helm's helm pull over runner.actions.pull) and `verify`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runner.cli.errors import user_errors
from runner.cli.flags import DEFAULT_KEYRING, add_source_flags
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("pull", help="download a chart from a repository (as helm pull)")
    parser.add_argument("charts", nargs="*", metavar="CHART")
    parser.add_argument("-d", "--destination", default=".")
    parser.add_argument("--untar", action="store_true")
    parser.add_argument("--untardir", default=".")
    parser.add_argument("--prov", action="store_true")
    add_source_flags(parser)
    parser.set_defaults(handler=handle)
    verify = subparsers.add_parser("verify", help="verify a chart archive against its .prov file")
    verify.add_argument("paths", nargs="*", metavar="PATH")
    verify.add_argument("--keyring", default=DEFAULT_KEYRING)
    verify.set_defaults(handler=handle_verify)


@user_errors
def handle(args: argparse.Namespace) -> int:
    if not args.charts:
        raise RunnerError('"helm pull" requires at least 1 argument\n\n'
                          "Usage:  helm pull [chart URL | repo/chartname] [...] [flags]")
    from runner.actions.pull import pull

    for chart in args.charts:
        pull(chart, args, on_message=sys.stdout.write)
    return 0


@user_errors
def handle_verify(args: argparse.Namespace) -> int:
    """helm verify PATH: the archive's .prov beside it, checked against --keyring."""
    from runner.chart.sources.provenance import verify_chart

    if len(args.paths) != 1:
        raise RunnerError('"helm verify" requires 1 argument\n\nUsage:  helm verify PATH [flags]')
    archive = Path(args.paths[0])
    sys.stdout.write(verify_chart(archive, Path(f"{archive}.prov"), Path(args.keyring)).report())
    return 0
