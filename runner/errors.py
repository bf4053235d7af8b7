"""The one exception family: its message is what the user reads (runner.cli.errors prints it)."""

from __future__ import annotations


class RunnerError(Exception):
    """Base of every error deploy-runner reports to a user (no traceback shown)."""

    exit_code = 1


class UsageError(RunnerError):
    """Bad flags or arguments on the command line."""

    exit_code = 2
