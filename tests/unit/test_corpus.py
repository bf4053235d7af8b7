"""Tests that read the chart corpus fail, naming where they looked, when it is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import CHARTS_DIR, REPO, chart_names

# One unit file per way of reading the corpus: charts by name, files by pattern, one chart.
READERS = ["tests/unit/chart/test_loader.py", "tests/unit/chart/test_metaschema.py",
           "tests/unit/chart/test_values.py"]


def _pytest(corpus: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEPLOY_RUNNER_CHARTS": str(corpus)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=300, check=False)


def test_the_corpus_is_found_beside_the_repository_unless_pointed_elsewhere() -> None:
    expected = Path(os.environ.get("DEPLOY_RUNNER_CHARTS") or REPO.parent / "shared" / "charts")
    assert expected == CHARTS_DIR
    assert len(chart_names()) >= 40


@pytest.mark.parametrize("corpus", ["missing", "empty"])
def test_a_missing_or_empty_corpus_fails_the_tests_that_read_it(tmp_path: Path, corpus: str) -> None:
    place = tmp_path / corpus
    if corpus == "empty":
        place.mkdir()
    proc = _pytest(place, *READERS)
    assert proc.returncode not in (0, 5), proc.stdout[-2000:]  # 5: no test collected
    assert "skipped" not in proc.stdout.splitlines()[-1]
    for reader in READERS[:2]:  # collected at import: the error names the file and the place
        assert f"ERROR {reader}" in proc.stdout
    assert f"the chart corpus {'is missing' if corpus == 'missing' else 'at'}" in proc.stdout
    assert str(place) in proc.stdout
