"""The `template` subcommand's flags (Helm's names) and handler."""

from __future__ import annotations

import argparse
import sys

from runner.cli.flags import (
    add_flag,
    add_post_renderer_flags,
    add_source_flags,
    add_values_flag,
    helm_flags,
    post_renderer,
)
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("template", help="locally render templates (as helm template)",
                                   allow_abbrev=False)  # cobra takes no abbreviated flags
    parser.add_argument("args", nargs="*", metavar="[NAME] CHART")
    add_flag(parser, "-n", "--namespace", default="default")
    add_values_flag(parser)
    for flag in ("set", "set-string", "set-file", "set-json", "set-literal"):
        parser.add_argument(f"--{flag}", action="append", default=[], dest=flag.replace("-", "_"))
    add_flag(parser, "-s", "--show-only", action="append", default=[])
    parser.add_argument("--output-dir", default="")
    parser.add_argument("--release-name", action="store_true", dest="use_release_name",
                        help="use the release name in the output-dir path")
    parser.add_argument("--include-crds", action="store_true")
    parser.add_argument("--skip-crds", action="store_true")
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--is-upgrade", action="store_true")
    parser.add_argument("--no-hooks", action="store_true")
    parser.add_argument("--kube-version", default=None)
    add_flag(parser, "-a", "--api-versions", action="append", default=[])
    add_source_flags(parser)
    parser.add_argument("--dependency-update", action="store_true")
    add_post_renderer_flags(parser)
    parser.set_defaults(handler=handle)
    helm_flags(parser)


def handle(args: argparse.Namespace) -> int:
    from runner.actions.template import TemplateOptions, render_template

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
        source_args=args, post_renderer=post_renderer(args),
    )
    result = render_template(opts, on_warning=lambda text: print(text, file=sys.stderr), out=sys.stdout)
    sys.stdout.write("".join(f"wrote {path}\n" for path in result.written))
    sys.stdout.write(result.text)
    return 0


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
