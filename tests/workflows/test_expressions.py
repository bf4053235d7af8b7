"""The executor's expressions (tests/workflows/expressions.py) against what GitHub's
documentation says they give ("Evaluate expressions in workflows and actions"), and its
refusals: what it does not implement fails loudly rather than passing a test."""

from __future__ import annotations

import pytest

from tests.workflows.expressions import (
    Evaluator,
    ExpressionError,
    Status,
    condition,
    substitute,
)

CONTEXTS = {"github": {"event_name": "schedule", "event": {"inputs": {"n": "3"}}},
            "inputs": {"environment": "production", "empty": ""},
            "steps": {"deploy": {"outputs": {"changed": "true",
                                             "revisions": '{"web":4,"api":null}'}}},
            "env": {}}


def evaluate(text: str, failed: bool = False) -> object:
    return Evaluator(CONTEXTS, Status(failed)).evaluate(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("github.event_name == 'schedule' && 'preview-gc' || 'run'", "preview-gc"),
    ("github.event_name == 'push' && 'preview-gc' || 'run'", "run"),
    ("GitHub.Event_Name == 'SCHEDULE'", True),  # contexts and strings: case ignored
    ("fromJSON(steps.deploy.outputs.revisions).web", 4),
    ("fromJSON(steps.deploy.outputs.revisions)['api']", None),
    ("steps.deploy.outputs.changed == 'true'", True),
    ("steps.missing.outputs.changed", None),
    ("inputs.empty || 'default'", "default"),
    ("github.event.inputs.n == 3", True),  # a number string equals the number
    ("!inputs.empty", True),
    ("null == 0", True),
    ("'' == false", True),
    ("contains('a,b', 'B')", True),
    ("startsWith(inputs.environment, 'prod')", True),
    ("format('{0}-{1}', 'a', 1)", "a-1"),
    ("toJSON(fromJSON('[1]'))", "[\n  1\n]"),
])
def test_values(text: str, expected: object) -> None:
    assert evaluate(text) == expected


def test_substitution_and_conditions() -> None:
    evaluator = Evaluator(CONTEXTS)
    assert substitute("revision ${{ fromJSON(steps.deploy.outputs.revisions).web }}!",
                      evaluator) == "revision 4!"
    assert substitute("${{ inputs.missing }}|${{ true }}", evaluator) == "|true"
    assert condition("steps.deploy.outputs.changed == 'true'", evaluator)
    assert condition("${{ inputs.environment == 'production' }}", evaluator)
    failed = Evaluator(CONTEXTS, Status(failed=True))
    assert not condition("inputs.environment == 'production'", failed)  # success() implied
    assert condition("always()", failed) and condition("failure()", failed)


@pytest.mark.parametrize("text", [
    "hashFiles('**/lock')",  # not implemented: loud
    "steps.*.outputs",  # object filters
    "unknown.context",
    "inputs.environment ==",
    "'unterminated",
])
def test_what_it_does_not_understand_fails(text: str) -> None:
    with pytest.raises(ExpressionError):
        evaluate(text)


def test_an_object_is_not_interpolated_silently() -> None:
    with pytest.raises(ExpressionError, match="toJSON"):
        substitute("${{ github.event }}", Evaluator(CONTEXTS))
