"""Every corpus chart renders byte-identical to Helm 4.1.4's `helm template`.

Charts in known_differences.txt still differ today; for them the test checks
that they STILL differ, so a fix is noticed and the list shrinks. Helm renders
each chart in the run; nothing expected is stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.testbed.helm import helm_binary
from tests.conformance.harness import chart_names, check_chart

KNOWN_DIFFERENCES_FILE = Path(__file__).parent / "known_differences.txt"


def known_differences() -> set[str]:
    lines = KNOWN_DIFFERENCES_FILE.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def test_known_differences_name_real_charts() -> None:
    assert known_differences() <= set(chart_names())


@pytest.mark.conformance
@pytest.mark.parametrize("chart", chart_names())
def test_chart_renders_as_helm(chart: str) -> None:
    result = check_chart(helm_binary(), chart)
    if chart in known_differences():
        assert not result.identical, (
            f"{chart} now renders identical to Helm: remove it from {KNOWN_DIFFERENCES_FILE.name}"
        )
    else:
        assert result.identical, f"{chart} differs from helm template: {result.first_difference}"
