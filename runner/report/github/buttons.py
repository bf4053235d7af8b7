"""The buttons of a release's check run (GitHub's requested actions) and what a click
needs to know, carried in the check run's `external_id`.

- `rollback` ("Roll back to revision N"): on a deploy (succeeded or failed) of a release
  that had an earlier deployed revision, N being that revision.
- `redeploy` ("Deploy again"): on a failed deploy.

GitHub takes at most three actions, a label of at most 20 characters, a description of
at most 40 and an identifier of at most 20 (../shared/docs/CONTRACTS.md 1.1). A click
sends a `check_run` event naming the check run, not the deploy: the release, its
namespace, the spec's environment, the revision the deploy wrote and the rollback's
target go in `external_id`, as a short query string
(`deploy-runner/1?run=…&release=web&namespace=prod&environment=production&revision=4&target=3`).
GitHub documents no length for `external_id`; ours is kept within EXTERNAL_ID_CHARS, and a
release whose identity does not fit gets no buttons (its check run is unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from runner.errors import RunnerError
from runner.report.model import FAILED, SUCCEEDED, ReleaseReport

ROLLBACK, REDEPLOY = "rollback", "redeploy"
MAX_ACTIONS = 3
LABEL_CHARS, DESCRIPTION_CHARS, IDENTIFIER_CHARS = 20, 40, 20
EXTERNAL_ID_CHARS = 255
EXTERNAL_ID_PREFIX = "deploy-runner/1?"


@dataclass(frozen=True)
class ClickTarget:
    """What a click on a release's check run acts on."""

    release: str
    namespace: str
    environment: str = ""  # the spec's environment ("" for default)
    revision: int = 0  # the revision the deploy wrote (0: none)
    target: int = 0  # the revision `rollback` goes back to (0: no rollback)
    run_id: str = ""  # the workflow run that deployed

    def external_id(self) -> str:
        fields = {"run": self.run_id, "release": self.release, "namespace": self.namespace,
                  "environment": self.environment, "revision": str(self.revision or ""),
                  "target": str(self.target or "")}
        return EXTERNAL_ID_PREFIX + urlencode({k: v for k, v in fields.items() if v})

    @classmethod
    def parse(cls, external_id: str) -> ClickTarget:
        """The target an external_id of ours names; a RunnerError saying what is wrong
        for anything else (a check run another tool made, an edited one)."""
        if not external_id.startswith(EXTERNAL_ID_PREFIX):
            raise RunnerError(f"the check run's external_id {external_id[:80]!r} is not "
                              f"deploy-runner's (it starts with {EXTERNAL_ID_PREFIX!r})")
        fields = dict(parse_qsl(external_id[len(EXTERNAL_ID_PREFIX):]))
        missing = [key for key in ("release", "namespace") if not fields.get(key)]
        if missing:
            raise RunnerError(f"the check run's external_id {external_id!r} names no "
                              f"{' and no '.join(missing)}")
        numbers = {}
        for key in ("revision", "target"):
            text = fields.get(key, "0")
            if not text.isdigit():
                raise RunnerError(f"the check run's external_id {external_id!r}: {key} "
                                  f"{text!r} is not a revision number")
            numbers[key] = int(text)
        return cls(fields["release"], fields["namespace"], fields.get("environment", ""),
                   numbers["revision"], numbers["target"], fields.get("run", ""))


def click_target(release: ReleaseReport, environment: str, run_id: str) -> ClickTarget:
    earlier = release.previous_revision
    target = earlier if earlier and earlier != release.revision else 0
    return ClickTarget(release.name, release.namespace, environment, release.revision or 0,
                       target, run_id)


def requested_actions(release: ReleaseReport, target: ClickTarget) -> list[dict[str, str]]:
    """The buttons of a release's completed check run (none for a plan, a skipped or
    unchanged release, an uninstall)."""
    if release.outcome not in (SUCCEEDED, FAILED) or release.action == "uninstall":
        return []
    actions = []
    if target.target:
        actions.append(action(ROLLBACK, _fitting(f"Roll back to rev. {target.target}", "Roll back"),
                              f"Roll back to revision {target.target}"))
    if release.outcome == FAILED:
        actions.append(action(REDEPLOY, "Deploy again", "Deploy this commit's release again"))
    return actions[:MAX_ACTIONS]


def action(identifier: str, label: str, description: str) -> dict[str, str]:
    """One requested action, within GitHub's limits (a ValueError otherwise: a bug)."""
    for what, text, limit in (("identifier", identifier, IDENTIFIER_CHARS),
                              ("label", label, LABEL_CHARS),
                              ("description", description, DESCRIPTION_CHARS)):
        if not text or len(text) > limit:
            raise ValueError(f"a requested action's {what} {text!r} is not 1-{limit} characters")
    return {"label": label, "description": description, "identifier": identifier}


def completion_fields(release: ReleaseReport, environment: str, run_id: str) -> dict[str, Any]:
    """`external_id` and `actions` for the release's completed check run; nothing when
    no button applies or the identity does not fit GitHub's external_id."""
    target = click_target(release, environment, run_id)
    actions = requested_actions(release, target)
    identity = target.external_id()
    if not actions or not release.namespace or len(identity) > EXTERNAL_ID_CHARS:
        return {}
    return {"external_id": identity, "actions": actions}


def _fitting(text: str, shorter: str) -> str:
    return text if len(text) <= LABEL_CHARS else shorter
