"""`deploy-runner lint`: Helm 4.1.4's `helm lint` (pkg/cmd/lint.go over runner.actions.lint).

stdout gets `==> Linting PATH`, the `[SEVERITY] file: message` lines and a
blank line per chart, then the summary; a failed chart makes the summary the
error (stderr, exit 1). --quiet prints only charts with warnings or errors.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from runner.cli.cobra import Command, minimum_args
from runner.cli.flags import set_values, values_flags
from runner.errors import RunnerError

if TYPE_CHECKING:
    from runner.actions.lint import ChartResult
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
This command takes a path to a chart and runs a series of tests to verify that
the chart is well-formed.

If the linter encounters things that will cause the chart to fail installation,
it will emit [ERROR] messages. If it encounters issues that break with convention
or recommendation, it will emit [WARNING] messages.
"""


def build(_name: str) -> Command:
    return Command("lint PATH", "examine a chart for possible issues", long=LONG,
                   args=minimum_args(1), run=handle, flags=_flags)


def _flags(fs: FlagSet) -> None:
    fs.bool("strict", "fail on lint warnings")
    values_flags(fs)
    fs.bool("with-subcharts", "lint dependent charts")
    fs.bool("quiet", "print only warnings and errors")
    fs.bool("skip-schema-validation", "if set, disables JSON schema validation")
    fs.string("kube-version", "Kubernetes version used for capabilities and deprecation checks")


def handle(args: Namespace) -> int:
    from runner.actions.lint import LintOptions, lint

    opts = LintOptions(
        paths=args.args, strict=args.strict, with_subcharts=args.with_subcharts,
        quiet=args.quiet, skip_schema_validation=args.skip_schema_validation,
        kube_version=args.kube_version, namespace=args.namespace or "default",
        values_files=args.values_files, sets=set_values(args),
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
