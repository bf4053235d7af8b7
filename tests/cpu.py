"""`--cpu-per-module N`: where the suite's CPU goes, module by module (docs/testing.md).

For each test module: the wall time of its tests (setup, call, teardown) and the CPU they
used, pytest's own process plus the child processes it waited for (our CLI, helm, ...).
A child's CPU counts when it is reaped: a testbed's components (and any long-lived child)
count, whole, for the test during which they are reaped (after a module's own testbed stops,
often the next process a test starts), not for the tests that used them; the session's
testbed counts for none. Short-lived children (a CLI run, helm) count where they ran. Under
workers, each worker prints nothing; the controller prints what the workers hand over.
"""

from __future__ import annotations

import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

_KEY = "cpu_per_module"


def _cpu_seconds() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


class CpuPerModule:
    """Wall and CPU seconds by module: [wall, own CPU, children's CPU, tests]."""

    def __init__(self, shown: int) -> None:
        self.shown = shown
        self.figures: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[Any]:
        wall, (own, children) = time.perf_counter(), _cpu_seconds()
        try:
            return (yield)
        finally:
            own_after, children_after = _cpu_seconds()
            row = self.figures[item.nodeid.split("::", 1)[0]]
            row[0] += time.perf_counter() - wall
            row[1] += own_after - own
            row[2] += children_after - children
            row[3] += 1

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = getattr(session.config, "workeroutput", None)
        if output is not None:
            output[_KEY] = dict(self.figures)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        for module, row in getattr(node, "workeroutput", {}).get(_KEY, {}).items():
            mine = self.figures[module]
            for i, value in enumerate(row):
                mine[i] += value

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.figures:
            return
        rows = sorted(self.figures.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))
        total = [sum(row[i] for _, row in rows) for i in range(4)]
        terminalreporter.section(f"CPU per module (top {self.shown} of {len(rows)})")
        terminalreporter.write_line(f"{'wall s':>8} {'cpu s':>8} {'own':>8} {'children':>8} {'tests':>6}  module")
        for module, (wall, own, children, tests) in [*rows[:self.shown], ("all modules", total)]:
            terminalreporter.write_line(f"{wall:8.1f} {own + children:8.1f} {own:8.1f} {children:8.1f} "
                                        f"{int(tests):6d}  {module}")


def add_option(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-per-module", type=int, default=0, metavar="N",
                     help="print the N modules whose tests used the most CPU (own and child processes)")


def configure(config: pytest.Config) -> None:
    shown = config.getoption("--cpu-per-module")
    if shown:
        config.pluginmanager.register(CpuPerModule(shown), "cpu-per-module")
