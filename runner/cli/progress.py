"""What the CLI shows while an action waits (messages of kind WAIT, whose data is a
runner.kube.wait.WaitProgress), on stderr:

- on a terminal, a live view redrawn in place: what is awaited, for how long, and
  each object not there yet with its status and why; it is erased when the wait ends
  and one line says how it ended;
- without one (CI logs), a line when the wait starts (with what is not ready), a line
  per change, a summary at most every SUMMARY_SECONDS, and a line at the end;
- nothing with --no-progress, or when the output is JSON or YAML.

Other messages printed while a live view is up (warnings) erase it first and it is
drawn again below them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from runner.kube.wait import Awaited, WaitProgress

SUMMARY_SECONDS = 10.0  # without a terminal, a summary at most this often
LISTED = 10  # objects named when a wait starts without a terminal
_UP_AND_CLEAR = "\x1b[{}F\x1b[J"  # cursor to the start of the line n up, erase to the end of the screen


def state_word(awaited: Awaited, goal: str) -> str:
    """How one object stands: its goal reached, or its status and why not."""
    if awaited.settled and awaited.status not in ("Failed",):
        return goal
    return f"{awaited.status}: {awaited.message}" if awaited.message else awaited.status


def heading(progress: WaitProgress) -> str:
    from runner.kube.wait import seconds

    total = len(progress.awaited)
    what = "hook " + ", ".join(a.ref for a in progress.awaited) if progress.purpose == "hook" and total <= 3 \
        else f"{total} object{'s' if total != 1 else ''}"
    limit = f" of {seconds(progress.timeout)}" if progress.timeout else ""
    return f"Waiting for {what} to be {progress.goal} ({seconds(progress.elapsed)}{limit})"


class LogProgress:
    """Without a terminal: a line per change, a summary at most every SUMMARY_SECONDS."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.summarised = 0.0

    def show(self, progress: WaitProgress) -> None:
        from runner.kube.wait import seconds

        stamp = f"[{seconds(progress.elapsed)}]"
        if progress.stage == "start":
            pending = progress.pending
            self._line(f"{heading(progress)}: {len(pending)} not {progress.goal} yet")
            for awaited in pending[:LISTED]:
                self._line(f"  {awaited.ref}: {state_word(awaited, progress.goal)}")
            if len(pending) > LISTED:
                self._line(f"  and {len(pending) - LISTED} more")
            self.summarised = progress.elapsed
        elif progress.stage == "change":
            for awaited in progress.changed:
                self._line(f"{stamp} {awaited.ref}: {state_word(awaited, progress.goal)}")
        elif progress.stage == "tick" and progress.elapsed - self.summarised >= SUMMARY_SECONDS:
            self._line(f"{stamp} {progress.summary()}")
            self.summarised = progress.elapsed
        elif progress.stage == "end":
            self._line(f"{stamp} {progress.summary()}")

    def _line(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def clear(self) -> None:
        """Nothing drawn to take back."""


class LiveProgress:
    """On a terminal: the view of the wait, redrawn in place."""

    def __init__(self, out: TextIO, rows: int, columns: int = 0) -> None:
        self.out = out
        self.rows = max(rows, 3)  # lines the view may take
        self.columns = columns  # each line is cut to fit (a wrapped line would spoil the redraw); 0: no cut
        self.drawn = 0
        self.last: WaitProgress | None = None

    def show(self, progress: WaitProgress) -> None:
        self.clear()
        if progress.stage == "end":
            self.last = None
            print(progress.summary(), file=self.out, flush=True)
            return
        self.last = progress
        self._draw(progress)

    def clear(self) -> None:
        """Take the view off the screen (before other output, or at the end)."""
        if self.drawn:
            self.out.write(_UP_AND_CLEAR.format(self.drawn))
            self.out.flush()
            self.drawn = 0

    def redraw(self) -> None:
        if self.last is not None:
            self._draw(self.last)

    def _draw(self, progress: WaitProgress) -> None:
        pending = progress.pending
        done = len(progress.awaited) - len(pending)
        lines = [f"{heading(progress)}: {done}/{len(progress.awaited)} {progress.goal}"]
        room = self.rows - 1
        width = max((len(a.ref) for a in pending[:room]), default=0)
        shown = pending if len(pending) <= room else pending[:room - 1]
        lines += [f"  {a.ref:<{width}}  {state_word(a, progress.goal)}" for a in shown]
        if len(shown) < len(pending):
            lines.append(f"  and {len(pending) - len(shown)} more")
        if self.columns:
            lines = [line if len(line) < self.columns else line[:self.columns - 2] + "…" for line in lines]
        self.out.write("".join(f"{line}\n" for line in lines))
        self.out.flush()
        self.drawn = len(lines)


class MessagePrinter:
    """Journal.on_message for the CLI: what an action tells, printed as it comes:
    Helm's notices (`Release x has been cancelled.`) on stdout; warnings, our own
    progress and, with `debug` only, Helm's debug log lines on `out` (stderr); wait
    progress through LiveProgress, LogProgress or not at all."""

    def __init__(self, out: TextIO, progress: LiveProgress | LogProgress | None, *, debug: bool = False) -> None:
        import threading

        self.out = out
        self.progress = progress
        self.debug = debug
        # Objects are written by several threads at once, each telling its server warnings:
        # one line at a time, whole (as klog writes Helm's).
        self._lock = threading.Lock()

    def __call__(self, message: Any) -> None:
        from runner.actions.results import DEBUG, WAIT

        if message.kind == WAIT:
            if self.progress is not None:
                with self._lock:
                    self.progress.show(message.data)
            return
        if message.kind == DEBUG and not self.debug:
            return
        with self._lock:
            self._print(message)

    def _print(self, message: Any) -> None:
        import sys

        from runner.actions.results import NOTICE

        live = self.progress if isinstance(self.progress, LiveProgress) else None
        if live is not None:
            live.clear()
        out = sys.stdout if message.kind == NOTICE else self.out
        out.write(message.text + "\n")
        out.flush()
        if live is not None:
            live.redraw()


def progress_view(out: TextIO) -> LiveProgress | LogProgress:
    """How waits are shown on `out`: a live view on a terminal, lines otherwise."""
    if out.isatty():
        import shutil

        size = shutil.get_terminal_size()
        return LiveProgress(out, min(size.lines - 2, 20), size.columns)
    return LogProgress(out)
