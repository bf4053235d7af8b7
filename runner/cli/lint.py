"""`deploy-runner lint`: Helm 4.1.4's `helm lint` (pkg/cmd/lint.go over runner.actions.lint).

stdout gets `==> Linting PATH`, the `[SEVERITY] file: message` lines and a
blank line per chart, then the summary; a failed chart makes the summary the
error (stderr, exit 1). --quiet prints only charts with warnings or errors.
"""

from __future__ import annotations

import argparse
import sys

from runner.cli.flags import add_flag, add_values_flag, helm_flags
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any, TextIO

    from runner.actions.lint import ChartResult

_SET_FLAGS = ("set", "set-string", "set-file", "set-json", "set-literal")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("lint", help="examine a chart for possible issues (as helm lint)",
                                   allow_abbrev=False)
    parser.add_argument("paths", nargs="*", metavar="PATH")
    parser.add_argument("--strict", action="store_true", help="fail on lint warnings")
    parser.add_argument("--with-subcharts", action="store_true", help="lint dependent charts")
    parser.add_argument("--quiet", action="store_true", help="print only warnings and errors")
    parser.add_argument("--skip-schema-validation", action="store_true")
    parser.add_argument("--kube-version", default="")
    add_flag(parser, "-n", "--namespace", default="default")
    add_values_flag(parser)
    for flag in _SET_FLAGS:
        parser.add_argument(f"--{flag}", action="append", default=[], dest=flag.replace("-", "_"))
    parser.set_defaults(handler=handle)
    helm_flags(parser)


def handle(args: argparse.Namespace) -> int:
    from runner.actions.lint import LintOptions, lint

    sets = {flag: getattr(args, flag.replace("-", "_")) for flag in _SET_FLAGS}
    if not args.paths:
        raise RunnerError('"helm lint" requires at least 1 argument\n\nUsage:  helm lint PATH [flags]')
    opts = LintOptions(
        paths=args.paths, strict=args.strict, with_subcharts=args.with_subcharts,
        quiet=args.quiet, skip_schema_validation=args.skip_schema_validation,
        kube_version=args.kube_version, namespace=args.namespace,
        values_files=args.values_files, sets=sets,
    )
    results = lint(opts, on_warning=lambda text: print(text, file=sys.stderr))
    print_report(results, opts.quiet, sys.stdout)
    return 0


def print_report(results: list[tuple[str, ChartResult]], quiet: bool, out: TextIO) -> None:
    """Each chart's section (--quiet: those with findings), then the summary; raise
    RunnerError(summary) when a chart failed, as helm lint does."""
    report: list[str] = []
    failed = with_findings = 0
    for path, result in results:
        if result.has_warnings_or_errors():
            with_findings += 1
        elif quiet:
            continue
        report.append(format_result(path, result, quiet))
        failed += 1 if result.errors else 0
    out.write("".join(report))
    summary = f"{len(results)} chart(s) linted, {failed} chart(s) failed"
    if failed:
        out.flush()
        raise RunnerError(summary)
    if not quiet or with_findings:
        out.write(summary + "\n")


def format_result(path: str, result: ChartResult, quiet: bool) -> str:
    """One chart's section: `==> Linting PATH`, its messages, a blank line."""
    from runner.lint.support import INFO

    lines = [f"==> Linting {path}\n"]
    if not result.messages:
        lines += [f"Error {err}\n" for err in result.errors]
    lines += [f"{msg}\n" for msg in result.messages if not quiet or msg.severity > INFO]
    lines.append("\n")
    return "".join(lines)
