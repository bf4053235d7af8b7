"""`deploy-runner drift`: is the cluster still what the spec deploys?

Every release of the environment is planned against the cluster as `run --plan` plans it
(runner.actions.run, each release's live server-side dry-run diff), every one of them:
no `--release`, no `when`. What a plan would change is drift:

- `missing`: the release is not installed (or uninstalled) though the spec installs it;
- `present`: the release is installed though the spec says `installed: false`;
- `revision`: the chart or values of its deployed revision are not what the spec would
  deploy (the spec changed and was not deployed, or someone upgraded by hand);
- `objects`: objects of the release changed, added or removed outside the spec (a
  `kubectl edit`, a deleted object, a field another manager took).

A release whose plan fails is an error. Nothing is written; nothing here prints.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from runner.actions.diff import INSTALL, UNINSTALL, UPGRADE
from runner.actions.run import Connect, RunOptions, run_spec
from runner.spec.context import RunContext
from runner.spec.load import LoadedSpec
from runner.spec.result import FAILED, PLANNED, RunResult

MISSING, PRESENT, REVISION, OBJECTS = "missing", "present", "revision", "objects"
NO_DRIFT, DRIFT, ERROR = 0, 2, 1  # the exit codes


@dataclass
class ReleaseDrift:
    name: str
    namespace: str
    kinds: list[str] = field(default_factory=list)  # MISSING, PRESENT, REVISION, OBJECTS
    error: str = ""

    @property
    def drifted(self) -> bool:
        return bool(self.kinds)


@dataclass
class DriftResult:
    environment: str
    result: RunResult  # the plan of every release (its diffs: what drifted, where)
    releases: list[ReleaseDrift] = field(default_factory=list)

    @property
    def drifted(self) -> bool:
        return any(r.drifted for r in self.releases)

    @property
    def failed(self) -> bool:
        return any(r.error for r in self.releases)

    @property
    def exit_code(self) -> int:
        return ERROR if self.failed else DRIFT if self.drifted else NO_DRIFT


def find_drift(spec: LoadedSpec, context: RunContext, connect: Connect,
               options: RunOptions | None = None, on_message: Any = None) -> DriftResult:
    """Plan every release of `spec` against the cluster and say what drifted."""
    options = dataclasses.replace(options or RunOptions(), plan=True, sync=False, releases=[])
    # every release, whatever the event: `when` selects what a push deploys, not what to watch
    result = run_spec(spec, dataclasses.replace(context, event=None), connect, options,
                      on_message=on_message)
    result.mode = "drift"
    return DriftResult(context.environment, result, [_drift(o) for o in result.releases])


def _drift(outcome: Any) -> ReleaseDrift:
    found = ReleaseDrift(outcome.name, outcome.namespace)
    if outcome.status == FAILED:
        found.error = outcome.error or "the plan failed"
        return found
    if outcome.status != PLANNED:
        return found
    if outcome.action == INSTALL:
        found.kinds.append(MISSING)
    elif outcome.action == UNINSTALL:
        found.kinds.append(PRESENT)
    elif outcome.action == UPGRADE:
        if outcome.revision_differs:
            found.kinds.append(REVISION)
        if outcome.diff.changes:
            found.kinds.append(OBJECTS)
    return found


def describe(release: ReleaseDrift, outcome: Any) -> list[str]:
    """What drifted, a line each, in words a reader acts on."""
    lines = []
    for kind in release.kinds:
        if kind == MISSING:
            lines.append("missing: not installed, though the spec installs it")
        elif kind == PRESENT:
            lines.append("present: installed, though the spec says installed: false")
        elif kind == REVISION:
            lines.append(f"revision: deployed revision {outcome.previous_revision}'s chart or "
                         "values are not what the spec would deploy")
        elif kind == OBJECTS:
            outside = REVISION not in release.kinds  # else the spec's change shows there too
            lines += [f"{_verb(c.change, outside)}: {c.kind}/{c.name}"
                      + (f" in {c.namespace}" if c.namespace else "") for c in outcome.diff.changes]
    if release.error:
        lines.append(f"error: {release.error}")
    return lines


def _verb(change: str, outside: bool) -> str:
    if not outside:
        return {"add": "a deploy would add", "remove": "a deploy would remove"}.get(
            change, "a deploy would change")
    # the plan's verbs are the spec's view: what the spec would add was removed outside it
    return {"add": "removed outside the spec (the spec has it)",
            "remove": "added outside the spec (the spec does not have it)"}.get(
                change, "changed outside the spec")
