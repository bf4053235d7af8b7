"""Stopping a component ends its whole process group; teardown is safe from a signal handler."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from testbed import processes


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it has exited all the same.
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_stop_kills_the_component_and_the_children_it_spawned(tmp_path: Path) -> None:
    # The shell starts a background child, prints its pid, then waits.
    component = processes.start("sleeper", ["sh", "-c", "sleep 300 & echo $!; wait"], tmp_path)
    log = tmp_path / "sleeper.log"
    deadline = time.monotonic() + 10
    while not log.read_text().strip() and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(log.read_text().split()[0])
    assert _alive(child)

    processes.stop([component])

    assert not component.alive()
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the background child must die with its group"


def test_cleanup_registry_runs_each_callback_once() -> None:
    registry = processes.CleanupRegistry()
    calls: list[str] = []
    registry._installed = True  # keep the test from installing real signal handlers
    registry.register(lambda: calls.append("a"))
    registry.register(lambda: calls.append("b"))

    registry.run_all()
    registry.run_all()

    assert calls == ["b", "a"]


REPO = Path(__file__).resolve().parents[3]


def _run_script(script: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=REPO, timeout=timeout, check=False)


def test_a_signal_during_a_registry_update_still_tears_down_and_exits() -> None:
    # A signal handler runs between any two bytecodes of the main thread, also while the
    # registry is updating its list. A callback whose comparison sends SIGTERM makes that
    # moment exact: unregister compares it, and the signal lands inside unregister.
    script = textwrap.dedent("""
        import os, signal
        from testbed import processes

        class SignalsWhenCompared:
            def __call__(self):
                print("torn down", flush=True)
            def __eq__(self, other):
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):
                    pass  # the handler runs at one of these bytecode boundaries
                return self is other
            __hash__ = object.__hash__

        def other():
            print("other torn down", flush=True)

        processes.cleanup.register(SignalsWhenCompared())
        processes.cleanup.register(other)
        processes.cleanup.unregister(other)
        print("not reached", flush=True)
    """)
    try:
        proc = _run_script(script)
    except subprocess.TimeoutExpired:
        pytest.fail("the process hung: the signal handler waited for a lock its own thread held")
    assert (proc.returncode, proc.stdout) == (128 + signal.SIGTERM, "other torn down\ntorn down\n")


def test_a_signal_while_stop_waits_for_a_component_still_stops_everything(tmp_path: Path) -> None:
    # `stop()` is waiting for a component that ignores SIGTERM when the process is told to
    # terminate: the handler must finish the job (every component, the work directory).
    workdir = tmp_path / "testbed"
    workdir.mkdir()
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from testbed import processes
        from testbed.cluster import Testbed

        processes._STOP_GRACE_SECONDS = 1.0
        workdir = Path({str(workdir)!r})
        first = processes.start("first", ["sh", "-c", "sleep 300 & echo $!; wait"], workdir)
        stubborn = processes.start("stubborn", ["sh", "-c", "trap '' TERM; echo up; sleep 300"], workdir)
        while not ((workdir / "first.log").read_text().strip()
                   and (workdir / "stubborn.log").read_text().strip()):
            time.sleep(0.05)
        testbed = Testbed(None, workdir, None, {{}}, workdir / "kubeconfig", [first, stubborn])
        processes.cleanup.register(testbed.stop)
        print((workdir / "first.log").read_text().split()[0], flush=True)
        testbed.stop()
        print("stop returned", flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert proc.stdout is not None
    background_child = int(proc.stdout.readline())
    time.sleep(0.3)  # inside stop(), waiting out the stubborn component's grace period
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the process hung in stop() after SIGTERM")
    deadline = time.monotonic() + 5
    while _alive(background_child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert code == 128 + signal.SIGTERM
    assert not _alive(background_child), "the first component was never stopped"
    assert not workdir.exists(), "the work directory was left behind"
