"""Command-line front end with Helm-compatible flag names.

Every error a user can cause ends here as one clear line on stderr and a
non-zero exit code; a traceback is shown only with --debug.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from runner import __version__
from runner.deepstack import run_deep
from runner.errors import RunnerError
from runner.gcpause import no_gc

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

Command = Callable[[argparse.Namespace], int]

# argparse passes each of its phrases through gettext, which searches the disk
# for a "messages" catalog and imports locale: ~1.5 ms a run, for text that is
# English anyway (Helm's CLI is not translated).
argparse._ = str  # type: ignore[attr-defined]


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, sized to the terminal only when it formats text: argparse
    makes one for every add_argument call, and sizing imports shutil (ms per run)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, width=width or 0)
        self._requested_layout = (max_help_position, width)

    def format_help(self) -> str:
        # The sizes HelpFormatter.__init__ would have computed, computed now.
        max_help_position, width = self._requested_layout
        if width is None:
            import shutil

            width = shutil.get_terminal_size().columns - 2
        self._width = width
        self._max_help_position = min(max_help_position, max(width - 20, self._indent_increment * 2))
        return super().format_help()


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser (and, as their parser_class, its subcommands') with _HelpFormatter."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(**kwargs)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        # pflag: a flag's value may start with '-'
        from runner.actions.flags import join_flag_values

        return super().parse_known_args(None if args is None else join_flag_values(self, list(args)),
                                        namespace)


# The modules under runner.actions whose register() adds subcommands, in help order,
# and the command names each adds: a run imports only the one it needs.
REGISTRARS = ("template_cli", "lint", "release_cli", "release_list", "pull", "show", "package", "dependency", "repo", "registry", "search")
_COMMANDS = {
    "template": "template_cli",
    "lint": "lint",
    **dict.fromkeys(("status", "history", "get", "install", "upgrade", "rollback",
                     "uninstall", "delete", "del", "un"), "release_cli"),
    "list": "release_list",
    "ls": "release_list",
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
    parser = _Parser(
        prog="deploy-runner",
        description="Render and deploy Helm charts, byte-compatible with Helm 4.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="version", version=f"deploy-runner {__version__}")
    # prog given: argparse would format the parent's usage (sizing a formatter) to get it.
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", prog=parser.prog)
    modules = (_COMMANDS[command],) if command in _COMMANDS else REGISTRARS
    for module in modules:
        importlib.import_module(f"runner.actions.{module}").register(subparsers)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The first argument after the global --debug flag: the subcommand, when there is one."""
    return next((arg for arg in argv if arg != "--debug"), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; as the program itself (no `argv`), exit without interpreter teardown."""
    code = _run(sys.argv[1:] if argv is None else list(argv))
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


def _run(argv: list[str]) -> int:
    parser = build_parser(_command_word(argv))
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
        with no_gc():
            return run_deep(lambda: handler(args))  # deep input has the stack it needs
    except RunnerError as err:
        if args.debug:
            raise
        print(f"Error: {err}", file=sys.stderr)
        return err.exit_code
    except Exception as err:  # a bug of ours: one line; the traceback only with --debug
        if args.debug:
            raise
        print(f"Error: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
