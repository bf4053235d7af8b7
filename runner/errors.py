"""The one exception family: its message is what the user reads (runner.cli.errors prints it)."""

from __future__ import annotations


class RunnerError(Exception):
    """Base of every error deploy-runner reports to a user (no traceback shown)."""

    exit_code = 1
    # What the user reads after the `Error:` line: the evidence of a failed deploy
    # (runner.actions.evidence), already redacted.
    details = ""


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



CANCELED = "context canceled"  # Go's context.Canceled, the reason Helm records and reports


class Canceled(RunnerError):
    """The operation was stopped by a signal (SIGINT, SIGTERM) before it finished: Helm's
    `context canceled`, the reason an interrupted install or upgrade is recorded failed with."""

    def __init__(self) -> None:
        super().__init__(CANCELED)


class Terminated(KeyboardInterrupt):
    """SIGTERM (`docker stop`, a cancelled CI job), raised where Ctrl-C's KeyboardInterrupt
    is, so every clean-up that handles one handles both. Exit code 128 + signal number."""

    def __init__(self, signal_number: int = 15) -> None:
        super().__init__(signal_number)
        self.signal_number = signal_number


DEADLINE_EXCEEDED = "context deadline exceeded"  # Go's context.DeadlineExceeded


class DeadlineReached(KeyboardInterrupt):
    """The run's deadline passed with work still running (a Lambda function's time running
    out: runner.actions.run's RunOptions.deadline). Raised in the work as a signal's
    interrupt is, so every clean-up that handles one handles this too; an install or
    upgrade records its revision failed with DeadlineExceeded's reason."""


class DeadlineExceeded(RunnerError):
    """Why an operation stopped at the run's deadline (recorded on its failed revision)."""

    def __init__(self) -> None:
        super().__init__(f"{DEADLINE_EXCEEDED}: the run's time ran out while this release was deploying")


def interrupted(interrupt: BaseException) -> RunnerError:
    """The error an interrupted operation ends with: the deadline's, else a signal's
    `context canceled`."""
    return DeadlineExceeded() if isinstance(interrupt, DeadlineReached) else Canceled()
