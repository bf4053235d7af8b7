"""Helm's action.List: the latest record of each release, filtered and sorted
(`deploy-runner list`, printed by runner.cli.list).

Records are read from the release storage (all records with owner=helm in the
namespace, or in every namespace with -A); the newest revision of each release
is kept unless only --superseded is asked for; then the state mask, --filter (a Go regexp on the name) and --selector (labels)
apply (every state by default); then sorting (name, -d date, -r reverse), --offset and --max.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runner.errors import RunnerError

STATE_FLAGS = {
    "deployed": ("deployed",),
    "failed": ("failed",),
    "pending": ("pending-install", "pending-upgrade", "pending-rollback"),
    "superseded": ("superseded",),
    "uninstalled": ("uninstalled",),
    "uninstalling": ("uninstalling",),
}
ALL_STATES = {"unknown", *(state for states in STATE_FLAGS.values() for state in states)}
DEFAULT_MAX = 256


@dataclass(frozen=True)
class ListOptions:
    """What `list` was asked for (the CLI's flags)."""

    filter: str = ""  # a Go regexp on the names
    selector: str = ""  # labels, as `-l` takes them
    states: frozenset[str] = frozenset()  # the state flags given (keys of STATE_FLAGS); none: every state
    by_date: bool = False
    reverse: bool = False
    offset: int = 0
    max: int = DEFAULT_MAX


def state_mask(states: frozenset[str]) -> set[str]:
    """SetStateMask: the states asked for; every state when none is (Helm 4 dropped --all)."""
    wanted = {state for flag in states for state in STATE_FLAGS[flag]}
    return wanted or ALL_STATES


def select(records: list[Any], opts: ListOptions) -> list[Any]:
    """List.Run after the storage read: filter, latest revisions, states, selector, order, page."""
    if opts.filter:
        from runner.funcs.regex import compile_go
        from runner.golang.gofunc import FuncError

        try:
            pattern = compile_go(opts.filter)
        except FuncError as err:
            raise RunnerError(str(err)) from err
        records = [r for r in records if pattern.matches(r.name)]
    mask = state_mask(opts.states)
    if mask != {"superseded"}:
        records = latest_revisions(records)
    records = [r for r in records if r.info.status in mask]
    matches = label_selector(opts.selector)
    records = [r for r in records if matches(r.labels)]
    records = ordered(records, opts.by_date, opts.reverse)
    if opts.offset >= len(records):
        return []
    limit = opts.max if 0 < opts.max < len(records) else len(records)
    return records[opts.offset:opts.offset + limit]


def latest_revisions(records: list[Any]) -> list[Any]:
    """filterLatestReleases: the highest revision of each namespace/name."""
    latest: dict[tuple[str, str], Any] = {}
    for record in records:
        key = (record.namespace, record.name)
        if key not in latest or record.version >= latest[key].version:
            latest[key] = record
    return list(latest.values())


def ordered(records: list[Any], by_date: bool, reverse: bool) -> list[Any]:
    """releaseutil.SortByName, or SortByDate (oldest first, then name); -r reverses either."""
    from runner.release.record import parse_go_time

    if by_date:
        def key(r: Any) -> Any:
            seconds = int(parse_go_time(r.info.last_deployed).timestamp()) if r.info.last_deployed else 0
            return seconds, r.name
        result = sorted(records, key=key)
        # ByDateDesc is SortByDate as it is; with -r Helm reverses it (ByDateAsc).
        return result[::-1] if reverse else result
    result = sorted(records, key=lambda r: r.name)
    return result[::-1] if reverse else result


def label_selector(text: str) -> Any:
    """labels.Parse for the forms Helm documents (k=v, k==v, k!=v) plus `k` and `!k`."""
    requirements = [_requirement(p.strip()) for p in text.split(",") if p.strip()]
    return lambda labels: all(_satisfied(r, labels) for r in requirements)


def _requirement(part: str) -> tuple[str, str, str]:
    """(key, operator, value) of one selector term."""
    if "!=" in part:
        key, value = part.split("!=", 1)
        return key.strip(), "!=", value.strip()
    if "=" in part:
        key, value = part.replace("==", "=", 1).split("=", 1)
        return key.strip(), "=", value.strip()
    if part.startswith("!"):
        return part[1:].strip(), "!", ""
    return part, "exists", ""


def _satisfied(requirement: tuple[str, str, str], labels: dict[str, str]) -> bool:
    key, operator, value = requirement
    if operator == "=":
        return labels.get(key) == value
    if operator == "!=":
        return labels.get(key) != value
    return (key in labels) == (operator == "exists")
