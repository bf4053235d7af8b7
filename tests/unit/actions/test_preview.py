"""Preview names and which previews `preview gc` removes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from runner.actions.preview import DNS_LABEL, Preview, PreviewError, namespace_name, stale

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
