"""`list --filter`: a Go regexp (RE2, linear time) on release names, as Helm's action.List."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from runner.actions import release_list
from runner.cli import root_command
from runner.cli.cobra import find
from runner.cli.list_releases import list_options
from runner.errors import RunnerError


def _options(pattern: str) -> release_list.ListOptions:
    """`list --filter PATTERN` as the CLI takes it."""
    command, rest = find(root_command(), ["list", "--filter", pattern])
    args, _ = command.all_flags().parse(rest, print)
    return list_options(args)


def _record(name: str) -> SimpleNamespace:
    info = SimpleNamespace(status="deployed", last_deployed="")
    return SimpleNamespace(name=name, namespace="ns", version=1, info=info, labels={})


def _names(pattern: str, names: list[str]) -> list[str]:
    return [r.name for r in release_list.select([_record(n) for n in names], _options(pattern))]


def test_filter_is_a_go_regexp_search() -> None:
    assert _names("^we.b", ["web", "webapp", "a-web"]) == []
    assert _names("we.?b", ["web", "wexb", "db"]) == ["web", "wexb"]
    assert _names("(?i)^DB$", ["db", "db2"]) == ["db"]


def test_a_nested_repetition_does_not_backtrack() -> None:
    assert _names("^(a+)+$", ["a" * 5000 + "!", "a" * 10]) == ["a" * 10]


def test_a_bad_pattern_reads_as_go_error() -> None:
    with pytest.raises(RunnerError, match=r"^error parsing regexp: missing closing \): `\(`$"):
        _names("(", ["x"])
