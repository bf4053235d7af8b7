"""The one error wrapper: what a failed command prints and the exit code it returns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runner.cli.errors import run_reporting_errors
from runner.cli.pflag import Namespace
from runner.errors import RunnerError, UsageError

REPO = Path(__file__).resolve().parents[3]


def _fail(err: BaseException) -> int:
    raise err


def test_a_user_error_is_one_line_with_its_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_reporting_errors(lambda: _fail(RunnerError("no such release")), lambda: False) == 1
    assert run_reporting_errors(lambda: _fail(UsageError("bad flag")), lambda: False) == 2
    assert capsys.readouterr().err == "Error: no such release\nError: bad flag\n"


def test_a_bug_reads_as_one_internal_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_reporting_errors(lambda: _fail(KeyError("x")), lambda: False) == 1
    assert capsys.readouterr().err == "Error: internal error: KeyError: 'x'\n"


def test_debug_shows_the_traceback_of_a_bug_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(KeyError):
        run_reporting_errors(lambda: _fail(KeyError("x")), lambda: True)
    assert run_reporting_errors(lambda: _fail(RunnerError("no such release")), lambda: True) == 1
    assert capsys.readouterr().err == "Error: no such release\n"


def test_an_interrupt_is_reported_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_reporting_errors(lambda: _fail(KeyboardInterrupt()), lambda: False) == 130
    assert capsys.readouterr().err == "Error: interrupted\n"


def test_success_passes_the_code_through() -> None:
    assert run_reporting_errors(lambda: 3, lambda: False) == 3


def test_debug_is_asked_only_after_a_failure() -> None:
    asked: list[bool] = []
    assert run_reporting_errors(lambda: 0, lambda: asked.append(True) or False) == 0
    assert asked == []


def test_the_cli_leaves_argparse_alone() -> None:
    # The flags are parsed as pflag parses them (runner.cli.pflag), not with argparse: a
    # program that imports runner.cli and runs a command keeps argparse untouched (and a
    # template run does not pay for importing it).
    code = ("import sys, io, contextlib, runner.cli;"
            "contextlib.redirect_stdout(io.StringIO()).__enter__();"
            "runner.cli.main(['version']);"
            "print('argparse' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120, check=True)
    assert proc.stderr.strip() == "False"


def test_the_module_and_the_console_script_are_the_same_program() -> None:
    proc = subprocess.run([sys.executable, "-m", "runner.cli", "version", "--short"], capture_output=True,
                          text=True, cwd=REPO, timeout=120, check=False)
    assert (proc.returncode, proc.stdout.startswith("v")) == (0, True)
    script = Path(sys.executable).with_name("deploy-runner")
    if not script.exists():
        pytest.fail(f"the console script is not installed at {script} (make install)")
    installed = subprocess.run([str(script), "version", "--short"], capture_output=True, text=True,
                               timeout=120, check=False)
    assert (installed.returncode, installed.stdout) == (0, proc.stdout)


def test_user_errors_reads_file_failures_as_go() -> None:
    from runner.cli.errors import user_errors

    @user_errors
    def handler(_args: Namespace) -> int:
        open("/nonexistent/x")  # noqa: SIM115, PTH123
        return 0

    with pytest.raises(RunnerError, match="^open /nonexistent/x: no such file or directory$"):
        handler(Namespace())


def test_an_errors_details_follow_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    err = RunnerError("UPGRADE FAILED: it broke")
    err.details = "Evidence (...):\n  Job/x: Failed"

    assert run_reporting_errors(lambda: _fail(err), lambda: False) == 1
    assert capsys.readouterr().err == "Error: UPGRADE FAILED: it broke\nEvidence (...):\n  Job/x: Failed\n"


def test_sigterm_is_reported_as_an_interrupt_with_its_own_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    from runner.errors import Terminated

    assert run_reporting_errors(lambda: _fail(Terminated(15)), lambda: False) == 143
    assert capsys.readouterr().err == "Error: interrupted\n"
