"""Steps shared by install, upgrade and rollback: CRDs, namespace, the SSA
conflict preflight, and waiting."""

from __future__ import annotations

from collections.abc import Sequence

from runner.kube import wait as kube_wait
from runner.kube.apply import FIELD_MANAGER, ApplyConflictError, create, preflight_conflicts
from runner.kube.client import KubeClient, KubeError
from runner.kube.resources import Resource, parse_documents, resource_of

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def preflight(client: KubeClient, resources: Sequence[Resource], *,
              migrating_from_csa: bool = False) -> None:
    """Dry-run every server-side apply first: all conflicts reported, nothing written.
    When moving a release from client-side apply, our own `helm` Update entries are
    folded into the Apply entry before applying, so they are not conflicts."""
    # An object known to be absent has no field managers, so it cannot conflict.
    conflicts = preflight_conflicts(client, [r for r in resources if r.exists is not False])
    if migrating_from_csa:
        conflicts = [c for c in conflicts if c.manager != FIELD_MANAGER]
    if conflicts:
        raise ApplyConflictError(conflicts)


def ensure_namespace(client: KubeClient, namespace: str) -> None:
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
    reply = client.request("POST", "/api/v1/namespaces", body=body)
    if not reply.ok and reply.status != 409:
        raise KubeError(f"failed to create namespace {namespace}: {reply.message}", reply.status)


def install_crds(client: KubeClient, chart: Any, timeout: float) -> list[str]:
    """Chart CRDs (crds/) are created before anything else, never updated (Helm)."""
    created: list[str] = []
    crds: list[Resource] = []
    for _, file in chart.crd_objects():
        for obj in parse_documents(file.data.decode("utf-8", "replace")):
            crd = resource_of(client, obj, "")
            try:
                create(client, crd)
            except KubeError as err:
                if err.status != 409:
                    raise
                continue
            crds.append(crd)
            created.append(crd.ref())
    if crds:
        _wait_established(client, crds, timeout)
    return created


def _wait_established(client: KubeClient, crds: Sequence[Resource], timeout: float) -> None:
    import time

    deadline = time.monotonic() + timeout
    for crd in crds:
        while time.monotonic() < deadline:
            live = client.checked("GET", crd.path, f"get {crd.describe()}")
            conditions = (live.get("status") or {}).get("conditions") or []
            if any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions):
                break
            time.sleep(0.2)


def wait(client: KubeClient, resources: Sequence[Resource], timeout: float,
         strategy: str = "watcher", jobs: bool = False) -> None:
    """--wait: kstatus watcher (Helm 4's default for a bare --wait) or legacy polling."""
    kube_wait.wait_for(strategy, client, resources, timeout, jobs=jobs)
