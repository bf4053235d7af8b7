"""The campaign's fixtures: `home` (the caches and state of every CLI run, one per session),
the canary check after every test. The figures are printed at the end of the run by
tests/conftest.py, which also adds up those of parallel workers."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.campaign import CANARY, FIGURES, OUTPUTS

_LEAKED = (CANARY.encode(), base64.b64encode(CANARY.encode()))


@pytest.fixture(scope="session")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("campaign-home")


def _files_with_canary(root: Path, pattern: str = "**/*") -> list[str]:
    found = []
    for path in root.glob(pattern) if root.exists() else ():
        try:
            data = path.read_bytes() if path.is_file() else b""
        except OSError:
            continue
        if any(leak in data for leak in _LEAKED):
            found.append(str(path))
    return found


@pytest.fixture(autouse=True)
def canary_stays_secret(request: pytest.FixtureRequest, home: Path) -> Iterator[None]:
    """After each test: the canary is in no output or error of our CLI, no file under the
    campaign's cache and state directories, no log of the testbed's components."""
    seen = len(OUTPUTS.texts)
    yield
    leaks = [f"output of `{what}`" for what, text in OUTPUTS.texts[seen:]
             if any(leak.decode() in text for leak in _LEAKED)]
    leaks += _files_with_canary(home)
    if "cluster" in request.fixturenames:
        # the components' logs (etcd's data holds the stored Secrets, as it should)
        leaks += _files_with_canary(request.getfixturevalue("cluster").testbed.workdir, "*.log")
    FIGURES.add("canary", "outputs scanned", len(OUTPUTS.texts) - seen)
    assert not leaks, f"the canary value leaked into: {leaks}"
