"""Where hook output logs go: the proposal's flag and the cap, by command and output format."""

from __future__ import annotations

import sys

import pytest

from runner.cli import root_command
from runner.cli.cobra import find
from runner.cli.release import _connected
from runner.errors import RunnerError


def _config(argv: list[str]) -> object:
    """The command's journal, which carries where its hook logs go."""
    command, rest = find(root_command(), argv)
    args, _ = command.all_flags().parse(rest, print)
    _, journal = _connected(args, output="table" if argv[0] == "uninstall" else None)
    return journal


@pytest.mark.parametrize("argv", [["install", "r", "c"], ["upgrade", "r", "c"], ["rollback", "r"],
                                  ["uninstall", "r"], ["test", "r"]])
def test_logs_go_to_stdout_and_no_log_output_hides_them(argv: list[str]) -> None:
    shown, hidden = _config(argv), _config([*argv, "--no-log-output"])

    assert shown.hook_output("ns", "p", "c") is sys.stdout and shown.hook_log_lines == 500
    assert hidden.hook_output is None


@pytest.mark.parametrize("output", ["json", "yaml"])
def test_a_document_on_stdout_sends_the_logs_to_stderr(output: str) -> None:
    assert _config(["install", "r", "c", "-o", output]).hook_output("ns", "p", "c") is sys.stderr


def test_the_cap_is_taken_and_a_negative_one_refused() -> None:
    assert _config(["upgrade", "r", "c", "--hook-log-lines", "0"]).hook_log_lines == 0
    with pytest.raises(RunnerError, match="invalid --hook-log-lines -1"):
        _config(["upgrade", "r", "c", "--hook-log-lines", "-1"])
