"""Fixtures for running workflows as the runner does (tests/workflows/executor.py): a
job's machine (the action's copy and the cache service are tests/conftest.py's)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.workflows.executor import Runner
from tests.workflows.machine import ACTION_NAME, machine_env
from tests.workflows.stand_ins import stand_ins


@pytest.fixture
def make_runner(tmp_path: Path, action_dir: Path, cache_store: Path) -> Callable[..., Runner]:
    counter = iter(range(1000))

    def make(github: Any, source: Path, event: str, payload: dict[str, Any], *,
             secrets: dict[str, str] | None = None, variables: dict[str, str] | None = None,
             sha: str = "f" * 40, ref: str = "refs/heads/main", **env: str) -> Runner:
        from testbed.github import TOKEN

        return Runner(root=tmp_path / f"job-{next(counter)}", repository=github.repository,
                      event_name=event, payload=payload, api_url=github.url, token=TOKEN,
                      action_name=ACTION_NAME, action_dir=action_dir,
                      stand_ins=stand_ins(source, cache_store), sha=sha, ref=ref,
                      secrets=secrets or {}, variables=variables or {},
                      base_env=machine_env(**env))

    return make
