"""Helm's KubeClient Create / Update / Delete over lists of resources.

`update` is Helm's: every target object is read, then created when missing or
updated; objects of the current release no longer rendered are deleted, except
those whose live copy is annotated helm.sh/resource-policy: keep. The requests
are Helm's too, one for one (each answer's server warnings are printed, as
Helm's are, so their count must match), and so are the errors: the server's
text, wrapped and joined as Helm's Create and Update wrap and join them.
Create writes the objects of one kind in parallel, kinds one after another
(Helm's batchPerform); Update keeps the outcome of Helm's Visit (object by object:
the same writes, the same stop at the same object, warnings and debug lines in
its order) while it reads the objects of one kind at once and updates the
existing ones together (runner.kube.parallel, a bounded pool over the client's
keep-alive connections).

Each step is told as Helm's kube client logs it at debug level
(`client.debug`, shown with --debug): `creating resource(s)`, `Patched
resource`, `starting delete resource`...
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from runner.kube import apply, parallel
from runner.kube.apply import ApplyResult
from runner.kube.client import KubeClient, KubeError, Response
from runner.kube.resources import Resource, difference

RESOURCE_POLICY_ANNOTATION = "helm.sh/resource-policy"
KEEP_POLICY = "keep"
CASCADE_POLICIES = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan"}


def create_all(client: KubeClient, resources: Sequence[Resource], *, server_side: bool,
               force: bool = False, dry_run: bool = False,
               result: ApplyResult | None = None) -> ApplyResult:
    """Helm's Create: every object is written, one kind after another (a failure does not
    stop the rest); the failures, joined as errors.Join joins them, raise at the end.
    `result` fills as objects are written, so a caller knows what was created."""
    result = result if result is not None else ApplyResult()
    client.debug("creating resource(s)", resources=len(resources))
    write = _create_function(client, server_side=server_side, force=force, dry_run=dry_run)

    def one(resource: Resource) -> KubeError | None:
        try:
            created = write(resource)
        except KubeError as err:
            return err
        (result.created if created else result.updated).append(resource)
        return None

    failures: list[KubeError] = []
    for batch in parallel.kind_batches(resources):
        failures += [err for err in parallel.each(batch, one) if err is not None]
    if failures:
        raise _joined(failures, "\n")
    return result


def update_all(client: KubeClient, current: Sequence[Resource], target: Sequence[Resource], *,
               server_side: bool, force: bool = False, upgrade_csa_manager: bool = False,
               three_way_for_custom: bool = False, cascade: str = "background",
               result: ApplyResult | None = None, replace: bool = False) -> ApplyResult:
    """Helm's Update: each target object is read, then created when missing or updated;
    a failed read or create stops there (`could not get information about the resource:
    ...`, `failed to create resource: ...`), failed updates are gathered (` && `). Only
    when all went well are the objects `current` has and `target` lacks deleted (unless
    kept). `result` fills as objects are written (see create_all)."""
    result = result if result is not None else ApplyResult()
    originals = {r.key: r for r in current}
    create = _create_function(client, server_side=server_side, force=force, dry_run=False)
    update = _update_function(client, server_side=server_side, force=force, replace=replace,
                              upgrade_csa_manager=upgrade_csa_manager,
                              three_way_for_custom=three_way_for_custom)
    client.debug("checking resources for changes", resources=len(target))

    def read(resource: Resource) -> tuple[dict[str, Any] | None, KubeError | None]:
        try:
            return apply.get_live(client, resource), None
        except KubeError as err:
            return None, err

    def create_missing(resource: Resource) -> None:
        result.created.append(resource)  # as Helm's: counted even when the create fails
        try:
            create(resource)
        except KubeError as err:
            raise KubeError(f"failed to create resource: {err}", err.status, err.reason, err.body) from None
        client.debug("created a new resource", namespace=resource.namespace, name=resource.name,
                     kind=resource.kind)

    def update_existing(resource: Resource) -> KubeError | None:
        try:
            update(originals[resource.key], resource)
        except KubeError as err:
            return err
        return None

    failures: list[KubeError] = []

    def update_together(ready: list[tuple[Resource, Callable[[], None]]]) -> None:
        """Existing objects updated concurrently; told, counted and failed in their order."""
        done = parallel.held_each(client, [resource for resource, _ in ready], update_existing)
        for (resource, tell_read), (failure, tell_update) in zip(ready, done, strict=True):
            tell_read()
            tell_update()
            result.updated.append(resource)
            if failure is not None:
                failures.append(failure)
        ready.clear()

    # As Helm's Visit, object by object in order: a failed read or create, or an object
    # without its original, stops there (the failed updates before it go unsaid). The
    # objects of one kind are read at once, and the existing ones among them updated at
    # once up to the next create or stop; each create runs alone, in its place.
    for batch in _independent_runs(target):
        ready: list[tuple[Resource, Callable[[], None]]] = []
        for resource, ((live, error), tell_read) in zip(batch, parallel.held_each(client, batch, read),
                                                         strict=True):
            if error is None and live is not None and resource.key in originals:
                ready.append((resource, tell_read))
                continue
            update_together(ready)
            tell_read()
            if error is not None:
                raise error
            if live is None:
                create_missing(resource)
                continue
            raise KubeError(f'original object {resource.kind} with the name "{resource.name}" not found')
        update_together(ready)
    if failures:
        raise _joined(failures, " && ")
    failures = [err for resource in difference(current, target)
                if (err := _delete_dropped(client, resource, cascade, result)) is not None]
    if failures:
        raise _joined(failures, " && ")
    return result


def _independent_runs(resources: Sequence[Resource]) -> Iterator[list[Resource]]:
    """Runs of objects of one kind (install order) in which no object comes twice: the
    objects of a run can be read and written at once."""
    for batch in parallel.kind_batches(resources):
        run: list[Resource] = []
        seen: set[Any] = set()
        for resource in batch:
            if resource.key in seen:
                yield run
                run, seen = [], set()
            run.append(resource)
            seen.add(resource.key)
        yield run


def _create_function(client: KubeClient, *, server_side: bool, force: bool, dry_run: bool
                     ) -> Callable[[Resource], bool]:
    """makeCreateApplyFunc (with its debug line): a function writing one object, True when
    the server created it."""
    debug_create_method(client, server_side=server_side, force=force, dry_run=dry_run)

    def with_server_side_apply(resource: Resource) -> bool:
        try:
            created = apply.server_side_apply(client, resource, force=force, dry_run=dry_run)
        except KubeError as err:
            debug_object(client, "Error creating resource via patch", resource, error=str(err))
            raise
        debug_object(client, "Created resource via patch", resource)
        return created

    def with_create(resource: Resource) -> bool:
        apply.create(client, resource, dry_run=dry_run)
        return True

    return with_server_side_apply if server_side else with_create


def _update_function(client: KubeClient, *, server_side: bool, force: bool, replace: bool,
                     upgrade_csa_manager: bool, three_way_for_custom: bool
                     ) -> Callable[[Resource, Resource], None]:
    """Update's updateApplyFunc (with its debug line): brings one existing object (its
    `original` in the release being replaced) to the target."""
    _debug_update_method(client, server_side=server_side, force=force, replace=replace,
                         upgrade_csa_manager=upgrade_csa_manager, three_way_for_custom=three_way_for_custom)

    def by_replace(original: Resource, resource: Resource) -> None:
        _replace(client, original, resource)

    def by_server_side_apply(original: Resource, resource: Resource) -> None:
        if upgrade_csa_manager and migrate_client_side_manager(client, original):
            debug_object(client, "Upgraded object client-side field management with server-side "
                                 "apply field management", resource)
        try:
            apply.server_side_apply(client, resource, force=force)
        except KubeError as err:
            debug_object(client, "Error patching resource", resource, error=str(err))
            raise
        debug_object(client, "Patched resource", resource)

    def by_client_side_patch(original: Resource, resource: Resource) -> None:
        _client_side(client, original.obj, resource, three_way_for_custom)

    if replace:
        return by_replace
    return by_server_side_apply if server_side else by_client_side_patch


def _delete_dropped(client: KubeClient, resource: Resource, cascade: str, result: ApplyResult
                    ) -> KubeError | None:
    """An object the new release no longer has, as Helm's Update treats it: read first (gone
    or unreadable: skipped), kept when the live object says helm.sh/resource-policy: keep,
    else deleted; a failure other than NotFound is returned."""
    where = {"namespace": resource.namespace, "name": resource.name, "kind": resource.kind}
    client.debug("deleting resource", **where)
    reply = client.request("GET", resource.path)
    if not reply.ok:
        client.debug("unable to get object", **where, error=reply.error_text)
        return None
    annotations = (reply.body.get("metadata") or {}).get("annotations") or {}
    if annotations.get(RESOURCE_POLICY_ANNOTATION) == KEEP_POLICY:
        client.debug("skipping delete due to annotation", **where, annotation=RESOURCE_POLICY_ANNOTATION,
                     value=KEEP_POLICY)
        result.kept.append(resource)
        return None
    reply = _delete_request(client, resource, cascade)
    if not reply.ok:
        client.debug("failed to delete resource", **where, error=reply.error_text)
        if reply.status == 404:
            return None
        return KubeError(f"failed to delete resource {resource.name}: {reply.error_text}", reply.status)
    result.deleted.append(resource)
    return None


def _joined(errors: Sequence[KubeError], separator: str) -> KubeError:
    """One error for several (errors.Join: newlines; Helm's joinErrors: ` && `); a single
    one as it is."""
    if len(errors) == 1:
        return errors[0]
    return KubeError(separator.join(str(err) for err in errors), errors[0].status)


def debug_create_method(client: KubeClient, *, server_side: bool, force: bool, dry_run: bool) -> None:
    """makeCreateApplyFunc's line."""
    if server_side:
        client.debug("using server-side apply for resource creation", forceConflicts=force, dryRun=dry_run,
                     fieldValidationDirective="Strict")
    else:
        client.debug("using client-side apply for resource creation")


def _debug_update_method(client: KubeClient, *, server_side: bool, force: bool, replace: bool,
                         upgrade_csa_manager: bool, three_way_for_custom: bool) -> None:
    """The update function's line (Update logs the create function's first)."""
    if replace:
        client.debug("using resource replace update strategy", fieldValidationDirective="Strict")
    elif server_side:
        client.debug("using server-side apply for resource update", forceConflicts=force, dryRun=False,
                     fieldValidationDirective="Strict", upgradeClientSideFieldManager=upgrade_csa_manager)
    else:
        client.debug("using client-side apply for resource update",
                     threeWayMergeForUnstructured=three_way_for_custom)


def debug_object(client: KubeClient, message: str, resource: Resource, **attrs: Any) -> None:
    client.debug(message, namespace=resource.namespace, name=resource.name, gvk=resource.gvk, **attrs)


def _client_side(client: KubeClient, original: dict[str, Any] | None, resource: Resource,
                 three_way_for_custom: bool) -> None:
    """patchResourceClientSide: the live object read again for the three-way patch, the
    patch sent when there is one, else the object read once more (Helm refreshes it)."""
    reply = client.request("GET", resource.path)
    if not reply.ok and reply.status != 404:
        raise KubeError(f"failed to create patch: unable to get data for current object "
                        f"{resource.namespace}/{resource.name}: {reply.error_text}", reply.status)
    live = reply.body if reply.ok else {}  # gone meanwhile: Helm patches against nothing
    if apply.three_way_update(client, original, resource, live, three_way_for_custom=three_way_for_custom):
        client.debug("patching resource", kind=resource.kind, name=resource.name, namespace=resource.namespace)
        return
    client.debug("no changes detected", kind=resource.kind, name=resource.name)
    reply = client.request("GET", resource.path)
    if not reply.ok:
        raise KubeError(f"failed to refresh resource information: {reply.error_text}", reply.status)
    resource.live = reply.body


def _replace(client: KubeClient, original: Resource, resource: Resource) -> None:
    """--force-replace: PUT the whole object over the live one (replaceResource; client-go's
    Replace reads the live resourceVersion first), fieldValidation=Strict."""
    live = apply.get_live(client, resource)
    body = dict(resource.obj)
    version = ((live or {}).get("metadata") or {}).get("resourceVersion", "")
    body["metadata"] = {**resource.obj.get("metadata", {}), "resourceVersion": version}
    reply = client.request("PUT", resource.path, body=body,
                           query=[("fieldManager", apply.FIELD_MANAGER), ("fieldValidation", apply.STRICT)])
    if not reply.ok:
        client.debug("error replacing the resource", namespace=resource.namespace, name=resource.name,
                     gvk=resource.gvk, error=reply.error_text)
        raise KubeError(f"failed to replace object: {reply.error_text}", reply.status)
    resource.live = reply.body
    client.debug("replace succeeded", name=original.name, initialKind=original.kind, kind=resource.kind)


def has_keep_policy(resource: Resource, *, exact: bool) -> bool:
    """helm.sh/resource-policy: keep (uninstall trims and lower-cases; upgrade is exact)."""
    value = resource.annotations.get(RESOURCE_POLICY_ANNOTATION, "")
    return value == KEEP_POLICY if exact else value.strip().lower() == KEEP_POLICY


def delete_one(client: KubeClient, resource: Resource, cascade: str = "background") -> bool:
    """Delete with a propagation policy; an object already gone is not an error (False)."""
    reply = _delete_request(client, resource, cascade)
    if reply.status == 404:
        client.debug("ignoring delete failure", namespace=resource.namespace, name=resource.name,
                     kind=resource.kind, error=reply.message)
        return False
    if not reply.ok:
        raise KubeError(f"failed to delete {resource.describe()}: {reply.message}", reply.status)
    return True


def _delete_request(client: KubeClient, resource: Resource, cascade: str) -> Response:
    body = {"kind": "DeleteOptions", "apiVersion": "v1",
            "propagationPolicy": CASCADE_POLICIES.get(cascade, "Background")}
    return client.request("DELETE", resource.path, body=body)


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
    there was one to fold. Failures in Helm's words (upgradeClientSideFieldManager).
    The patch holds only while the object's resourceVersion is the one read: when a
    controller moved it meanwhile (a Job's status), the object is read and folded again."""
    where = f"{resource.namespace}/{resource.name} {resource.gvk}"
    failed: tuple[str, Response] | None = None  # the version tested, the refusal
    for _ in range(_FOLD_ATTEMPTS):
        reply = client.request("GET", resource.path)
        if not reply.ok:
            raise KubeError(f"failed to get object {where}: {reply.error_text}", reply.status)
        version = str((reply.body.get("metadata") or {}).get("resourceVersion", ""))
        if failed is not None and failed[0] == version:
            break  # refused for another reason than a moved version
        patch = _fold_patch(reply.body)
        if patch is None:
            return False
        answer = client.request("PATCH", resource.path, body=patch, query=[
            ("fieldManager", apply.FIELD_MANAGER), ("fieldValidation", apply.STRICT)],
            content_type="application/json-patch+json")
        if answer.ok:
            return True
        failed = (version, answer)
        if answer.status != 422:  # a failed test op is a 422; any other refusal is final
            break
    assert failed is not None
    raise KubeError(f"failed to patch object to upgrade CSA field manager {where}: {failed[1].error_text}",
                    failed[1].status)


_FOLD_ATTEMPTS = 3


def _fold_patch(live: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The JSON patch folding the `helm` Update entries of `live` into its Apply entry,
    tested against its resourceVersion; None when there is nothing to fold."""
    fields = (live.get("metadata") or {}).get("managedFields") or []
    csa = [e for e in fields if e.get("manager") == apply.FIELD_MANAGER
           and e.get("operation") == "Update" and not e.get("subresource")]
    if not csa:
        return None
    ssa = next((e for e in fields if e.get("manager") == apply.FIELD_MANAGER
                and e.get("operation") == "Apply"), None)
    merged = dict(ssa or {**csa[0], "operation": "Apply"})
    for entry in csa:
        merged["fieldsV1"] = _union(merged.get("fieldsV1") or {}, entry.get("fieldsV1") or {})
    kept = [e for e in fields if e not in csa and e is not ssa]
    return [{"op": "test", "path": "/metadata/resourceVersion",
             "value": live["metadata"]["resourceVersion"]},
            {"op": "replace", "path": "/metadata/managedFields", "value": [*kept, merged]}]


def _union(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        out[key] = _union(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
    return out
