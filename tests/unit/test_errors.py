"""run_reporting_bugs: the one place a bug of ours becomes `internal error: ...`."""

from __future__ import annotations

import argparse

import pytest

from runner.errors import RunnerError, run_reporting_bugs


def _fail(err: Exception) -> int:
    raise err


def test_a_bug_reads_as_one_line() -> None:
    with pytest.raises(RunnerError, match=r"^internal error: KeyError: 'x'$"):
        run_reporting_bugs(argparse.Namespace(), lambda: _fail(KeyError("x")))


def test_debug_keeps_the_original_exception() -> None:
    with pytest.raises(KeyError):
        run_reporting_bugs(argparse.Namespace(debug=True), lambda: _fail(KeyError("x")))


def test_runner_errors_pass_through_unchanged() -> None:
    with pytest.raises(RunnerError, match="^user error$"):
        run_reporting_bugs(argparse.Namespace(), lambda: _fail(RunnerError("user error")))
    assert run_reporting_bugs(argparse.Namespace(), lambda: 3) == 3
