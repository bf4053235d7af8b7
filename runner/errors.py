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


def run_reporting_bugs(args: Any, work: Callable[[], int]) -> int:
    """Run `work`; a bug of ours (not a RunnerError) reads as one line, the traceback only with --debug."""
    try:
        return work()
    except RunnerError:
        raise
    except Exception as err:
        if getattr(args, "debug", False):
            raise
        raise RunnerError(f"internal error: {type(err).__name__}: {err}") from err
