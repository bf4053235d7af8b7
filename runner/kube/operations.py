"""Helm's KubeClient Create / Update / Delete over lists of resources.

`update` is Helm's: every target object is applied (created when missing),
objects of the current release no longer rendered are deleted, except those
annotated helm.sh/resource-policy: keep.

Each step is told as Helm's kube client logs it at debug level
(`client.debug`, shown with --debug): `creating resource(s)`, `Patched
resource`, `starting delete resource`...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runner.kube import apply, parallel
from runner.kube.apply import ApplyResult
from runner.kube.client import KubeClient, KubeError
from runner.kube.resources import Resource, difference

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

RESOURCE_POLICY_ANNOTATION = "helm.sh/resource-policy"
KEEP_POLICY = "keep"
CASCADE_POLICIES = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan"}


def create_all(client: KubeClient, resources: Sequence[Resource], *, server_side: bool,
               force: bool = False, dry_run: bool = False,
               result: ApplyResult | None = None) -> ApplyResult:
    """Create (or apply) every object; `result` fills as objects are written, so a
    caller still knows what was created when a later object fails. As Helm's Create,
    an object the server refuses does not stop the others: every refusal is in the
    error, one a line (errors.Join)."""
    result = result if result is not None else ApplyResult()
    client.debug("creating resource(s)", resources=len(resources))
    debug_create_method(client, server_side=server_side, force=force, dry_run=dry_run)

    def one(resource: Resource) -> KubeError | None:
        try:
            if server_side:
                created = apply.server_side_apply(client, resource, force=force, dry_run=dry_run)
                debug_object(client, "Created resource via patch", resource)
            else:
                apply.create(client, resource, dry_run=dry_run)
                created = True
        except KubeError as err:
            return err
        (result.created if created else result.updated).append(resource)
        return None

    refused = [err for batch in parallel.kind_batches(resources) for err in parallel.each(batch, one) if err]
    if refused:
        raise _joined(refused, "\n")
    return result


def _joined(errors: Sequence[KubeError], separator: str) -> KubeError:
    """Several refusals as one error, as Go joins them (the first one's status kept)."""
    if len(errors) == 1:
        return errors[0]
    first = errors[0]
    return KubeError(separator.join(str(err) for err in errors), first.status, first.reason, first.body)


def update_all(client: KubeClient, current: Sequence[Resource], target: Sequence[Resource], *,
               server_side: bool, force: bool = False, upgrade_csa_manager: bool = False,
               three_way_for_custom: bool = False, cascade: str = "background",
               result: ApplyResult | None = None, replace: bool = False) -> ApplyResult:
    """Apply `target`, then delete what `current` had and `target` lacks (unless kept).
    `result` fills as objects are written (see create_all). Refusals end as Helm's update
    ends them: an object that could not be created stops it (`failed to create resource:
    ...`); those that could not be updated are joined with ` && ` once every object was
    tried; either way nothing is deleted."""
    result = result if result is not None else ApplyResult()
    originals = {r.key: r.obj for r in current}
    _debug_update_method(client, server_side=server_side, force=force, replace=replace,
                         upgrade_csa_manager=upgrade_csa_manager, three_way_for_custom=three_way_for_custom)
    client.debug("checking resources for changes", resources=len(target))

    def one(resource: Resource) -> _Refusal | None:
        try:
            if replace:
                created = _replace(client, resource)
            elif server_side:
                if upgrade_csa_manager and migrate_client_side_manager(client, resource):
                    debug_object(client, "Upgraded object client-side field management with "
                                 "server-side apply field management", resource)
                created = apply.server_side_apply(client, resource, force=force)
                debug_object(client, "Created resource via patch" if created else "Patched resource",
                             resource)
            else:
                created = _client_side(client, originals.get(resource.key), resource, three_way_for_custom)
        except _CreateRefused as refused:
            return _Refusal(KubeError(f"failed to create resource: {refused.error}", refused.error.status,
                                      refused.error.reason, refused.error.body), creating=True)
        except KubeError as err:
            creating = server_side and not replace and apply.get_live(client, resource) is None
            if creating:
                err = KubeError(f"failed to create resource: {err}", err.status, err.reason, err.body)
            return _Refusal(err, creating)
        if created:
            client.debug("created a new resource", namespace=resource.namespace, name=resource.name,
                         kind=resource.kind)
        (result.created if created else result.updated).append(resource)
        return None

    not_updated: list[KubeError] = []
    for batch in parallel.kind_batches(target):
        refusals = [refusal for refusal in parallel.each(batch, one) if refusal]
        not_created = [refusal.error for refusal in refusals if refusal.creating]
        if not_created:
            raise not_created[0]
        not_updated += [refusal.error for refusal in refusals]
    if not_updated:
        raise _joined(not_updated, " && ")
    for resource in difference(current, target):
        client.debug("deleting resource", namespace=resource.namespace, name=resource.name, kind=resource.kind)
        if has_keep_policy(resource, exact=True):
            client.debug("skipping delete due to annotation", namespace=resource.namespace, name=resource.name,
                         kind=resource.kind, annotation=RESOURCE_POLICY_ANNOTATION, value=KEEP_POLICY)
            result.kept.append(resource)
            continue
        if delete_one(client, resource, cascade):
            result.deleted.append(resource)
    return result


def debug_create_method(client: KubeClient, *, server_side: bool, force: bool, dry_run: bool) -> None:
    """makeCreateApplyFunc's line."""
    if server_side:
        client.debug("using server-side apply for resource creation", forceConflicts=force, dryRun=dry_run,
                     fieldValidationDirective="Strict")
    else:
        client.debug("using client-side apply for resource creation")


def _debug_update_method(client: KubeClient, *, server_side: bool, force: bool, replace: bool,
                         upgrade_csa_manager: bool, three_way_for_custom: bool) -> None:
    """Update's lines: the create function first (objects new to the release), then the update's."""
    debug_create_method(client, server_side=server_side, force=force, dry_run=False)
    if replace:
        client.debug("using resource replace update strategy", fieldValidationDirective="Strict")
    elif server_side:
        client.debug("using server-side apply for resource update", forceConflicts=force, dryRun=False,
                     fieldValidationDirective="Strict", upgradeClientSideFieldManager=upgrade_csa_manager)
    else:
        client.debug("using client-side apply for resource update",
                     threeWayMergeForUnstructured=three_way_for_custom)


def debug_object(client: KubeClient, message: str, resource: Resource) -> None:
    client.debug(message, namespace=resource.namespace, name=resource.name, gvk=resource.gvk)


@dataclass(frozen=True)
class _Refusal:
    error: KubeError
    creating: bool  # the object did not exist: Helm's update stops at it


class _CreateRefused(Exception):
    """An object update_all found missing could not be created."""

    def __init__(self, error: KubeError) -> None:
        super().__init__(str(error))
        self.error = error


def _create_missing(client: KubeClient, resource: Resource) -> None:
    try:
        apply.create(client, resource)
    except KubeError as err:
        raise _CreateRefused(err) from err


def _client_side(client: KubeClient, original: dict[str, Any] | None, resource: Resource,
                 three_way_for_custom: bool) -> bool:
    live = apply.get_live(client, resource)
    if live is None:
        _create_missing(client, resource)
        return True
    if apply.three_way_update(client, original, resource, live, three_way_for_custom=three_way_for_custom):
        client.debug("patching resource", kind=resource.kind, name=resource.name, namespace=resource.namespace)
    else:
        client.debug("no changes detected", kind=resource.kind, name=resource.name)
    return False


def _replace(client: KubeClient, resource: Resource) -> bool:
    """--force-replace: PUT the whole object over the live one (created when missing)."""
    live = apply.get_live(client, resource)
    if live is None:
        _create_missing(client, resource)
        return True
    body = dict(resource.obj)
    body["metadata"] = {**resource.obj.get("metadata", {}),
                        "resourceVersion": live["metadata"]["resourceVersion"]}
    reply = client.request("PUT", resource.path, body=body,
                           query=[("fieldManager", apply.FIELD_MANAGER)])
    if not reply.ok:
        raise KubeError(f"failed to replace object: {reply.error_text}", reply.status)
    resource.live = reply.body
    client.debug("replace succeeded", name=resource.name, initialKind=str(live.get("kind", "")),
                 kind=resource.kind)
    return False


def has_keep_policy(resource: Resource, *, exact: bool) -> bool:
    """helm.sh/resource-policy: keep (uninstall trims and lower-cases; upgrade is exact)."""
    value = resource.annotations.get(RESOURCE_POLICY_ANNOTATION, "")
    return value == KEEP_POLICY if exact else value.strip().lower() == KEEP_POLICY


def delete_one(client: KubeClient, resource: Resource, cascade: str = "background") -> bool:
    """Delete with a propagation policy; an object already gone is not an error (False)."""
    body = {"kind": "DeleteOptions", "apiVersion": "v1",
            "propagationPolicy": CASCADE_POLICIES.get(cascade, "Background")}
    reply = client.request("DELETE", resource.path, body=body)
    if reply.status == 404:
        client.debug("ignoring delete failure", namespace=resource.namespace, name=resource.name,
                     kind=resource.kind, error=reply.message)
        return False
    if not reply.ok:
        raise KubeError(f"failed to delete {resource.describe()}: {reply.message}", reply.status)
    return True


def delete_all(client: KubeClient, resources: Sequence[Resource], cascade: str = "background"
               ) -> tuple[list[Resource], list[str]]:
    """Delete each in the given order; collect errors instead of stopping (Helm's Delete)."""
    deleted: list[Resource] = []
    errors: list[str] = []
    for resource in resources:
        client.debug("starting delete resource", namespace=resource.namespace, name=resource.name,
                     kind=resource.kind)
        try:
            if delete_one(client, resource, cascade):
                deleted.append(resource)
        except KubeError as err:
            errors.append(str(err))
    return deleted, errors


def migrate_client_side_manager(client: KubeClient, resource: Resource) -> bool:
    """csaupgrade: fold the `helm` Update (client-side) managedFields entry into the
    `helm` Apply entry, so server-side apply owns what client-side apply set. True when
    there was one to fold."""
    live = apply.get_live(client, resource)
    if live is None:
        return False
    fields = (live.get("metadata") or {}).get("managedFields") or []
    csa = [e for e in fields if e.get("manager") == apply.FIELD_MANAGER
           and e.get("operation") == "Update" and not e.get("subresource")]
    if not csa:
        return False
    ssa = next((e for e in fields if e.get("manager") == apply.FIELD_MANAGER
                and e.get("operation") == "Apply"), None)
    merged = dict(ssa or {**csa[0], "operation": "Apply"})
    for entry in csa:
        merged["fieldsV1"] = _union(merged.get("fieldsV1") or {}, entry.get("fieldsV1") or {})
    kept = [e for e in fields if e not in csa and e is not ssa]
    patch = [{"op": "test", "path": "/metadata/resourceVersion",
              "value": live["metadata"]["resourceVersion"]},
             {"op": "replace", "path": "/metadata/managedFields", "value": [*kept, merged]}]
    reply = client.request("PATCH", resource.path, body=patch,
                           content_type="application/json-patch+json")
    if not reply.ok:
        raise KubeError(f"failed to upgrade field managers of {resource.describe()}: {reply.message}",
                        reply.status)
    return True


def _union(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        out[key] = _union(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
    return out
