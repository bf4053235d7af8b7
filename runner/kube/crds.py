"""A chart's crds/ files written as Helm 4.1.4's Install.installCRDs writes them
(pkg/action/install.go), before the chart is rendered.

One file at a time, in the chart's order: its objects are built, then created
with the install's apply method (kube.ClientCreateOptionServerSideApply):

- server-side apply (field manager `helm`, --force-conflicts as asked): an
  existing CRD is updated to the chart's version; fields another manager owns
  are Helm's `conflict occurred while applying object ...`;
- client-side (--server-side=false): a plain create; a file whose CRD exists
  already (AlreadyExists) is skipped, the CRD left as it is.

Any other failure is `failed to install CRD <file>: <why>`. Then, with --wait
only (its strategy's waiter; without --wait Helm's hookOnly waiter waits for
nothing), the CRDs written are waited for up to 60 s, a timeout failing the
install. Upgrades never come here: Helm leaves crds/ alone after the first install.
"""

from __future__ import annotations

from collections.abc import Sequence

from runner.errors import RunnerError
from runner.kube import apply
from runner.kube.client import KubeClient
from runner.kube.operations import debug_create_method, debug_object
from runner.kube.resources import Resource, parse_documents, resource_of

# installCRDs waits this long, whatever --timeout says ("Give time for the CRD to be recognized").
CRD_WAIT_SECONDS = 60.0


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
        resources = [resource_of(client, obj, "") for obj in parse_documents(manifest)]
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
            apply.server_side_apply(client, resource, force=force)  # patchResourceServerSide
            debug_object(client, "Created resource via patch", resource)
            continue
        query = [("fieldManager", apply.FIELD_MANAGER)]
        reply = client.request("POST", resource.mapping.collection_path(""), body=resource.obj,
                               query=query)
        if reply.status == 409 and reply.body.get("reason") == "AlreadyExists":
            exists = True  # the file's other objects are still created, as Helm's batch does
            continue
        apply.raise_for(reply)
        resource.live = reply.body
    if exists:
        raise _AlreadyExists
