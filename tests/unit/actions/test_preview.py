"""Preview names and which previews `preview gc` removes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from runner.actions.preview import (
    DNS_LABEL,
    ENVIRONMENTS_ANNOTATION,
    PR_LABEL,
    PREVIEW_LABEL,
    Preview,
    PreviewError,
    namespace_name,
    prepare,
    previews,
    stale,
)
from runner.kube.namespaces import NamespaceInfo

NOW = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize("repository, number, expected", [
    ("octo-org/web", 7, "web-pr-7"),
    ("Octo/My_Repo.JS", 12, "my-repo-js-pr-12"),
    ("o/" + "x" * 80, 123456, "x" * (63 - len("-pr-123456")) + "-pr-123456"),
    ("o/___", 3, "pr-3"),
])
def test_default_names_are_dns_labels(repository: str, number: int, expected: str) -> None:
    name = namespace_name(repository, number)
    assert name == expected and len(name) <= 63 and DNS_LABEL.match(name)


def test_a_configured_name_must_be_a_dns_label() -> None:
    assert namespace_name("o/r", 1, "preview-1") == "preview-1"
    with pytest.raises(PreviewError, match="not a valid namespace name"):
        namespace_name("o/r", 1, "Preview_1")


def preview(number: int, days: int, repository: str = "o/r") -> Preview:
    return Preview(f"r-pr-{number}", number, repository, "a" * 40, NOW - timedelta(days=days))


def test_closed_pull_requests_and_old_previews_are_chosen() -> None:
    found = [preview(1, 0), preview(2, 0), preview(3, 5), preview(4, 0, "x/y"), preview(5, 1)]
    answers = {1: True, 2: False, 3: False, 5: None}
    asked: list[int] = []

    def closed(number: int) -> bool | None:
        asked.append(number)
        return answers[number]

    chosen = stale(found, repository="o/r", closed=closed, ttl=timedelta(hours=72), now=NOW)
    assert [(p.pull_number, why.split(",")[0]) for p, why in chosen] == [
        (1, "pull request #1 is closed"), (3, "last deployed 2026-02-24T00:00:00Z")]
    assert 4 not in asked  # another repository's pull requests are not ours to ask about
    assert stale(found, repository="o/r", closed=closed, ttl=None, now=NOW)[0][0].pull_number == 1


class FakeNamespaces:
    """Namespaces as `prepare` and `previews` use them: apply replaces what it sets."""

    def __init__(self) -> None:
        self.found: dict[str, NamespaceInfo] = {}

    def get(self, name: str) -> NamespaceInfo | None:
        return self.found.get(name)

    def apply(self, name: str, labels: dict[str, str], annotations: dict[str, str]) -> None:
        self.found[name] = NamespaceInfo(name, labels, annotations)

    def list(self, selector: str) -> list[NamespaceInfo]:
        assert selector == f"{PREVIEW_LABEL}=true"
        return list(self.found.values())


def test_the_environments_deployed_to_are_recorded_for_gc() -> None:
    """gc has no spec: the namespace records each release's deployment environment (a
    custom preview.environment included), every one deployed to, in order, once."""
    space = FakeNamespaces()
    for environment in ("review-7", "pr-7", "review-7"):
        prepare(space, "r-pr-7", repository="o/r", pull_number=7, head_sha="a" * 40, now=NOW,
                environment=environment)
    [found] = previews(space)
    assert found.environments == ("review-7", "pr-7")
    assert (found.pull_number, found.repository, found.deployed_at) == (7, "o/r", NOW)


@pytest.mark.parametrize("recorded", [None, "not json", '{"a": 1}', '["ok", 3]', '[""]'])
def test_a_namespace_without_a_usable_record_has_no_environments(recorded: str | None) -> None:
    space = FakeNamespaces()
    annotations = {} if recorded is None else {ENVIRONMENTS_ANNOTATION: recorded}
    space.apply("r-pr-8", {PREVIEW_LABEL: "true", PR_LABEL: "8"}, annotations)
    assert previews(space)[0].environments == ()
