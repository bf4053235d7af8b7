"""Command-line front end with Helm-compatible flag names.

Every error a user can cause ends here as one clear line on stderr and a
non-zero exit code; a traceback is shown only with --debug.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from runner import __version__
from runner.actions import dependency, lint, package, pull, release_cli, repo, template_cli
from runner.errors import RunnerError

Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deploy-runner",
        description="Render and deploy Helm charts, byte-compatible with Helm 4.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="version", version=f"deploy-runner {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    template_cli.register(subparsers)
    lint.register(subparsers)
    release_cli.register(subparsers)
    for sources_cli in (pull, package, dependency, repo):
        sources_cli.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        flag_error = getattr(args, "unknown_flag_error", None)
        if flag_error is None:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        return flag_error(unknown)
    handler: Command | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return handler(args)
    except RunnerError as err:
        if args.debug:
            raise
        print(f"Error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("Error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
