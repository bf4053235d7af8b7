"""The testbed's error: what went wrong, said so a user can act on it."""

from __future__ import annotations

from runner.errors import RunnerError


class TestbedError(RunnerError):
    """The local Kubernetes testbed could not be built, started or used."""

    __test__ = False  # not a pytest test class, despite the name
