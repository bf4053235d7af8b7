"""Every corpus chart renders byte-identical to Helm 4.1.4's `helm template`.

Each chart is checked with its corpus values, then with flag variants
(--include-crds, capabilities, --is-upgrade/--skip-tests, --no-hooks, --set
toggles, --show-only, --output-dir). Entries of known_differences.txt
(`chart` or `chart:variant`) still differ today; for them the test checks
that they STILL differ, so a fix is noticed and the list shrinks. Helm renders
each case; nothing expected is written down. Its renders are kept in the render
cache (keyed by Helm's version, the arguments and the chart's and values' bytes),
and a case that differs from them is checked again against Helm run now
(tests/conformance/harness.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testbed.helm import helm_binary
from tests.conformance.harness import (
    Comparison,
    chart_names,
    check_chart,
    check_variant,
    variant_names,
)

KNOWN_DIFFERENCES_FILE = Path(__file__).parent / "known_differences.txt"


def known_differences() -> set[str]:
    lines = KNOWN_DIFFERENCES_FILE.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def _assert_as_listed(case: str, result: Comparison) -> None:
    if case in known_differences():
        assert not result.identical, (
            f"{case} now renders identical to Helm: remove it from {KNOWN_DIFFERENCES_FILE.name}"
        )
    else:
        assert result.identical, f"{case} differs from helm template: {result.first_difference}"


def test_known_differences_name_real_cases() -> None:
    charts, variants = set(chart_names()), set(variant_names())
    for entry in known_differences():
        chart, _, variant = entry.partition(":")
        assert chart in charts and (not variant or variant in variants), entry


@pytest.mark.conformance
@pytest.mark.parametrize("chart", chart_names())
def test_chart_renders_as_helm(chart: str) -> None:
    _assert_as_listed(chart, check_chart(helm_binary(), chart))


@pytest.mark.conformance
@pytest.mark.parametrize("variant", variant_names())
@pytest.mark.parametrize("chart", chart_names())
def test_chart_variant_renders_as_helm(chart: str, variant: str) -> None:
    _assert_as_listed(f"{chart}:{variant}", check_variant(helm_binary(), chart, variant))
