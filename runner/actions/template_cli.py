"""The `template` subcommand's flags (Helm's names) and handler."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any, NoReturn

from runner.actions.pull import add_source_flags
from runner.errors import RunnerError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("template", help="locally render templates (as helm template)")
    parser.add_argument("args", nargs="*", metavar="[NAME] CHART")
    parser.add_argument("-n", "--namespace", default="default")
    parser.add_argument("-f", "--values", action="append", default=[], dest="values_files")
    for flag in ("set", "set-string", "set-file", "set-json", "set-literal"):
        parser.add_argument(f"--{flag}", action="append", default=[], dest=flag.replace("-", "_"))
    parser.add_argument("-s", "--show-only", action="append", default=[], dest="show_only")
    parser.add_argument("--output-dir", default="")
    parser.add_argument("--release-name", action="store_true", dest="use_release_name",
                        help="use the release name in the output-dir path")
    parser.add_argument("--include-crds", action="store_true")
    parser.add_argument("--skip-crds", action="store_true")
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--is-upgrade", action="store_true")
    parser.add_argument("--no-hooks", action="store_true")
    parser.add_argument("--kube-version", default=None)
    parser.add_argument("-a", "--api-versions", action="append", default=[])
    add_source_flags(parser)
    parser.add_argument("--dependency-update", action="store_true")
    parser.set_defaults(handler=handle, unknown_flag_error=_unknown_flag)
    parser.error = _flag_error  # type: ignore[method-assign] - Helm's wording, exit 1


def _unknown_flag(unknown: list[str]) -> int:
    """cobra's message for the first flag it does not know."""
    flag = unknown[0]
    if flag.startswith("--") or not flag.startswith("-"):
        text = f"unknown flag: {flag.split('=', 1)[0]}"
    else:
        text = f"unknown shorthand flag: {flag[1:2]!r} in {flag}"
    print(f"Error: {text}", file=sys.stderr)
    return 1


def _flag_error(message: str) -> NoReturn:
    """argparse's complaint in cobra's words (`flag needs an argument: --namespace`)."""
    match = re.match(r"argument (?:-\w/)?(--[\w-]+): expected one argument", message)
    text = f"flag needs an argument: {match.group(1)}" if match else message
    print(f"Error: {text}", file=sys.stderr)
    raise SystemExit(1)


def handle(args: argparse.Namespace) -> int:
    from runner.actions.template import TemplateOptions, run

    name, chart = _name_and_chart(args.args)
    apis = [a for value in args.api_versions for a in value.split(",") if a]
    opts = TemplateOptions(
        release_name=name, chart=chart, namespace=args.namespace,
        values_files=args.values_files, set_values=args.set, set_string=args.set_string,
        set_file=args.set_file, set_json=args.set_json, set_literal=args.set_literal,
        show_only=args.show_only, output_dir=args.output_dir,
        use_release_name=args.use_release_name, include_crds=args.include_crds,
        skip_crds=args.skip_crds, skip_tests=args.skip_tests, is_upgrade=args.is_upgrade,
        no_hooks=args.no_hooks, kube_version=args.kube_version, api_versions=apis,
        source_args=args,
    )
    try:
        return run(opts)
    except RunnerError:
        raise
    except Exception as err:  # a bug of ours: one line for the user, traceback with --debug
        if getattr(args, "debug", False):
            raise
        raise RunnerError(f"internal error: {type(err).__name__}: {err}") from err


def _name_and_chart(args: list[str]) -> tuple[str, str]:
    """Helm's NAME CHART or CHART (name "release-name")."""
    if len(args) > 2:
        raise RunnerError(f"expected at most two arguments, unexpected arguments: {' '.join(args[2:])}")
    if not args:
        raise RunnerError('"helm template" requires at least 1 argument\n\n'
                          "Usage:  helm template [NAME] [CHART] [flags]")
    if len(args) == 1:
        return "release-name", args[0]
    return args[0], args[1]
