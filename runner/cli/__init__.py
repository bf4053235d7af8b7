"""Command-line front end with Helm-compatible flag names: parsers, command handlers and
printers, one module per command family. The only part of deploy-runner that prints;
the actions below it return data.

Every error a user can cause ends here as one clear line on stderr and a non-zero
exit code (runner.cli.errors); a traceback is shown only with --debug.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from runner import __version__
from runner.cli.errors import run_reporting_errors
from runner.cli.flags import Parser
from runner.gcpause import no_gc

Command = Callable[[argparse.Namespace], int]


# The modules of this package whose register() adds subcommands, in help order,
# and the command names each adds: a run imports only the one it needs.
REGISTRARS = ("template", "lint", "release", "list_releases", "pull", "show", "package", "dependency", "repo", "registry", "search")
COMMANDS = {
    "template": "template",
    "lint": "lint",
    **dict.fromkeys(("status", "history", "get", "install", "upgrade", "rollback",
                     "uninstall", "delete", "del", "un", "test"), "release"),
    "list": "list_releases",
    "ls": "list_releases",
    "verify": "pull",
    "pull": "pull",
    "show": "show",
    "inspect": "show",
    "package": "package",
    "push": "package",
    **dict.fromkeys(("dependency", "dep", "dependencies"), "dependency"),
    "repo": "repo",
    "registry": "registry",
    "search": "search",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (for a known `command`) one with just that command's module."""
    parser = Parser(
        prog="deploy-runner",
        description="Render and deploy Helm charts, byte-compatible with Helm 4.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="version", version=f"deploy-runner {__version__}")
    # prog given: argparse would format the parent's usage (sizing a formatter) to get it.
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", prog=parser.prog)
    modules = (COMMANDS[command],) if command in COMMANDS else REGISTRARS
    for module in modules:
        importlib.import_module(f"runner.cli.{module}").register(subparsers)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The first argument after the global --debug flag: the subcommand, when there is one."""
    return next((arg for arg in argv if arg != "--debug"), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; as the program itself (no `argv`), exit without interpreter teardown."""
    # argparse passes each of its phrases through gettext, which searches the disk for a
    # "messages" catalog and imports locale: ~1.5 ms a run, for text that is English
    # anyway (Helm's CLI is not translated). Set here, not at import: a program that
    # imports runner.cli keeps its own argparse as it was.
    argparse._ = str  # type: ignore[attr-defined]
    arguments = sys.argv[1:] if argv is None else list(argv)
    parsed: list[argparse.Namespace] = []

    def debug() -> bool:
        return bool(getattr(parsed[0], "debug", False)) if parsed else "--debug" in arguments

    code = run_reporting_errors(lambda: _run(arguments, parsed), debug)
    if argv is None:
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """Flush and leave at once when nothing waits for exit (no atexit hook, no other
    thread): tearing down every module and object costs more than a small render."""
    import _thread
    import atexit
    import os

    if atexit._ncallbacks() or _thread._count():  # noqa: SLF001 - threads other than this one
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # let the interpreter report it as it would
    os._exit(code)


def _run(argv: list[str], parsed: list[argparse.Namespace]) -> int:
    """Parse `argv` (the namespace goes into `parsed` for the error wrapper) and run its command."""
    parser = build_parser(_command_word(argv))
    args, unknown = parser.parse_known_args(argv)
    parsed.append(args)
    if unknown:
        flag_error = getattr(args, "unknown_flag_error", None)
        if flag_error is None:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        return flag_error(unknown)
    handler: Command | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    with no_gc():
        return handler(args)
