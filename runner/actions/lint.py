"""`deploy-runner lint`: Helm 4.1.4's `helm lint` (pkg/cmd/lint.go over pkg/action/lint.go).

Each path is linted with every rule family of runner.lint; stdout gets
`==> Linting PATH`, the `[SEVERITY] file: message` lines and a blank line per
chart, then the summary; a failed chart makes the summary the error (stderr,
exit 1). --strict fails on warnings, --quiet prints only charts with
warnings or errors, --with-subcharts adds every chart under PATH/charts.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from runner.actions.flags import add_flag, add_values_flag, helm_flags
from runner.errors import RunnerError, run_reporting_bugs

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any, TextIO

_ARCHIVE_SUFFIXES = (".tgz", ".tar.gz")


@dataclass
class LintOptions:
    paths: list[str] = field(default_factory=lambda: ["."])
    strict: bool = False
    with_subcharts: bool = False
    quiet: bool = False
    skip_schema_validation: bool = False
    kube_version: str = ""
    namespace: str = "default"
    values_files: list[str] = field(default_factory=list)
    sets: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class ChartResult:
    """LintResult for one path: its messages and the errors that fail it."""

    messages: list[Any] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def has_warnings_or_errors(self) -> bool:
        from runner.lint.support import INFO

        return any(m.severity > INFO for m in self.messages) or bool(self.errors)


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
    for flag in ("set", "set-string", "set-file", "set-json", "set-literal"):
        parser.add_argument(f"--{flag}", action="append", default=[], dest=flag.replace("-", "_"))
    parser.set_defaults(handler=handle)
    helm_flags(parser)


def handle(args: argparse.Namespace) -> int:
    sets = {flag: getattr(args, flag.replace("-", "_"))
            for flag in ("set", "set-string", "set-file", "set-json", "set-literal")}
    if not args.paths:
        raise RunnerError('"helm lint" requires at least 1 argument\n\nUsage:  helm lint PATH [flags]')
    opts = LintOptions(
        paths=args.paths, strict=args.strict, with_subcharts=args.with_subcharts,
        quiet=args.quiet, skip_schema_validation=args.skip_schema_validation,
        kube_version=args.kube_version, namespace=args.namespace,
        values_files=args.values_files, sets=sets,
    )
    return run_reporting_bugs(args, lambda: run(opts))


def run(opts: LintOptions, out: TextIO | None = None) -> int:
    """Lint every path; print as helm lint does; raise RunnerError(summary) when a chart fails."""
    from runner.engine_objects import parse_kube_version

    out = out or sys.stdout
    kube = parse_kube_version(opts.kube_version) if opts.kube_version else None
    paths = list(opts.paths)
    if opts.with_subcharts:
        for path in opts.paths:
            paths.extend(subchart_paths(path))
    values = _user_values(opts)
    report: list[str] = []
    failed = with_findings = 0
    for path in paths:
        result = lint_path(path, values, opts, kube)
        if result.has_warnings_or_errors():
            with_findings += 1
        elif opts.quiet:
            continue
        report.append(format_result(path, result, opts.quiet))
        failed += 1 if result.errors else 0
    out.write("".join(report))
    summary = f"{len(paths)} chart(s) linted, {failed} chart(s) failed"
    if failed:
        out.flush()
        raise RunnerError(summary)
    if not opts.quiet or with_findings:
        out.write(summary + "\n")
    return 0


def _user_values(opts: LintOptions) -> dict[str, Any]:
    from runner.chart.uservalues import merge_user_values

    return merge_user_values(opts.values_files, opts.sets)


def format_result(path: str, result: ChartResult, quiet: bool) -> str:
    from runner.lint.support import INFO

    lines = [f"==> Linting {path}\n"]
    if not result.messages:
        lines += [f"Error {err}\n" for err in result.errors]
    lines += [f"{msg}\n" for msg in result.messages if not quiet or msg.severity > INFO]
    lines.append("\n")
    return "".join(lines)


def lint_path(path: str, values: dict[str, Any], opts: LintOptions, kube: Any) -> ChartResult:
    """action.Lint.Run for one path (archives are expanded to a temporary directory)."""
    if path.endswith(_ARCHIVE_SUFFIXES):
        with tempfile.TemporaryDirectory(prefix="helm-lint") as tmp:
            try:
                chart_dir = expand_archive(path, tmp)
            except RunnerError as err:
                return ChartResult(errors=[str(err)])
            return _lint_dir(chart_dir, values, opts, kube)
    return _lint_dir(path, values, opts, kube)


def _lint_dir(chart_dir: str, values: dict[str, Any], opts: LintOptions, kube: Any) -> ChartResult:
    from runner.chart.logs import Warnings
    from runner.chart.values import deep_copy
    from runner.lint import TemplateOptions, run_all
    from runner.lint.support import ERROR, WARNING

    chart_yaml = os.path.normpath(os.path.join(chart_dir, "Chart.yaml"))
    try:
        os.stat(chart_yaml)
    except OSError as exc:
        reason = "not a directory" if isinstance(exc, NotADirectoryError) else "no such file or directory"
        return ChartResult(errors=[f"unable to check Chart.yaml file in chart: stat {chart_yaml}: {reason}"])
    template_opts = TemplateOptions(
        values=deep_copy(values), namespace=opts.namespace,
        kube_version=opts.kube_version or None,
        kube_major_minor=(int(kube.Major), int(kube.Minor)) if kube is not None else None,
        skip_schema=opts.skip_schema_validation,
    )
    warnings = Warnings()
    linter = run_all(chart_dir, template_opts, warnings)
    for line in warnings.items:
        print(str(line), file=sys.stderr)
    lowest = WARNING if opts.strict else ERROR
    errors = [m.text for m in linter.messages if m.severity >= lowest]
    return ChartResult(messages=linter.messages, errors=errors)


def expand_archive(path: str, destination: str) -> str:
    """chartutil.Expand into destination; the chart's directory inside it."""
    from runner.chart.archive import extract, read_archive
    from runner.chart.chartfile import load_yaml_document

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RunnerError(f"unable to open tarball: open {path}: {(exc.strerror or '').lower()}") from exc
    try:
        files = read_archive(data, path)
        chart_yaml = next((d for n, d in files if n == "Chart.yaml"), b"")
        doc = load_yaml_document(chart_yaml, "Chart.yaml", ints=True) if chart_yaml else None
    except RunnerError as exc:
        reason = str(exc).removeprefix(f"{path}: ")  # Expand reads a stream: no file name
        raise RunnerError(f"unable to extract tarball: {reason}") from exc
    name = str(doc.get("name") or "") if isinstance(doc, dict) else ""
    target = Path(destination) / (name or "chart")
    extract(files, target)
    return str(target)


def subchart_paths(path: str) -> list[str]:
    """filepath.Walk of PATH/charts: directories holding a Chart.yaml, and chart archives."""
    found: list[str] = []
    _walk(os.path.normpath(os.path.join(path, "charts")), found)
    return found


def _walk(current: str, found: list[str]) -> None:
    name = os.path.basename(current)
    if name == "Chart.yaml":
        found.append(os.path.dirname(current))
    elif current.endswith(_ARCHIVE_SUFFIXES):
        found.append(current)
    if os.path.isdir(current) and not os.path.islink(current):
        try:
            entries = sorted(os.listdir(current))
        except OSError:
            return
        for entry in entries:
            _walk(os.path.join(current, entry), found)
