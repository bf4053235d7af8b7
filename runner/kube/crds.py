"""A chart's crds/ files written as Helm 4.1.4's Install.installCRDs writes them
(pkg/action/install.go), before the chart is rendered.

One file at a time, in the chart's order: its objects are built, then created
with the install's apply method (kube.ClientCreateOptionServerSideApply):

- server-side apply (field manager `helm`, --force-conflicts as asked): an
  existing CRD is updated to the chart's version; fields another manager owns
  are Helm's `conflict occurred while applying object ...`;
- client-side (--server-side=false): a plain create; a file whose CRD exists
  already (AlreadyExists) is skipped, the CRD left as it is.

Any other failure is `failed to install CRD <file>: <why>`. Upgrades never
come here: Helm leaves crds/ alone after the first install.
"""

from __future__ import annotations

from collections.abc import Sequence

from runner.errors import RunnerError
from runner.kube import apply
from runner.kube.client import KubeClient, Response
from runner.kube.operations import debug_create_method, debug_object
from runner.kube.resources import Resource, build


class CRDInstallError(RunnerError):
    """A crds/ file that could not be installed; nothing of the release is written yet."""


class _AlreadyExists(Exception):
    """Client-side create of a CRD the cluster has."""


def install_crds(client: KubeClient, crds: Sequence[tuple[str, str]], *, server_side: bool,
                 force: bool = False) -> list[Resource]:
    """Write every crds/ file (name, manifest); the CRDs written, to be waited for."""
    written: list[Resource] = []
    for name, manifest in crds:
        resources = _build(client, name, manifest)
        try:
            _create(client, resources, server_side=server_side, force=force)
        except _AlreadyExists:
            client.debug("CRD is already present. Skipping", crd=name)
            continue
        except RunnerError as err:
            raise CRDInstallError(f"failed to install CRD {name}: {err}") from err
        written.extend(resources)
    return written


def _build(client: KubeClient, name: str, manifest: str) -> list[Resource]:
    try:
        resources = build(client, manifest, "")
    except RunnerError as err:
        raise CRDInstallError(f"failed to install CRD {name}: {err}") from err
    if not resources:
        raise CRDInstallError(f"failed to install CRD {name}: resources are empty")
    return resources


def _create(client: KubeClient, resources: Sequence[Resource], *, server_side: bool,
            force: bool) -> None:
    """Helm's Client.Create over one file's objects, with its debug lines."""
    client.debug("creating resource(s)", resources=len(resources))
    debug_create_method(client, server_side=server_side, force=force, dry_run=False)
    exists = False
    for resource in resources:
        if server_side:
            _apply(client, resource, force)
            debug_object(client, "Created resource via patch", resource)
            continue
        query = [("fieldManager", apply.FIELD_MANAGER)]
        reply = client.request("POST", resource.mapping.collection_path(""), body=resource.obj,
                               query=query)
        if reply.status == 409 and reply.body.get("reason") == "AlreadyExists":
            exists = True  # the file's other objects are still created, as Helm's batch does
            continue
        _check(reply)
        resource.live = reply.body
    if exists:
        raise _AlreadyExists


def _apply(client: KubeClient, resource: Resource, force: bool) -> None:
    """patchResourceServerSide: the whole object as an apply patch."""
    reply = apply.ssa_request(client, resource, force=force)
    if reply.status == 409 and reply.body.get("reason") == "Conflict":
        raise RunnerError(f"conflict occurred while applying object /{resource.name} {resource.gvk}: "
                          f"{reply.error_text}")
    _check(reply)
    resource.live = reply.body


def _check(reply: Response) -> None:
    if not reply.ok:
        raise RunnerError(reply.error_text)
