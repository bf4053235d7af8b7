"""Deep recursion without a crash: deep work runs on a thread whose stack holds it.

Helm reads YAML and JSON nested up to 10000 deep, runs `template` calls
100000 deep and includes 1000 deep; our code recurses at every level.
CPython 3.11 bounds recursion by a count of frames (the recursion limit),
not by the C stack: a limit raised beyond what the stack holds turns deep
input into a SIGSEGV with no message. So the limit is raised only on a
thread started with a stack sized for it, `stack // BYTES_PER_FRAME` frames.

BYTES_PER_FRAME is what one counted frame may take of the C stack, with
headroom: a Python call costs none (3.11 runs it in the same C frame), a
recursion through C (a generator, a key= or default= callback, json's C
scanner, PyYAML's composer) up to ~3.3 KiB measured on x86-64
(tests/unit/test_deepstack.py recurses each way on such a thread).

Commands run here whole (runner.cli), so what a command does with deep
values (load, coalesce, validate, render, encode records) has the room; a
Ctrl-C (or SIGTERM, raised as runner.errors.Terminated) reaches the waiting
main thread and is passed on to the work. An exception reaches a thread only
between two Python steps, so work that blocks in a system call for long (a
watch's read) registers a way to wake it (`WakeOnInterrupt`).
"""

from __future__ import annotations

import _thread  # not threading: importing it costs ~0.7 ms at every start
import sys

from runner.errors import NestingError, RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

BYTES_PER_FRAME = 5 * 1024
# Reserved address space, not memory: pages are touched only as deep as the work goes.
# Where an allocation that size is refused (a small VM), smaller stacks are tried.
STACK_SIZES = (1 << 30, 256 << 20, 64 << 20, 16 << 20)

_deep_threads: set[int] = set()
_wakers: set[Callable[[], None]] = set()


class WakeOnInterrupt:
    """While inside, an interrupt passed on to the work also calls `wake` (on the main
    thread), to unblock a system call the exception cannot reach, such as shutting
    down the socket of a long read. `wake` must be safe to call from another thread."""

    def __init__(self, wake: Callable[[], None]) -> None:
        self.wake = wake

    def __enter__(self) -> WakeOnInterrupt:
        _wakers.add(self.wake)
        return self

    def __exit__(self, *exc: object) -> None:
        _wakers.discard(self.wake)


def recursion_limit(stack_bytes: int) -> int:
    """The most frames a stack of `stack_bytes` holds, whatever the frames recurse through."""
    return stack_bytes // BYTES_PER_FRAME


def on_deep_thread() -> bool:
    return _thread.get_ident() in _deep_threads


def run_deep(work: Callable[[], T]) -> T:
    """`work()` on a thread with a deep stack (inline when already on one); its result or error.

    A RecursionError that escapes `work` becomes a NestingError: a clear message
    rather than a traceback, for recursion no input limit bounded first. Work that
    needs more frames than its stack holds fails so, never by a crash.
    """
    if on_deep_thread():
        return work()
    box: dict[str, Any] = {}
    done = _thread.allocate_lock()
    done.acquire()

    def target(limit: int) -> None:
        try:
            _run_boxed(work, limit, box)
        except BaseException:  # noqa: S110 - an interrupt passed on as the work ended: nothing left to stop
            pass
        finally:
            done.release()  # even then, or the caller would wait for ever

    _start(target)
    _wait(done, box)
    if "error" in box:
        raise box["error"]
    return box["result"]


def _run_boxed(work: Callable[[], T], limit: int, box: dict[str, Any]) -> None:
    """`work()` with `limit` frames; its result or error in `box`."""
    ident = _thread.get_ident()
    _deep_threads.add(ident)
    box["ident"] = ident
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        box["result"] = work()
    except RecursionError as err:
        box["error"] = NestingError()
        box["error"].__cause__ = err
    except BaseException as err:  # re-raised on the caller's thread
        box["error"] = err
    finally:
        sys.setrecursionlimit(old)
        _deep_threads.discard(ident)


def start_deep_thread(work: Callable[[], None]) -> int:
    """Start `work()` on a new thread with a deep stack, not waited for (one of several works
    at once: a spec's releases); its ident. run_deep inside it runs inline. The recursion
    limit is left as it is: start such threads from deep work, whose limit they hold."""
    def target(_limit: int) -> None:
        ident = _thread.get_ident()
        _deep_threads.add(ident)
        try:
            work()
        except KeyboardInterrupt:
            pass  # passed on after `work` had reported (its very last steps): nothing left to stop
        finally:
            _deep_threads.discard(ident)

    return _start(target)


def _start(target: Callable[[int], None]) -> int:
    """Start `target(limit)` on the largest stack of STACK_SIZES the system grants; its ident."""
    previous = _thread.stack_size()
    try:
        for size in STACK_SIZES:
            try:
                _thread.stack_size(size)
                return _thread.start_new_thread(target, (recursion_limit(size),))
            except (RuntimeError, ValueError, MemoryError):
                if size == STACK_SIZES[-1]:
                    raise RunnerError("cannot start a thread for the work: out of memory") from None
        raise AssertionError("unreachable")
    finally:
        _thread.stack_size(previous)


def _wait(done: Any, box: dict[str, Any]) -> None:
    """Wait for the work; a Ctrl-C here (signals reach only the main thread) is raised in it.

    The work then unwinds as it would on the main thread (an install records
    its release failed); a second Ctrl-C stops waiting for that.
    """
    try:
        done.acquire()
    except KeyboardInterrupt as interrupt:  # Terminated too: the work gets the same kind
        interrupt_work(box.get("ident"), type(interrupt))
        done.acquire()  # a second Ctrl-C propagates from here


def interrupt_thread(ident: int, kind: type[BaseException]) -> None:
    """Raise `kind` in the thread `ident` at its next Python step (a spec run passes an
    interrupt on to its releases' threads so)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(kind))


def interrupt_work(ident: int | None, kind: type[BaseException]) -> None:
    """Raise `kind` in the thread `ident` and wake every blocked read registered with
    WakeOnInterrupt (a signal reaching the main thread; a spec run's deadline)."""
    if ident is not None:
        interrupt_thread(ident, kind)
    for wake in list(_wakers):
        try:
            wake()
        except OSError:
            continue  # already closed: nothing left to wake
