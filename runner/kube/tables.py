"""What `helm status` shows under RESOURCES: the server's own table view
(meta.k8s.io Table, as kubectl get prints) of each object of a release, grouped
as "<version>/<Kind>", plus the Pods selected by workload objects ("(related)").

Helm reads the objects one after another; here they are read concurrently
(runner.kube.parallel: a bounded pool over the client's keep-alive connections)
and put together, and what the server warns told, in the objects' order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from runner.kube import parallel
from runner.kube.client import KubeClient
from runner.kube.resources import Resource

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
_SELECTING = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job",
                        "ReplicationController"})


@dataclass
class Table:
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)

    def add(self, reply: dict) -> None:
        shown = [i for i, c in enumerate(reply.get("columnDefinitions") or []) if c.get("priority", 0) == 0]
        if not self.columns:
            self.columns = [reply["columnDefinitions"][i]["name"].upper() for i in shown]
        for row in reply.get("rows") or []:
            cells = row.get("cells") or []
            self.rows.append([_cell(cells[i]) if i < len(cells) else "" for i in shown])


def _cell(value: object) -> str:
    if value is None:
        return "<none>"
    return str(value)


def resource_tables(client: KubeClient, resources: Sequence[Resource]) -> dict[str, Table]:
    """"v1/ConfigMap" -> table of those objects; missing objects are skipped."""
    tables: dict[str, Table] = {}
    for (found, tell), resource in zip(parallel.held_each(client, resources, lambda r: _table_rows(client, r)),
                                       resources, strict=True):
        tell()
        if found is None:
            continue
        table, pods = found
        tables.setdefault(f"{resource.mapping.version}/{resource.kind}", Table()).add(table)
        if pods is not None:
            tables.setdefault("v1/Pod(related)", Table()).add(pods)
    return dict(sorted(tables.items()))


def _table_rows(client: KubeClient, resource: Resource) -> tuple[dict, dict | None] | None:
    """An object's table, and that of the Pods it selects (a workload's); None when missing."""
    reply = client.request("GET", resource.path, accept=TABLE)
    if not reply.ok:
        return None
    return reply.body, _related_pods(client, resource) if resource.kind in _SELECTING else None


def resource_objects(client: KubeClient, resources: Sequence[Resource]) -> dict[str, list[object]]:
    """The same grouping with the objects themselves (Helm's Get with related Pods)."""
    objects: dict[str, list[object]] = {}
    for (found, tell), resource in zip(parallel.held_each(client, resources, lambda r: _object(client, r)),
                                       resources, strict=True):
        tell()
        if found is None:
            continue
        live, pods = found
        objects.setdefault(f"{resource.mapping.version}/{resource.kind}", []).append(_sorted(live))
        for pod in pods:
            objects.setdefault("v1/Pod(related)", []).append(_sorted({"apiVersion": "v1", "kind": "Pod", **pod}))
    return objects


def _object(client: KubeClient, resource: Resource) -> tuple[dict, list[dict]] | None:
    """An object and the Pods it selects (a workload's); None when missing."""
    reply = client.request("GET", resource.path)
    if not reply.ok:
        return None
    selector = _selector(reply.body) if resource.kind in _SELECTING else ""
    if not selector:
        return reply.body, []
    path = f"/api/v1/namespaces/{quote(resource.namespace, safe='')}/pods"
    pods = client.request("GET", path, query=[("labelSelector", selector)])
    return reply.body, list(pods.body.get("items") or []) if pods.ok else []


def _sorted(value: object) -> object:
    """Unstructured objects print as Go maps do: keys sorted, at every level."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _selector(live: dict) -> str:
    labels = ((live.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _related_pods(client: KubeClient, resource: Resource) -> dict | None:
    """The table of the Pods a workload selects; None when it selects none or there are none."""
    live = client.request("GET", resource.path)
    labels = (((live.body.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}) \
        if live.ok else {}
    if not labels:
        return None
    selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
    path = f"/api/v1/namespaces/{quote(resource.namespace, safe='')}/pods"
    reply = client.request("GET", path, query=[("labelSelector", selector)], accept=TABLE)
    return reply.body if reply.ok and reply.body.get("rows") else None


def render(tables: dict[str, Table]) -> str:
    """kubectl's tabwriter layout (padding 3, last column unpadded), a blank line after each."""
    out = []
    for key, table in tables.items():
        rows = [table.columns, *table.rows]
        widths = [max(len(r[i]) for r in rows) for i in range(len(table.columns))]
        lines = ["   ".join(cell.ljust(widths[i]) for i, cell in enumerate(r[:-1])) +
                 ("   " if len(r) > 1 else "") + r[-1] for r in rows]
        out.append(f"==> {key}\n" + "\n".join(lines) + "\n\n")
    return "".join(out)
