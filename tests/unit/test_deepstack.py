"""runner.deepstack: deep recursion ends in a clear error, never in a crash.

Each recursion pattern runs in a child process (a crash there is an exit
code, not a lost test run) until the recursion limit stops it: the limit
must be reached before the thread's stack runs out, however the frames
recurse (through C callbacks, generators, json's C encoder).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from runner.deepstack import BYTES_PER_FRAME, STACK_SIZES, on_deep_thread, recursion_limit, run_deep
from runner.errors import NestingError

PATTERNS = {
    "python": "def f(n): return f(n + 1)",
    "sorted key=": "def f(n): return sorted([n], key=lambda x: f(x + 1))",
    "json default=": (
        "import json\n"
        "def f(n): return json.dumps(object(), default=lambda o: f(n + 1))"
    ),
    "generator": "def f(n): yield from f(n + 1)\n_f = f\nf = lambda n: list(_f(n))",
    "join of a generator": "def f(n): return ''.join(f(n + 1) for _ in 'x')",
    "map": "def f(n): return list(map(f, [n + 1]))",
}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_recursion_ends_in_nesting_error_not_a_crash(pattern: str) -> None:
    script = PATTERNS[pattern] + textwrap.dedent("""
        from runner.deepstack import run_deep
        from runner.errors import NestingError
        try:
            run_deep(lambda: f(0))
        except NestingError as err:
            print("nesting:", err)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "nesting: the input is nested too deeply to process\n"


def test_the_limit_fits_the_largest_stack() -> None:
    assert recursion_limit(STACK_SIZES[0]) * BYTES_PER_FRAME <= STACK_SIZES[0]
    assert recursion_limit(STACK_SIZES[0]) >= 200_000  # Go's template depth, ~2 frames a call


def test_runs_inline_when_already_deep() -> None:
    def inner() -> tuple[bool, int]:
        return on_deep_thread(), sys.getrecursionlimit()

    assert not on_deep_thread()
    deep, limit = run_deep(lambda: run_deep(inner))
    assert deep
    assert limit == recursion_limit(STACK_SIZES[0])
    assert sys.getrecursionlimit() < limit  # restored afterwards


def test_the_work_result_and_errors_come_back() -> None:
    assert run_deep(lambda: 42) == 42
    with pytest.raises(KeyError):
        run_deep(lambda: {}["x"])


def test_recursion_error_becomes_nesting_error() -> None:
    def recurse(n: int) -> int:
        return recurse(n + 1)

    with pytest.raises(NestingError, match="nested too deeply"):
        run_deep(lambda: recurse(0))


@pytest.mark.skipif(not hasattr(signal, "SIGINT"), reason="POSIX signals")
def test_ctrl_c_reaches_the_work() -> None:
    """SIGINT interrupts the main thread, which raises KeyboardInterrupt in the work: its
    handlers run (an install records its release failed) before the command ends."""
    script = textwrap.dedent("""
        import time
        from runner.deepstack import run_deep

        def work():
            try:
                print("started", flush=True)
                while True:
                    time.sleep(0.01)
            except KeyboardInterrupt:
                print("cleaned up", flush=True)
                raise

        try:
            run_deep(work)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    assert signalled_once_started(script, signal.SIGINT) == (0, "cleaned up\ninterrupted\n")


def signalled_once_started(script: str, sig: signal.Signals) -> tuple[int, str]:
    """Run `script` until it prints "started", send `sig`; its exit code and what followed."""
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"
    time.sleep(0.1)
    os.kill(proc.pid, sig)
    out, _ = proc.communicate(timeout=30)
    return proc.returncode, out


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX signals")
def test_sigterm_reaches_the_work_as_terminated_and_wakes_a_blocked_read() -> None:
    """The CLI raises Terminated for SIGTERM on the main thread; the work gets the same kind,
    and a read blocked in a system call (no exception can reach it there) is woken by the
    waker it registered."""
    script = textwrap.dedent("""
        import signal, socket
        from runner.deepstack import WakeOnInterrupt, run_deep
        from runner.errors import Terminated

        def terminate(number, frame):
            raise Terminated(number)

        signal.signal(signal.SIGTERM, terminate)
        left, right = socket.socketpair()

        def work():
            try:
                with WakeOnInterrupt(lambda: left.shutdown(socket.SHUT_RDWR)):
                    print("started", flush=True)
                    left.recv(1)  # blocks until woken
                    while True:
                        pass  # the pending exception arrives at the next step
            except Terminated as err:
                print(f"cleaned up {err.signal_number}", flush=True)
                raise

        try:
            run_deep(work)
        except Terminated:
            print("terminated", flush=True)
    """)
    assert signalled_once_started(script, signal.SIGTERM) == (0, "cleaned up 15\nterminated\n")


def test_an_interrupt_landing_as_the_work_ends_does_not_leave_the_caller_waiting(monkeypatch) -> None:
    """Ctrl-C passed on to the work just as it finishes (its output all written) lands in
    the thread's last steps: the command still returns, with the work's result."""
    import threading

    from runner import deepstack

    class LateInterrupt(set):
        def discard(self, ident: int) -> None:  # the work thread's very last steps
            super().discard(ident)
            raise KeyboardInterrupt

    monkeypatch.setattr(deepstack, "_deep_threads", LateInterrupt())
    answers: list[int] = []
    caller = threading.Thread(target=lambda: answers.append(deepstack.run_deep(lambda: 5)), daemon=True)
    caller.start()
    caller.join(timeout=30)
    assert not caller.is_alive(), "run_deep still waits for a work that has ended"
    assert answers == [5]
