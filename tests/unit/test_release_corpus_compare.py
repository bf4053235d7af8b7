"""The release-corpus suite's comparisons (tests/e2e/release_corpus.py), offline: each finds
the difference it exists to find, and lets through only what its rules name (a volatile
value of the same shape, what the tools must print differently)."""

from __future__ import annotations

import base64

from tests.e2e.release_corpus import (
    SpecOutcome,
    changed_objects,
    documents,
    manifest_difference,
    normalised,
    spec_difference,
)


def _manifest(password: str, replicas: int = 1) -> str:
    return (f"---\n# Source: app/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n"
            f"  name: app\ndata:\n  password: {base64.b64encode(password.encode()).decode()}\n"
            f"---\n# Source: app/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\n"
            f"metadata:\n  name: app\nspec:\n  replicas: {replicas}\n")


def _volatility(first: str, second: str) -> dict[str, dict[int, str]]:
    from tests.conformance.harness import volatile_lines

    a, b = documents(first), documents(second)
    found = {key: volatile_lines(text, b[key]) for key, text in a.items()}
    return {key: {i: pair[1] for i, pair in lines.items()} for key, lines in found.items() if lines}


def test_documents_are_keyed_by_source_kind_and_name() -> None:
    assert list(documents(_manifest("x"))) == ["app/templates/secret.yaml Secret/app",
                                               "app/templates/deploy.yaml Deployment/app"]


def test_a_manifest_difference_is_found_and_names_its_document() -> None:
    difference = manifest_difference(_manifest("x"), _manifest("x", replicas=2), {})
    assert difference.startswith("manifest app/templates/deploy.yaml Deployment/app: line ")
    assert "replicas: 1" in difference and "replicas: 2" in difference
    assert manifest_difference(_manifest("x"), _manifest("x").replace("deploy.yaml", "web.yaml"), {}).startswith(
        "manifest: ours lacks")


def test_a_value_helm_renders_differently_each_time_is_compared_by_shape_only() -> None:
    volatile = _volatility(_manifest("aB3dE5gH9k"), _manifest("Zx81kPq0Lm"))
    assert list(volatile) == ["app/templates/secret.yaml Secret/app"]
    assert manifest_difference(_manifest("aB3dE5gH9k"), _manifest("Qw2eR4tY6u"), volatile) == ""
    assert manifest_difference(_manifest("aB3dE5gH9k"), _manifest("short"), volatile) != ""
    # elsewhere in the same manifest, every byte still counts
    assert manifest_difference(_manifest("aB3dE5gH9k"), _manifest("Qw2eR4tY6u", replicas=3), volatile) != ""


def test_changed_objects_between_revisions() -> None:
    assert changed_objects(_manifest("a"), _manifest("a")) == []
    assert changed_objects(_manifest("a"), _manifest("b")) == ["app/templates/secret.yaml Secret/app"]


def test_only_what_must_differ_is_normalised() -> None:
    ours = ('I1129 08:46:59.107794   16232 warnings.go:107] "Warning: b"\n'
            'I1129 08:46:59.107800   16232 warnings.go:107] "Warning: a"\n'
            "Error: x is invalid: [spec.b: Invalid value: 1, spec.a: Required value]\nRun 'deploy-runner --help'")
    theirs = ('I1129 09:00:00.000001    4242 warnings.go:107] "Warning: a"\n'
              'I1129 09:00:00.000002    4242 warnings.go:107] "Warning: b"\n'
              "Error: x is invalid: [spec.a: Required value, spec.b: Invalid value: 1]\nRun 'helm --help'")
    assert normalised(ours) == normalised(theirs)
    assert normalised("Error: x is invalid: [spec.a: Required value]") != normalised(
        "Error: x is invalid: [spec.b: Required value]")
    assert normalised('I1129 08:46:59.107794   16232 warnings.go:107] "Warning: a"') != normalised("")


def test_run_plan_and_diff_must_find_what_helms_own_upgrade_changed() -> None:
    unchanged = SpecOutcome(0, (), "unchanged")
    assert spec_difference("run --plan", unchanged, []) == ""
    assert spec_difference("run --plan", SpecOutcome(2, ("Secret/app",), "planned"), []) != ""
    assert spec_difference("run --plan", SpecOutcome(2, ("Secret/app",), "planned"), ["Secret/app"]) == ""
    assert spec_difference("run", SpecOutcome(0, (), "unchanged", wrote="revision 5"), []) != ""
    assert spec_difference("run", SpecOutcome(2, ("Secret/app",), "deployed", "revision 5"), ["Secret/app"]) == ""
    assert spec_difference("diff", SpecOutcome(0, ()), []) == ""
    assert spec_difference("diff", SpecOutcome(0, (), problem="a stray line"), []) != ""
