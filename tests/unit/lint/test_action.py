"""The lint action and its printing and exit decisions (Helm's pkg/cmd/lint.go), offline."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from runner.actions.lint import LintOptions, lint, subchart_paths
from runner.cli.lint import print_report
from runner.errors import RunnerError

CHART = "apiVersion: v2\nname: {name}\nversion: {version}\nicon: https://x.io/i.png\n"


def _chart(root: Path, name: str, version: str = "0.1.0") -> Path:
    (root / name / "templates").mkdir(parents=True)
    (root / name / "Chart.yaml").write_text(CHART.format(name=name, version=version))
    (root / name / "values.yaml").write_text("")
    return root / name


def _run(opts: LintOptions) -> tuple[str, RunnerError | None]:
    out = io.StringIO()
    try:
        print_report(lint(opts, on_warning=print), opts.quiet, out)
    except RunnerError as err:
        return out.getvalue(), err
    return out.getvalue(), None


def test_clean_chart_prints_header_blank_line_and_summary(tmp_path: Path) -> None:
    path = str(_chart(tmp_path, "a"))
    text, err = _run(LintOptions(paths=[path]))
    assert err is None
    assert text.splitlines()[0].endswith(path)
    assert text.endswith("\n\n1 chart(s) linted, 0 chart(s) failed\n")


def test_warnings_fail_only_with_strict(tmp_path: Path) -> None:
    path = str(_chart(tmp_path, "a", "v1.0.0"))
    assert _run(LintOptions(paths=[path]))[1] is None
    text, err = _run(LintOptions(paths=[path], strict=True))
    assert err is not None and "1 chart(s) failed" in str(err)
    assert "chart(s) linted" not in text


def test_quiet_hides_clean_charts_and_info(tmp_path: Path) -> None:
    clean = str(_chart(tmp_path, "a"))
    text, err = _run(LintOptions(paths=[clean], quiet=True))
    assert (text, err) == ("", None)


def test_missing_chart_is_an_error_line(tmp_path: Path) -> None:
    text, err = _run(LintOptions(paths=[str(tmp_path / "none")]))
    assert err is not None
    assert "\nError unable to check Chart.yaml file in chart: stat " in text


def test_with_subcharts_walks_charts_dir(tmp_path: Path) -> None:
    top = _chart(tmp_path, "top")
    _chart(top / "charts", "b")
    _chart(top / "charts", "a")
    (top / "charts" / "z-1.0.0.tgz").write_bytes(b"")
    found = subchart_paths(str(top))
    assert [Path(p).name for p in found] == ["a", "b", "z-1.0.0.tgz"]


def test_invalid_kube_version_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RunnerError):
        lint(LintOptions(paths=[str(tmp_path)], kube_version="foo"), on_warning=print)
