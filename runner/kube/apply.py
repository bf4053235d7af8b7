"""Writing objects: server-side apply (field manager `helm`), client-side
create / three-way patch, and the conflict preflight.

Server-side apply sends the whole object as `application/apply-patch+yaml`
(JSON is YAML) with `fieldManager=helm` and `fieldValidation=Strict`, as Helm 4
does, so the helm CLI and we share field ownership and refuse the same objects.
Client-side create and patch send no validation directive (the server's default
warns of an unknown field and drops it), as Helm's do. Failures are Helm's
words: the server's text, a conflict or a client-side patch wrapped as Helm
wraps them. A 409 carries one cause per conflicting field (the preflight reads
them to leave out our own client-side entries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from runner.errors import RunnerError
from runner.kube.client import KubeClient, KubeError, Response
from runner.kube.resources import Resource

FIELD_MANAGER = "helm"
APPLY_PATCH = "application/apply-patch+yaml"
STRICT = "Strict"  # Helm's fieldValidation for server-side apply and --force-replace


@dataclass(frozen=True)
class FieldConflict:
    resource: str  # Kind "name" in namespace "ns"
    field: str  # e.g. .spec.replicas
    manager: str  # e.g. kubectl
    message: str  # the API server's text for this cause


class ApplyConflictError(RunnerError):
    """SSA refused: other managers own fields we set. One line per object in Helm's
    words (patchResourceServerSide's, joined as Go's errors.Join joins them), each
    naming every field and its manager."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        super().__init__("\n".join(self.texts))


@dataclass
class ApplyResult:
    """What one apply pass did, by Helm's buckets."""

    created: list[Resource] = field(default_factory=list)
    updated: list[Resource] = field(default_factory=list)
    deleted: list[Resource] = field(default_factory=list)
    kept: list[Resource] = field(default_factory=list)


# -- server-side apply -----------------------------------------------------------


def server_side_apply(client: KubeClient, resource: Resource, *, force: bool,
                      dry_run: bool = False) -> bool:
    """Apply one object; returns True when the server created it. Failures raise in
    Helm's words (patchResourceServerSide): a conflict names the object, the rest are
    the server's text."""
    reply = ssa_request(client, resource, force=force, dry_run=dry_run)
    if reply.status == 409 and reply.body.get("reason") == "Conflict":
        raise KubeError(conflict_text(resource, reply.error_text), reply.status, "Conflict", reply.body)
    if reply.status == 415:  # isIncompatibleServerError
        raise KubeError(f"server-side apply not available on the server: {reply.error_text}", reply.status)
    raise_for(reply)
    resource.live = reply.body
    return reply.status == 201


def conflict_text(resource: Resource, message: str) -> str:
    """Helm's error for an object whose apply conflicts (`ns/name group/version, Kind=K`)."""
    return f"conflict occurred while applying object {resource.namespace}/{resource.name} {resource.gvk}: {message}"


def ssa_request(client: KubeClient, resource: Resource, *, force: bool, dry_run: bool = False,
                warnings: bool = True) -> Response:
    """The server's answer to applying `resource` (the whole object, field manager `helm`,
    fieldValidation=Strict as Helm's Create and Update send it: an unknown field fails)."""
    query = [("fieldManager", FIELD_MANAGER), ("fieldValidation", STRICT), ("force", "true" if force else "false")]
    if dry_run:
        query.append(("dryRun", "All"))
    return client.request("PATCH", resource.path, body=resource.obj, query=query,
                          content_type=APPLY_PATCH, warnings=warnings)


def ssa_dry_run(client: KubeClient, resource: Resource, *, force: bool) -> Response:
    """The server's answer to applying `resource` with dryRun=All: nothing is stored."""
    return ssa_request(client, resource, force=force, dry_run=True)


def conflicts_of(resource: Resource, reply: Response) -> list[FieldConflict]:
    """One FieldConflict per cause of a 409 Status (the manager is quoted in its message)."""
    found = []
    for cause in (reply.body.get("details") or {}).get("causes") or []:
        message = str(cause.get("message", ""))
        found.append(FieldConflict(resource.describe(), str(cause.get("field", "")),
                                   _manager_in(message), message))
    if not found:
        found.append(FieldConflict(resource.describe(), "", "", reply.message))
    return found


def _manager_in(message: str) -> str:
    """`conflict with "kubectl" using apps/v1` -> kubectl."""
    start = message.find('"')
    end = message.find('"', start + 1)
    return message[start + 1:end] if start >= 0 and end > start else message


def preflight_conflicts(client: KubeClient, resources: Sequence[Resource], *,
                        ignore_manager: str = "") -> list[str]:
    """Dry-run the SSA of every object (force off); Helm's error for each object whose
    apply conflicts, in order; nothing written. Causes of `ignore_manager` are left out
    (our own client-side entries, folded before a migrating apply). Any other refusal
    is left to the real apply, which fails as Helm's does; the dry runs' warnings too."""
    from runner.kube import parallel

    def one(resource: Resource) -> str:
        reply = ssa_request(client, resource, force=False, dry_run=True, warnings=False)
        if not (reply.status == 409 and reply.body.get("reason") == "Conflict"):
            return ""
        every = conflicts_of(resource, reply)
        causes = [c for c in every if not ignore_manager or c.manager != ignore_manager]
        if not causes:
            return ""
        message = reply.error_text if len(causes) == len(every) else conflict_message(causes)
        return conflict_text(resource, message)

    return [text for text in parallel.each(list(resources), one) if text]


def conflict_message(conflicts: Sequence[FieldConflict]) -> str:
    """The API server's message for these conflicts (apimachinery's getConflictMessage):
    one inline, several grouped by manager."""
    if len(conflicts) == 1:
        return f"Apply failed with 1 conflict: {conflicts[0].message}: {conflicts[0].field}"
    by_manager: dict[str, list[str]] = {}
    for conflict in conflicts:
        by_manager.setdefault(conflict.message.replace("conflict with ", "", 1), []).append(conflict.field)
    lines = []
    for manager in sorted(by_manager):
        lines.append(f"conflicts with {manager}:")
        lines += [f"- {path}" for path in by_manager[manager]]
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)


# -- client-side apply -------------------------------------------------------------


def create(client: KubeClient, resource: Resource, *, dry_run: bool = False) -> None:
    """createResource: a POST (no fieldValidation: the server's default warns of an
    unknown field and drops it); a failure is the server's text."""
    query = [("fieldManager", FIELD_MANAGER)] + ([("dryRun", "All")] if dry_run else [])
    namespace = resource.namespace
    reply = client.request("POST", resource.mapping.collection_path(namespace),
                           body=resource.obj, query=query)
    raise_for(reply)
    resource.live = reply.body


def three_way_update(client: KubeClient, original: dict[str, Any] | None, resource: Resource,
                     live: dict[str, Any], *, dry_run: bool = False,
                     three_way_for_custom: bool = False) -> bool:
    """Helm's CSA update (createPatch): a three-way strategic merge patch for built-in
    kinds; for custom resources a JSON merge patch, two-way unless `three_way_for_custom`.
    False when there was nothing to send."""
    # Imported here: server-side apply runs never need the patch machinery.
    from runner.kube.patch import GroupVersionKind, three_way_patch
    from runner.kube.patch.bridge import metadata_for

    mapping = resource.mapping
    content_type, patch = three_way_patch(
        original, resource.obj, live, GroupVersionKind(mapping.group, mapping.version, mapping.kind),
        metadata_for(client), three_way_for_custom=three_way_for_custom)
    if not patch:
        resource.live = live
        return False
    query = [("fieldManager", FIELD_MANAGER)] + ([("dryRun", "All")] if dry_run else [])
    reply = client.request("PATCH", resource.path, body=patch, query=query,
                           content_type=content_type)
    if not reply.ok:
        raise KubeError(f'cannot patch "{resource.name}" with kind {resource.kind}: {reply.error_text}',
                        reply.status, str(reply.body.get("reason", "")), reply.body)
    resource.live = reply.body
    return True


def get_live(client: KubeClient, resource: Resource, what: str = "") -> dict[str, Any] | None:
    """The object as the server has it; None when it is not found. Another failure raises
    `could not get information about the resource<what>: <the server's text>` (Helm's
    words: `what` is the resource named, as the ownership check names it, or nothing)."""
    reply = client.request("GET", resource.path)
    if reply.status == 404:
        return None
    if not reply.ok:
        raise KubeError(f"could not get information about the resource{what}: {reply.error_text}",
                        reply.status, str(reply.body.get("reason", "")), reply.body)
    return reply.body


def raise_for(reply: Response) -> None:
    """A failed answer as client-go's error: the server's text (its Status message)."""
    if not reply.ok:
        raise KubeError(reply.error_text, reply.status, str(reply.body.get("reason", "")), reply.body)
