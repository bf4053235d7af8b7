"""What an apply would do to each object, asked of the API server without writing anything.

For every object of the new release: its live copy (GET), and what the apply
would leave — server-side apply with `dryRun=All` and the release's field
manager (`helm`), or for client-side apply the three-way patch Helm would send
(last release's object, the new one, the live one) sent with `dryRun=All`.
Defaulting, admission webhooks and fields others own all show. An object
that does not exist is created as rendered. A server-side apply that would
conflict (another manager owns a field and force is off) is named in a note,
and its result shown as a forced apply would leave it.

Removals: the live copies of the last release's objects this one drops (kept
ones, `helm.sh/resource-policy: keep`, excepted). Nothing here writes: no
record, no lock, no namespace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from runner.kube import apply, parallel
from runner.kube.client import KubeClient, KubeError
from runner.kube.operations import has_keep_policy
from runner.kube.resources import Resource, difference


@dataclass
class ObjectPreview:
    """One object: its live copy (None: absent), what the apply leaves (None: deleted)."""

    resource: Resource
    live: dict[str, Any] | None
    after: dict[str, Any] | None
    note: str = ""


@dataclass
class Preview:
    changes: list[ObjectPreview] = field(default_factory=list)  # every object of the new release
    removals: list[ObjectPreview] = field(default_factory=list)  # live objects it drops


def preview(client: KubeClient, current: Sequence[Resource], target: Sequence[Resource], *,
            release: str, namespace: str, server_side: bool, force: bool = False,
            three_way_for_custom: bool = False, take_ownership: bool = False) -> Preview:
    """The dry-run outcome of updating `current` (the last release's objects) to `target`."""
    originals = {r.key: r.obj for r in current}

    def one(resource: Resource) -> ObjectPreview:
        live = apply.get_live(client, resource)
        if live is None:
            return ObjectPreview(resource, None, resource.obj)
        adopted = resource.key not in originals and not take_ownership
        note = _ownership_note(live, release, namespace) if adopted else ""
        if server_side:
            after, conflict = _server_side(client, resource, force)
            return ObjectPreview(resource, live, after, _join(note, conflict))
        return ObjectPreview(resource, live, _client_side(client, originals.get(resource.key),
                                                          resource, live, three_way_for_custom), note)

    changes = parallel.each(list(target), one)
    removals = []
    for resource in difference(current, target):
        if has_keep_policy(resource, exact=True):
            continue
        live = apply.get_live(client, resource)
        if live is not None:
            removals.append(ObjectPreview(resource, live, None))
    return Preview(changes, removals)


def _server_side(client: KubeClient, resource: Resource, force: bool) -> tuple[dict[str, Any], str]:
    """(what a server-side apply leaves, the conflicts it would run into)."""
    reply = apply.ssa_dry_run(client, resource, force=force)
    note = ""
    if reply.status == 409 and reply.body.get("reason") == "Conflict" and not force:
        conflicts = apply.conflicts_of(resource, reply)
        fields = ", ".join(f"{c.field} ({c.manager})" for c in conflicts)
        note = (f"the apply conflicts with other field managers: {fields}; it fails unless "
                "forceConflicts is set")
        reply = apply.ssa_dry_run(client, resource, force=True)
    if not reply.ok:
        raise KubeError(f"dry-run apply of {resource.describe()} failed: {reply.message}", reply.status)
    return reply.body, note


def _client_side(client: KubeClient, original: dict[str, Any] | None, resource: Resource,
                 live: dict[str, Any], three_way_for_custom: bool) -> dict[str, Any]:
    """What Helm's three-way patch leaves (the live object when there is nothing to patch)."""
    probe = Resource(resource.obj, resource.mapping, resource.namespace)
    apply.three_way_update(client, original, probe, live, dry_run=True,
                           three_way_for_custom=three_way_for_custom)
    return probe.live if probe.live is not None else live


def _ownership_note(live: dict[str, Any], release: str, namespace: str) -> str:
    """An existing object the release does not own yet: the deploy refuses it unless told
    to take it over."""
    from runner.kube.ownership import ownership_problem

    problem = ownership_problem(live, release, namespace)
    return (f"exists and is not this release's ({problem}); the deploy fails unless "
            "takeOwnership is set") if problem else ""


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)
