"""Child processes that are always cleaned up.

Each component runs in its own process group (its own session), with output
to a log file. Teardown signals the whole group (SIGTERM, then SIGKILL), so
nothing a component spawned survives. Teardown runs from the context manager,
from atexit, and on SIGTERM/SIGINT/SIGHUP, so an interrupted test session
leaves no control plane behind.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from testbed.errors import TestbedError

_STOP_GRACE_SECONDS = 5.0
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: have Linux SIGKILL it if its parent dies.

    Covers the one case no handler can: the Python process itself being SIGKILLed.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass
class Component:
    name: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def exit_message(self) -> str:
        return f"{self.name} exited with code {self.process.returncode}; last log lines:\n{self.log_tail()}"


def start(name: str, command: list[str], log_dir: Path) -> Component:
    log_path = log_dir / f"{name}.log"
    with open(log_path, "wb") as log:
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: one signal stops it and its children
                preexec_fn=_die_with_parent,
            )
        except OSError as error:
            raise TestbedError(f"cannot start {name} ({command[0]}): {error}") from error
    return Component(name, process, log_path)


def stop(components: list[Component]) -> None:
    """Stop components one by one in reverse start order (etcd last, so the
    apiserver can shut down cleanly): TERM the group, then KILL after a grace period."""
    for component in reversed(components):
        _signal_group(component, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            component.process.wait(timeout=_STOP_GRACE_SECONDS)
        _signal_group(component, signal.SIGKILL)  # also reaps anything left in its group
        with contextlib.suppress(subprocess.TimeoutExpired):
            component.process.wait(timeout=_STOP_GRACE_SECONDS)


def _signal_group(component: Component, signum: signal.Signals) -> None:
    # The group id equals the child's pid (start_new_session); a group that is gone is fine.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(component.process.pid, signum)


class CleanupRegistry:
    """Runs registered teardown callbacks: at exit or on a terminating signal.

    The signal handler runs in the main thread between any two of its bytecodes, also
    while the main thread is itself inside register, unregister or a callback. So the
    registry takes no lock (a lock the interrupted code holds would never be released:
    the process hung there), its list is changed only by single list operations (atomic
    under the GIL), and a callback stays registered until it has finished: a teardown that
    a signal interrupts is run again, whole, by the handler. Callbacks must therefore be
    safe to run twice (Testbed.stop is).
    """

    def __init__(self) -> None:
        self._callbacks: list[Callable[[], None]] = []
        self._installed = False
        self._handling = False

    def register(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)
        if not self._installed:
            self._install()

    def unregister(self, callback: Callable[[], None]) -> None:
        with contextlib.suppress(ValueError):
            self._callbacks.remove(callback)

    def run_all(self) -> None:
        """Run every callback, newest first, each removed once it has finished."""
        for callback in reversed(self._callbacks.copy()):
            with contextlib.suppress(Exception):  # teardown must reach every callback
                callback()
            self.unregister(callback)

    def _install(self) -> None:
        self._installed = True
        atexit.register(self.run_all)
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set from the main thread
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            previous = signal.getsignal(signum)
            signal.signal(signum, self._handler(previous))

    def _handler(self, previous: object) -> Callable[[int, FrameType | None], None]:
        def handle(signum: int, frame: FrameType | None) -> None:
            if self._handling:
                return  # a second signal (a terminal hang-up after Ctrl-C) must not cut teardown short
            self._handling = True
            try:
                self.run_all()
            finally:
                self._handling = False
            if callable(previous):
                previous(signum, frame)  # e.g. Python's default SIGINT -> KeyboardInterrupt
            else:
                raise SystemExit(128 + signum)

        return handle


cleanup = CleanupRegistry()
