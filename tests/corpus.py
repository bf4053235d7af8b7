"""Where the chart corpus is, for every test that reads it.

The corpus lives beside the repository, in ../shared/charts (here and in CI's fresh clone);
DEPLOY_RUNNER_CHARTS points elsewhere (e.g. for a checkout in a scratch directory). A test
never finds it at an absolute path, and a missing or empty corpus is an error that names
where it was looked for: a test that read no chart must not pass, nor be skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHARTS_DIR = Path(os.environ.get("DEPLOY_RUNNER_CHARTS") or REPO.parent / "shared" / "charts")
VALUES_DIR = CHARTS_DIR / "_values"


class CorpusMissing(RuntimeError):
    """The chart corpus is not where the tests look for it."""


def chart_names() -> list[str]:
    """The corpus's charts (directories not starting with `_`), sorted; never empty."""
    if not CHARTS_DIR.is_dir():
        raise CorpusMissing(f"the chart corpus is missing: {CHARTS_DIR} is not a directory "
                            "(it sits beside the repository, or set DEPLOY_RUNNER_CHARTS)")
    names = sorted(p.name for p in CHARTS_DIR.iterdir() if p.is_dir() and not p.name.startswith("_"))
    if not names:
        raise CorpusMissing(f"the chart corpus at {CHARTS_DIR} holds no chart")
    return names


def corpus_chart(name: str) -> Path:
    """The path of one corpus chart, which must exist."""
    path = CHARTS_DIR / name
    if not (path / "Chart.yaml").is_file():
        raise CorpusMissing(f"the corpus chart {name} is missing: no {path / 'Chart.yaml'}")
    return path


def corpus_files(pattern: str) -> list[Path]:
    """The corpus files matching a glob pattern, sorted; never empty."""
    chart_names()  # the corpus itself must be there
    found = sorted(CHARTS_DIR.glob(pattern))
    if not found:
        raise CorpusMissing(f"no file of the chart corpus at {CHARTS_DIR} matches {pattern}")
    return found


def corpus_values_args(name: str) -> list[str]:
    """`-f <file>` for a corpus chart that needs values (its _values/<name>.yaml), else none."""
    values = VALUES_DIR / f"{name}.yaml"
    return ["-f", str(values)] if values.is_file() else []
