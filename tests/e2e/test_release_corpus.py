"""Every corpus chart through install, upgrade, upgrade, rollback, then `run --plan`, `run`,
`diff`, and uninstall, with Helm 4.1.4 and with deploy-runner, each on a testbed of its own
(tests/e2e/release_corpus.py says what is compared). The charts run together, a few at a
time, in the fixture of their part of the corpus; each test reports its chart's first
difference."""

from __future__ import annotations

import pytest

from tests.corpus import chart_names
from tests.e2e.release_corpus import ChartResult, run_suite
from tests.workers import corpus_part

pytestmark = pytest.mark.e2e

# The whole suite runs in the first test's setup (both testbeds, every selected chart).
SUITE_TIMEOUT_SECONDS = 3600
# The corpus in parts (tests/workers.py), each a suite of its own (its own two testbeds):
# under parallel workers (`make test`) each part is one worker's unit of work, so the parts
# run side by side; in one process they run one after the other.


def _part(item: pytest.Item) -> int:
    return corpus_part(item.callspec.params["chart"])


@pytest.fixture(scope="module")
def suites() -> dict[int, dict[str, ChartResult]]:
    """Each part's results, by part, as each part's first test runs its suite."""
    return {}


@pytest.fixture
def results(request: pytest.FixtureRequest, suites: dict[int, dict[str, ChartResult]]) -> dict[str, ChartResult]:
    """The results of this test's part: only the charts of the tests selected in this session
    (`-k` narrows the suite)."""
    part = _part(request.node)
    if part not in suites:
        selected = [item.callspec.params["chart"] for item in request.session.items
                    if item.module is request.module and hasattr(item, "callspec") and _part(item) == part]
        suites[part] = {result.chart: result for result in run_suite(selected)}
    return suites[part]


@pytest.mark.timeout(SUITE_TIMEOUT_SECONDS)
@pytest.mark.parametrize("chart", chart_names())
def test_a_corpus_chart_lives_through_its_releases_as_with_helm(results: dict[str, ChartResult],
                                                                  chart: str) -> None:
    result = results[chart]
    if result.first_difference:
        pytest.fail(f"{chart}: {result.first_difference}"
                    + (f"\n(helm itself fails on the testbed at {result.helm_failure})" if result.helm_failure else "")
                    + f"\n{result.details(result.first_difference.split(':', 1)[0])}", pytrace=False)
