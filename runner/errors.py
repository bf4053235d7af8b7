"""The one exception family: its message is what the user reads."""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


class RunnerError(Exception):
    """Base of every error deploy-runner reports to a user (no traceback shown)."""

    exit_code = 1


class UsageError(RunnerError):
    """Bad flags or arguments on the command line."""

    exit_code = 2


class NestingError(RunnerError):
    """Input nested deeper than our recursion can follow, where no limit of Helm's stopped it
    first (Go's stacks grow to 1 GB; ours are sized in runner.deepstack)."""

    def __init__(self, what: str = "the input") -> None:
        super().__init__(f"{what} is nested too deeply to process")


def internal_error(err: Exception) -> RunnerError:
    """The one-line error for an exception that is not a RunnerError: a bug of ours, or
    recursion deeper than the stack allows (NestingError)."""
    if isinstance(err, RecursionError):
        return NestingError()
    return RunnerError(f"internal error: {type(err).__name__}: {err}")


def run_reporting_bugs(args: Any, work: Callable[[], int]) -> int:
    """Run `work`; a bug of ours (not a RunnerError) reads as one line, the traceback only with --debug."""
    try:
        return work()
    except RunnerError:
        raise
    except Exception as err:
        if getattr(args, "debug", False):
            raise
        raise internal_error(err) from err
