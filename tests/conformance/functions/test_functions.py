"""Every function case renders as with Helm 4.1.4 (output and error text)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from testbed.helm import helm_binary
from tests.conformance.functions.harness import (
    Case,
    Outcome,
    batched,
    helm_outcomes,
    load_cases,
    our_outcome,
)

HERE = Path(__file__).parent
CASES = load_cases()
SHARED_VALUES = yaml.safe_load((HERE / "values.yaml").read_text())
KNOWN_FAILURES_FILE = HERE / "known_failures.txt"


def known_failures() -> set[str]:
    lines = KNOWN_FAILURES_FILE.read_text().splitlines() if KNOWN_FAILURES_FILE.exists() else []
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


@pytest.fixture(scope="session")
def helm_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Helm's outcome of every case, from the render cache."""
    workdir = tmp_path_factory.mktemp("helm-functions")
    return helm_outcomes(helm_binary(), CASES, SHARED_VALUES, workdir)


@pytest.fixture(scope="session")
def helm_now(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Case], Outcome]:
    """Helm run now on a case (its batch once, or the case alone): what a difference from
    the cached outcome is checked against."""
    workdir = tmp_path_factory.mktemp("helm-functions-now")
    found: dict[str, Outcome] = {}

    def outcome(case: Case) -> Outcome:
        if case.id not in found:
            group = [c for c in CASES if batched(c)] if batched(case) else [case]
            found.update(helm_outcomes(helm_binary(), group, SHARED_VALUES, workdir, cached=False))
        return found[case.id]

    return outcome


def test_known_failures_name_real_cases() -> None:
    assert known_failures() <= {case.id for case in CASES}


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_case_renders_as_helm(case: Case, helm_results: dict[str, Outcome],
                              helm_now: Callable[[Case], Outcome], tmp_path: Path) -> None:
    expected = helm_results[case.id]
    actual = our_outcome(case, SHARED_VALUES, tmp_path)
    if actual != expected:
        expected = helm_now(case)
    if case.id in known_failures():
        assert actual != expected, f"{case.id} now matches Helm: remove it from known_failures.txt"
        return
    assert actual == expected, f"template:\n{case.tpl}\nhelm: {expected.describe()}\nours: {actual.describe()}"
