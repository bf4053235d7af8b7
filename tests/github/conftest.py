"""The local GitHub server (runner.testbed.github) for the report's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runner.testbed.github import FakeGitHub


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
