"""What a release diff holds: plain data a report, the JSON result and annotations read.

Keys and order are helm-diff's (databus23/helm-diff): an object is named
`NAMESPACE, NAME, KIND (GROUP)` (the group is the apiVersion without its
version: `apps`, or `v1` for the core group), and changes come as helm-diff
reports them: changed objects in key order, then removals, then additions,
each in key order.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

ADD, MODIFY, REMOVE = "add", "modify", "remove"
LIVE, MANIFEST = "live", "manifest"


@dataclass(frozen=True)
class SourceRef:
    """A template file (chart-relative, as `# Source:` names it) and a line in it."""

    path: str
    line: int


@dataclass
class SecretKeys:
    """A Secret's data keys by what happens to them; never their values."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


@dataclass
class ObjectChange:
    """One object that the deploy adds, changes or removes."""

    key: str  # helm-diff's: "NAMESPACE, NAME, KIND (GROUP)"
    kind: str
    api_version: str
    namespace: str
    name: str
    change: str  # ADD | MODIFY | REMOVE
    diff: str = ""  # a unified diff of the object's YAML (Secret values hidden)
    hook: bool = False  # a Helm hook (compared with the last release's hook, not live)
    secret_keys: SecretKeys | None = None  # a Secret's data keys added/changed/removed
    source: SourceRef | None = None  # the template that writes it (its first line)
    changed_lines: list[SourceRef] = field(default_factory=list)  # templates of changed lines
    note: str = ""  # what the change runs into (an apply conflict, another owner)

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass
class ReleaseDiff:
    """A release's changes, by the live cluster (`live`) or by the last stored manifest
    (`manifest`, helm-diff's default view; used when the live one is unavailable)."""

    view: str = LIVE
    changes: list[ObjectChange] = field(default_factory=list)
    live_unavailable: str = ""  # why the live view could not be taken (view is then MANIFEST)

    @property
    def empty(self) -> bool:
        return not self.changes

    def counts(self) -> dict[str, int]:
        found = {ADD: 0, MODIFY: 0, REMOVE: 0}
        for change in self.changes:
            found[change.change] += 1
        return found

    def to_json(self) -> dict[str, Any]:
        return {"view": self.view, "live_unavailable": self.live_unavailable or None,
                "counts": self.counts(), "changes": [_change_json(c) for c in self.changes]}


def _change_json(change: ObjectChange) -> dict[str, Any]:
    data = asdict(change)
    data["source"] = asdict(change.source) if change.source else None
    return data
