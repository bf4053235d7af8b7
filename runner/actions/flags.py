"""Flag shapes shared by commands, as Helm's cobra/pflag flags behave.

- A flag with a shorthand is two argparse options (`-f` and `--values`) on one
  destination, so a missing value is reported for the spelling the user typed:
  `flag needs an argument: 'f' in -f` or `flag needs an argument: --values`.
- pflag's StringSlice flags (`--values`) read each occurrence as one CSV record:
  `-f a.yaml,b.yaml` is two files, `"a.yaml"` is unquoted, an empty value adds
  nothing.
- The chart-source flags (repository, version, credentials, TLS) of template,
  install/upgrade, pull and dependency.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from runner.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any, NoReturn


class StringSlice(argparse.Action):
    """pflag's stringSlice: each value is a CSV record appended to the list."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        items.extend(read_csv(str(values)))
        setattr(namespace, self.dest, items)


def read_csv(value: str) -> list[str]:
    """pflag readAsCSV: encoding/csv's first record of `value` ([] when empty)."""
    if value == "":
        return []
    if not any(special in value for special in '"\r\n\0'):
        return value.split(",")  # what csv reads from a plain line, without importing it (~0.5 ms)
    import csv

    return next(csv.reader([value]), [])


def join_flag_values(parser: argparse.ArgumentParser, args: list[str]) -> list[str]:
    """pflag gives a flag that takes a value the next argument, whatever it looks like
    (`--set '-}=x'`, `-f --x`); argparse would take one starting with '-' for a flag."""
    out: list[str] = []
    at = 0
    while at < len(args):
        arg = args[at]
        if arg == "--":
            return out + args[at:]
        sub = _subcommand(parser, arg)
        if sub is not None:  # joined here too: argparse reads a '--' before the subcommand sees it
            return [*out, arg, *join_flag_values(sub, args[at + 1:])]
        action = parser._option_string_actions.get(arg)  # noqa: SLF001 - argparse's own table
        if (action is not None and action.nargs is None and at + 1 < len(args)
                and args[at + 1].startswith("-")):
            out.append(f"{arg}={args[at + 1]}")
            at += 2
            continue
        out.append(arg)
        at += 1
    return out


def _subcommand(parser: argparse.ArgumentParser, word: str) -> argparse.ArgumentParser | None:
    for action in parser._subparsers._group_actions if parser._subparsers else ():  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction) and word in action.choices:  # noqa: SLF001
            return action.choices[word]
    return None


def add_flag(parser: argparse.ArgumentParser, short: str, long: str, **kwargs: Any) -> None:
    """`-x` and `--long` as separate options sharing `dest` (see the module text)."""
    kwargs.setdefault("dest", long.lstrip("-").replace("-", "_"))
    parser.add_argument(long, **kwargs)
    kwargs.pop("help", None)
    parser.add_argument(short, help=argparse.SUPPRESS, **kwargs)


def add_values_flag(parser: argparse.ArgumentParser) -> None:
    """Helm's `-f, --values` (a StringSlice)."""
    add_flag(parser, "-f", "--values", action=StringSlice, default=[], dest="values_files")


_NEEDS_ARGUMENT = LazyPattern(r"argument (-\w|--[\w-]+)(?:/\S+)?: expected one argument")


def flag_error_text(message: str) -> str:
    """argparse's complaint in pflag's words (`flag needs an argument: 'n' in -n`)."""
    match = _NEEDS_ARGUMENT.match(message)
    if match is None:
        return message
    flag = match.group(1)
    if flag.startswith("--"):
        return f"flag needs an argument: {flag}"
    return f"flag needs an argument: {flag[1]!r} in {flag}"


def flag_error(message: str) -> NoReturn:
    """A parser's `error`: Helm's line on stderr, exit 1 (argparse would print usage, exit 2)."""
    print(f"Error: {flag_error_text(message)}", file=sys.stderr)
    raise SystemExit(1)


def unknown_flag(unknown: list[str]) -> int:
    """cobra's message for the first flag it does not know."""
    flag = unknown[0]
    if flag.startswith("--") or not flag.startswith("-"):
        text = f"unknown flag: {flag.split('=', 1)[0]}"
    else:
        text = f"unknown shorthand flag: {flag[1:2]!r} in {flag}"
    print(f"Error: {text}", file=sys.stderr)
    return 1


# Helm's default: filepath.Join(homedir.HomeDir(), ".gnupg", "pubring.gpg").
DEFAULT_KEYRING = os.path.join(os.path.expanduser("~"), ".gnupg", "pubring.gpg")


def add_source_flags(parser: argparse.ArgumentParser, *, version: bool = True) -> None:
    """ChartPathOptions' flags (helm's names); --version and --verify/--keyring where Helm has them."""
    if version:
        parser.add_argument("--version", default="", dest="chart_version")
        parser.add_argument("--devel", action="store_true")
        parser.add_argument("--verify", action="store_true")
        parser.add_argument("--keyring", default=DEFAULT_KEYRING)
    parser.add_argument("--repo", default="", dest="repo_url")
    add_credential_flags(parser)
    parser.add_argument("--pass-credentials", action="store_true")
    parser.add_argument("--plain-http", action="store_true")


def add_credential_flags(parser: argparse.ArgumentParser) -> None:
    """Basic auth and TLS flags of every command that reaches a repository or registry."""
    for flag in ("--username", "--password", "--ca-file", "--cert-file", "--key-file"):
        parser.add_argument(flag, default="")
    parser.add_argument("--insecure-skip-tls-verify", action="store_true")


def helm_flags(parser: argparse.ArgumentParser) -> None:
    """Helm's wording for flag errors and unknown flags on a subcommand's parser."""
    parser.set_defaults(unknown_flag_error=unknown_flag)
    parser.error = flag_error  # type: ignore[method-assign]


def group_help(parser: argparse.ArgumentParser, *, as_error: bool = False) -> Callable[[Any], int]:
    """The handler of a command group given no subcommand: its help on stdout (exit 0),
    or on stderr with exit 2 `as_error`."""

    def show(_args: Any) -> int:
        parser.print_help(sys.stderr if as_error else sys.stdout)
        return 2 if as_error else 0

    return show
