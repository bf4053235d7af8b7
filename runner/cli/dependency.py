"""`dependency list|update|build` (helm dependency)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from runner.actions.pull import source_options
from runner.cli.errors import user_errors
from runner.cli.flags import DEFAULT_KEYRING, add_source_flags, group_help

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("dependency", aliases=["dep", "dependencies"],
                                   help="manage a chart's dependencies")
    parser.set_defaults(handler=group_help(parser, as_error=True))
    commands = parser.add_subparsers(dest="dependency_command", metavar="COMMAND")
    listing = commands.add_parser("list", aliases=["ls"], help="list the dependencies of a chart")
    listing.add_argument("chart", nargs="?", default=".")
    listing.set_defaults(handler=handle_list)
    for name, handler in (("update", handle_update), ("build", handle_build)):
        sub = commands.add_parser(name, aliases=["up"] if name == "update" else [])
        sub.add_argument("chart", nargs="?", default=".")
        sub.add_argument("--skip-refresh", action="store_true")
        sub.add_argument("--verify", action="store_true")
        sub.add_argument("--keyring", default=DEFAULT_KEYRING)
        add_source_flags(sub, version=False)
        sub.set_defaults(handler=handler)


@user_errors
def handle_list(args: argparse.Namespace) -> int:
    from runner.chart.sources.deplist import list_dependencies

    list_dependencies(os.path.normpath(args.chart), sys.stdout)
    return 0


def _manager(args: argparse.Namespace) -> Any:
    from runner.errors import RunnerError

    if not os.path.exists(args.chart):
        raise RunnerError(f"could not find {args.chart}: stat {args.chart}: no such file or directory")
    from runner.chart.sources.dependency import Manager
    from runner.chart.sources.paths import HelmPaths

    return Manager(Path(os.path.normpath(args.chart)), source_options(args), HelmPaths.from_env(),
                   skip_refresh=args.skip_refresh)


@user_errors
def handle_update(args: argparse.Namespace) -> int:
    _manager(args).update()
    return 0


@user_errors
def handle_build(args: argparse.Namespace) -> int:
    _manager(args).build()
    return 0

