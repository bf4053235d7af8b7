"""Writing objects: server-side apply (field manager `helm`), client-side
create / three-way patch, and the conflict preflight.

Server-side apply sends the whole object as `application/apply-patch+yaml`
(JSON is YAML) with `fieldManager=helm`, as Helm 4 does, so the helm CLI and
we share field ownership. A 409 carries one cause per conflicting field; we
keep every one of them so a user sees all fields and their managers at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from runner.errors import RunnerError
from runner.kube.client import KubeClient, KubeError, Response
from runner.kube.resources import Resource

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

FIELD_MANAGER = "helm"
APPLY_PATCH = "application/apply-patch+yaml"


@dataclass(frozen=True)
class FieldConflict:
    resource: str  # Kind "name" in namespace "ns"
    field: str  # e.g. .spec.replicas
    manager: str  # e.g. kubectl
    message: str  # the API server's text for this cause


class ApplyConflictError(RunnerError):
    """SSA refused: other managers own fields we set. Lists every field and manager."""

    def __init__(self, conflicts: Sequence[FieldConflict]) -> None:
        self.conflicts = list(conflicts)
        lines = [f"  {c.resource}: {c.field} is owned by {c.manager!r}" for c in self.conflicts]
        super().__init__(
            f"server-side apply conflicts ({len(self.conflicts)}); nothing was written:\n"
            + "\n".join(lines)
            + "\nRe-run with --force-conflicts to take these fields over for the field manager "
            f'"{FIELD_MANAGER}".')


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
    """Apply one object; returns True when the server created it. Conflicts raise."""
    reply = ssa_request(client, resource, force=force, dry_run=dry_run)
    if reply.status == 409 and reply.body.get("reason") == "Conflict":
        raise ApplyConflictError(conflicts_of(resource, reply))
    raise_refusal(reply)
    resource.live = reply.body
    return reply.status == 201


def ssa_request(client: KubeClient, resource: Resource, *, force: bool, dry_run: bool = False) -> Response:
    """The server's answer to applying `resource` (the whole object, field manager `helm`)."""
    query = [("fieldManager", FIELD_MANAGER), ("force", "true" if force else "false")]
    if dry_run:
        query.append(("dryRun", "All"))
    return client.request("PATCH", resource.path, body=resource.obj, query=query,
                          content_type=APPLY_PATCH)


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
                        refusals: bool = True) -> list[FieldConflict]:
    """Dry-run the SSA of every object (force off); collect all conflicts, write nothing.
    Any other refusal (an invalid object, a webhook's denial) raises when `refusals` (a dry
    run's answer); else it is left to the apply, which meets it once the revision is
    recorded, as Helm's does (it has no preflight)."""
    from runner.kube import parallel

    def one(resource: Resource) -> list[FieldConflict]:
        reply = ssa_request(client, resource, force=False, dry_run=True)
        if reply.status == 409 and reply.body.get("reason") == "Conflict":
            return conflicts_of(resource, reply)
        namespace_later = reply.status == 404 and resource.mapping.namespaced
        if refusals and not namespace_later:
            _raise_for(reply, f"failed to apply {resource.describe()}")
        return []

    return [c for found in parallel.each(list(resources), one) for c in found]


# -- client-side apply -------------------------------------------------------------


def create(client: KubeClient, resource: Resource, *, dry_run: bool = False) -> None:
    query = [("fieldManager", FIELD_MANAGER)] + ([("dryRun", "All")] if dry_run else [])
    namespace = resource.namespace
    reply = client.request("POST", resource.mapping.collection_path(namespace),
                           body=resource.obj, query=query)
    raise_refusal(reply)
    resource.live = reply.body


def three_way_update(client: KubeClient, original: dict[str, Any] | None, resource: Resource,
                     live: dict[str, Any], *, dry_run: bool = False,
                     three_way_for_custom: bool = False) -> bool:
    """Helm's CSA update (createPatch): a three-way strategic merge patch for built-in
    kinds; for custom resources a JSON merge patch, two-way unless `three_way_for_custom`."""
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
    if not reply.ok:  # Helm's updateResource
        from runner.golang.strconv import quote

        raise KubeError(f"cannot patch {quote(resource.name)} with kind {resource.kind}: "
                        f"{reply.error_text}", reply.status, str(reply.body.get("reason", "")), reply.body)
    resource.live = reply.body
    return True


def get_live(client: KubeClient, resource: Resource) -> dict[str, Any] | None:
    reply = client.request("GET", resource.path)
    if reply.status == 404:
        return None
    _raise_for(reply, f"could not get information about the resource {resource.describe()}")
    return reply.body


def raise_refusal(reply: Response) -> None:
    """client-go's error for a refused write, which Helm passes on as it is: the Status's
    message (`Deployment.apps "web" is invalid: ...`); callers add Helm's context."""
    if not reply.ok:
        raise KubeError(reply.error_text, reply.status, str(reply.body.get("reason", "")), reply.body)


def _raise_for(reply: Response, what: str) -> None:
    if not reply.ok:
        raise KubeError(f"{what}: {reply.message}", reply.status,
                        str(reply.body.get("reason", "")), reply.body)
