"""The local GitHub server (testbed.github) for the report's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from testbed.github import FakeGitHub


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
