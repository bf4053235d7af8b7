"""Flag shapes shared by commands, as Helm's cobra/pflag flags behave.

- A flag with a shorthand is two argparse options (`-f` and `--values`) on one
  destination, so a missing value is reported for the spelling the user typed:
  `flag needs an argument: 'f' in -f` or `flag needs an argument: --values`.
- pflag's StringSlice flags (`--values`) read each occurrence as one CSV record:
  `-f a.yaml,b.yaml` is two files, `"a.yaml"` is unquoted, an empty value adds
  nothing.
- The chart-source flags (repository, version, credentials, TLS) of template,
  install/upgrade, pull and dependency.
- `--post-renderer NAME` and `--post-renderer-args ARG` as Helm 4.1.4's install,
  upgrade and template take them. The value names a `postrenderer/v1` plugin
  (runner.postrender). pflag looks it up while flags are parsed, so an unknown
  name fails before anything renders: `invalid argument "NAME" for
  "--post-renderer" flag: plugin: {Name:NAME Type:postrenderer/v1} not found`.
  An empty value is ignored; a second non-empty one is refused.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from runner.errors import RunnerError
from runner.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:  # the post-renderer is imported when a flag is given: `template` without one stays lean
    from typing import Any, NoReturn

    from runner.postrender import PostRenderer


class HelpFormatter(argparse.HelpFormatter):
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


class Parser(argparse.ArgumentParser):
    """An ArgumentParser (and, as their parser_class, its subcommands') with HelpFormatter."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(**kwargs)


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


def duration(flag: str) -> Callable[[str], float]:
    """A duration flag's type: Go's time.ParseDuration in seconds; anything else fails as
    pflag's durationValue does (`invalid argument "300" for "--timeout" flag: time:
    missing unit in duration "300"`) while flags are parsed, before any work starts."""

    def parse(text: str) -> float:
        from runner.funcs.gotime import parse_duration

        try:
            return parse_duration(text) / 1e9
        except ValueError as err:  # a RunnerError: argparse lets it through unchanged
            raise RunnerError(f'invalid argument "{text}" for "{flag}" flag: {err}') from None

    return parse


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


class PostRendererFlag(argparse.Action):
    """postRendererString.Set: empty is ignored, a second one refused, the plugin looked up."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        name = str(values)
        if name == "":
            return
        if getattr(namespace, self.dest, None) is not None:
            _invalid(parser, name, "cannot specify --post-renderer flag more than once")
        from runner.postrender import find_post_renderer

        try:
            setattr(namespace, self.dest, find_post_renderer(name))
        except RunnerError as err:
            _invalid(parser, name, str(err))


class PostRendererArgsFlag(argparse.Action):
    """postRendererArgsSlice.Set: appended; once a plugin is named, it is looked up again."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, [*getattr(namespace, self.dest, []), str(values)])
        plugin = getattr(namespace, "post_renderer", None)
        if plugin is not None:
            from runner.postrender import find_post_renderer

            try:
                find_post_renderer(plugin.name)
            except RunnerError as err:
                parser.error(f'invalid argument "{values}" for "--post-renderer-args" flag: {err}')


def _invalid(parser: argparse.ArgumentParser, value: str, reason: str) -> None:
    parser.error(f'invalid argument "{value}" for "--post-renderer" flag: {reason}')


def add_post_renderer_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--post-renderer", action=PostRendererFlag, default=None,
                        help="the name of a postrenderer type plugin to be used for post rendering")
    parser.add_argument("--post-renderer-args", action=PostRendererArgsFlag, default=[],
                        help="an argument to the post-renderer (can specify multiple)")


def post_renderer(args: argparse.Namespace) -> PostRenderer | None:
    """The post-renderer the flags chose, with every --post-renderer-args in order."""
    if args.post_renderer is None:
        return None
    from runner.postrender import PostRenderer

    return PostRenderer(args.post_renderer, tuple(args.post_renderer_args))
