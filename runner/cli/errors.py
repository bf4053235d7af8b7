"""How a command's failure reaches the user: the one place errors become text and exit codes.

- A RunnerError (the user's, or the cluster's) prints `Error: <message>` (then its
  details: a failed deploy's evidence) and exits with its exit_code, with --debug too
  (as Helm's errors: the message is the report).
- Anything else is a bug of ours: one `Error: internal error: <Type>: <message>`
  line, exit 1 (recursion deeper than the stack: "nested too deeply"); `--debug` shows
  the traceback instead.
- Ctrl-C prints `Error: interrupted`, exit 130; SIGTERM (runner.errors.Terminated,
  raised as Ctrl-C is) the same, exit 143. install and upgrade answer both as Helm's
  do instead: the release is recorded failed and the error is `context canceled`.

File-system failures of the chart-source commands read as Go's (`open PATH: no
such file or directory`) through `user_errors`.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from runner.errors import RunnerError, Terminated, internal_error

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from runner.cli.pflag import Namespace


def run_reporting_errors(work: Callable[[], int], debug: Callable[[], bool]) -> int:
    """Run `work` (parsing and the command); print its failure as the module text says.
    `debug` is asked only when something failed (the flags may not be parsed yet)."""
    try:
        return work()
    except RunnerError as err:
        print(f"Error: {err}", file=sys.stderr)
        if err.details:
            print(err.details, file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt as err:
        print("Error: interrupted", file=sys.stderr)
        return 128 + (err.signal_number if isinstance(err, Terminated) else 2)
    except Exception as err:  # a bug of ours: one line; the traceback only with --debug
        if debug():
            raise
        failure = internal_error(err)
        print(f"Error: {failure}", file=sys.stderr)
        return failure.exit_code


def user_errors(handler: Callable[..., int]) -> Callable[..., int]:
    """File-system failures read as Go's (`open PATH: no such file or directory`), never a traceback."""

    @functools.wraps(handler)
    def guarded(args: Namespace, *more: Any) -> int:
        try:
            return handler(args, *more)
        except OSError as err:
            reason = (err.strerror or str(err)).lower()
            raise RunnerError(f"open {err.filename}: {reason}" if err.filename else reason) from err

    return guarded
