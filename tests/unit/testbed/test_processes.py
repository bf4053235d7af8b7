"""Stopping a component ends its whole process group."""

from __future__ import annotations

import os
import time
from pathlib import Path

from runner.testbed import processes


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
