"""`deploy-runner diff` and the plan of a spec's release: what an install, upgrade or
uninstall would change, found without writing anything.

The new revision is prepared as upgrade (or install) prepares it, by the same stage
(runner.actions.prepare: the values rules --reuse-values and Helm's reuse when no
values are given, the apply method, the render) from the records an `upgrade
--install` would find, its documents keeping their template positions (an
upgrade is first prepared without them, which costs a third: when its chart and
values are those of the deployed revision and its diff is empty, that plan
stands, as nothing in it points at a line; otherwise it is prepared again with
them, and what the first render told is not told). Then:

- the live view (default): every object dry-run applied on the server and
  compared with its live copy (runner.kube.preview); what the last release had
  and this one drops appears as removals. Server-owned fields are left out.
- the manifest view: the last stored manifest against the rendered one, as
  `helm diff upgrade` compares them; it is what a diff shows when the live one
  cannot be taken (no access to an object, a dry run refused).

A release is unchanged when its chart and values are those of its deployed
revision and the diff is empty: a spec's `run` gives it no new revision.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from runner import engine
from runner.actions.journal import Journal
from runner.actions.prepare import ChartInput, DeployRequest, current_release, prepare
from runner.actions.release_config import ActionConfig
from runner.diff.compute import (
    LiveObject,
    live_view,
    manifest_view,
    rendered_documents,
    stored_documents,
)
from runner.diff.model import LIVE, MANIFEST, ReleaseDiff
from runner.diff.objects import identity
from runner.diff.text import DEFAULT_CONTEXT
from runner.errors import RunnerError
from runner.kube.ownership import set_release_metadata
from runner.release.applymethod import resolve_server_side
from runner.release.record import PENDING_STATUSES, SERVER_SIDE_APPLY, UNINSTALLED, Release

INSTALL, UPGRADE, UNINSTALL, NONE = "install", "upgrade", "uninstall", "none"
_TIME_FIELDS = ("modtime", "schemamodtime")


@dataclass
class DiffOptions:
    context: int = DEFAULT_CONTEXT  # lines of context around each change (-1: whole objects)
    view: str = LIVE  # LIVE (falls back to MANIFEST when it cannot be taken) or MANIFEST
    include_tests: bool = False  # helm-diff leaves test hooks out unless asked


@dataclass
class ReleasePlan:
    """What a deploy of one release would do."""

    name: str
    namespace: str
    action: str  # INSTALL | UPGRADE | UNINSTALL | NONE (absent and meant to stay absent)
    diff: ReleaseDiff
    last: Release | None = None  # the newest record
    current: Release | None = None  # the record whose objects are live
    revision: int = 0  # the revision the deploy would write (0: none)
    apply_method: str = ""  # ssa | csa
    chart_version: str = ""  # of the chart the deploy would install (or the one uninstalled)
    chart_changed: bool = True
    values_changed: bool = True
    documents: dict[str, Any] = field(default_factory=dict)  # key -> rendered Document (sources)
    notes: list[str] = field(default_factory=list)

    @property
    def unchanged(self) -> bool:
        """An upgrade with nothing to do: same chart and values, an empty diff."""
        return (self.action == UPGRADE and not self.chart_changed and not self.values_changed
                and self.diff.empty)


def plan_release(cfg: ActionConfig, journal: Journal, request: DeployRequest, given: ChartInput, *,
                 installed: bool = True, options: DiffOptions | None = None) -> ReleasePlan:
    """The plan of installing/upgrading release `request.name` with `request` and its chart and
    values (`given`), or, when not `installed`, of uninstalling it. Reads records and objects;
    writes nothing."""
    options = options or DiffOptions()
    journal.redactor.add_values(given.secret_values)  # a secret copied into any object stays hidden
    name = request.name
    last, current = _records(cfg, name)
    if not installed:
        return _uninstall_plan(cfg, journal, name, last, current, options)
    chart = engine.load_chart(given.path)
    if current is not None:
        # An upgrade may well change nothing: then no diff points at a template line, and the
        # render needs no positions (it costs ~3 times a plain one, its code compiled afresh).
        # What this render tells is told only if its plan stands.
        quiet = Journal(redactor=journal.redactor)
        plan = _plan(cfg, quiet, request, given, chart, last, current, options, track_positions=False)
        if plan.unchanged:
            for message in quiet.messages:
                journal.tell(message.kind, message.text, message.data)
            return plan
    return _plan(cfg, journal, request, given, chart, last, current, options, track_positions=True)


def _plan(cfg: ActionConfig, journal: Journal, request: DeployRequest, given: ChartInput, chart: Any,
          last: Release | None, current: Release | None, options: DiffOptions, *,
          track_positions: bool) -> ReleasePlan:
    """The plan with the revision prepared and rendered (its documents keeping their template
    positions when `track_positions`). Without them, a plan whose chart or values changed
    stops before its diff: it will be planned again with them."""
    name = request.name
    namespace = current.namespace if current is not None else cfg.namespace
    plan = ReleasePlan(name, namespace, UPGRADE if current is not None else INSTALL, ReleaseDiff(), last, current)
    if last is not None and last.info.status in PENDING_STATUSES:
        plan.notes.append(f"revision {last.version} is {last.info.status}: another operation may "
                          "be running")
    plan.chart_version = chart.metadata.version
    method = last.apply_method if last is not None and current is not None else SERVER_SIDE_APPLY
    server_side = resolve_server_side(request.server_side, method)
    prepared = prepare(cfg, journal, request, given, chart, name=name, server_side=server_side,
                       last=last, current=current, track_positions=track_positions)
    rendered = prepared.rendered
    plan.apply_method = prepared.release.apply_method
    plan.revision = last.version + 1 if last is not None else 1
    plan.chart_changed = current is None or _chart_json(current.chart) != _chart_json(rendered.chart_json)
    plan.values_changed = current is None or _normal(current.config) != _normal(prepared.release.config)
    if not track_positions and (plan.chart_changed or plan.values_changed):
        return plan
    hooks = [] if request.no_hooks else [h for h in rendered.hook_documents
                                         if options.include_tests or "test" not in h.events]
    new = rendered_documents(rendered.documents, hooks, namespace)
    old = _stored(current, options, request.no_hooks)
    _learn_identifiers(journal, plan, old, new)
    plan.documents = new
    plan.diff = _diff(cfg, request, plan, old, new, rendered.manifest, server_side, options)
    return plan


def _records(cfg: ActionConfig, name: str) -> tuple[Release | None, Release | None]:
    """(the newest record, the one whose objects are live), as `upgrade --install` finds
    them: no current one when the release is new or uninstalled (an install)."""
    heads = cfg.storage.heads(name)
    if not heads:
        return None, None
    last = cfg.storage.last(name, heads)
    if heads[0].status == UNINSTALLED:
        return last, None
    try:
        return last, current_release(cfg, last)
    except RunnerError:  # pending with nothing deployed: the upgrade itself reports it
        return last, None


def _stored(release: Release | None, options: DiffOptions, no_hooks: bool) -> dict[str, Any]:
    if release is None:
        return {}
    hooks = [] if no_hooks else [(h.path, h.manifest) for h in release.hooks
                                 if options.include_tests or "test" not in h.events]
    return stored_documents(release.manifest, hooks, release.namespace)


def _learn_identifiers(journal: Journal, plan: ReleasePlan, old: dict[str, Any], new: dict[str, Any]) -> None:
    """What the diff names (the release, its objects, their data keys) is public: shown
    intact by the redactor though a secret it learns, now or when a deploy follows, lies
    inside it; so a plan names the objects as the deploy's report does."""
    journal.redactor.add_public([plan.name, plan.namespace])
    journal.redactor.add_identifiers(document.obj for document in (*old.values(), *new.values()))


def _diff(cfg: ActionConfig, request: DeployRequest, plan: ReleasePlan, old: dict[str, Any],
          new: dict[str, Any], manifest: str, server_side: bool, options: DiffOptions) -> ReleaseDiff:
    stored = ReleaseDiff(MANIFEST, manifest_view(old, new, options.context))
    if options.view == MANIFEST:
        return stored
    try:
        return ReleaseDiff(LIVE, _live_changes(cfg, request, plan, old, new, manifest, server_side,
                                               options.context))
    except RunnerError as err:
        stored.live_unavailable = str(err)
        return stored


def _live_changes(cfg: ActionConfig, request: DeployRequest, plan: ReleasePlan, old: dict[str, Any],
                  new: dict[str, Any], manifest: str, server_side: bool, context: int) -> list[Any]:
    cluster = cfg.require_cluster()
    current = cluster.build(plan.current.manifest, plan.current.namespace, validate=False) if plan.current else []
    target = cluster.build(manifest, plan.namespace)
    set_release_metadata(target, plan.name, plan.namespace)
    preview = cluster.preview(current, target, release=plan.name, namespace=plan.namespace,
                              server_side=server_side, force=request.force_conflicts,
                              three_way_for_custom=request.take_ownership and not server_side,
                              take_ownership=request.take_ownership)
    live = [LiveObject(identity(p.resource.obj, plan.namespace).key, p.live, p.after or {}, p.note)
            for p in preview.changes]
    removed = {identity(p.resource.obj, plan.namespace).key: p.live for p in preview.removals
               if p.live is not None}
    return live_view(old, new, live, removed, context)


def _uninstall_plan(cfg: ActionConfig, journal: Journal, name: str, last: Release | None,
                    current: Release | None, options: DiffOptions) -> ReleasePlan:
    """`installed: false`: every object of the deployed release goes (none: nothing to do)."""
    if current is None:
        return ReleasePlan(name, cfg.namespace, NONE, ReleaseDiff(), last, None)
    plan = ReleasePlan(name, current.namespace, UNINSTALL, ReleaseDiff(), last, current)
    plan.chart_version = str(((current.chart or {}).get("metadata") or {}).get("version") or "")
    old = _stored(current, options, no_hooks=True)
    _learn_identifiers(journal, plan, old, {})
    stored = ReleaseDiff(MANIFEST, manifest_view(old, {}, options.context))
    if options.view == MANIFEST:
        plan.diff = stored
        return plan
    try:
        cluster = cfg.require_cluster()
        objects = cluster.build(current.manifest, current.namespace, validate=False)
        preview = cluster.preview(objects, [], release=name, namespace=current.namespace,
                                  server_side=True)
        removed = {identity(p.resource.obj, current.namespace).key: p.live for p in preview.removals
                   if p.live is not None}
        plan.diff = ReleaseDiff(LIVE, live_view(old, {}, [], removed, options.context))
    except RunnerError as err:
        stored.live_unavailable = str(err)
        plan.diff = stored
    return plan


def _chart_json(data: dict[str, Any] | None) -> str:
    """A record's chart without its file times (a checkout's times are not a change)."""
    return json.dumps(_without_times(data or {}), sort_keys=True)


def _without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k not in _TIME_FIELDS}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def _normal(values: Any) -> str:
    """Values as they compare once stored: JSON, numbers as Go's float64 would hold them."""
    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k): walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        return value

    return json.dumps(walk(values or {}), sort_keys=True, default=str)
