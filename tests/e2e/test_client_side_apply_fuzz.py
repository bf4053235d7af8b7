"""Seeded random Deployments: our three-way strategic patch must be the patch
`kubectl apply --server-side=false` (1.35) computes for the same v1 -> foreign
edit -> v2 sequence. kubectl runs with --dry-run=server, so it still sends
its patch (logged with -v=9) and nothing is stored.

Every manifest keeps one label and one annotation, as Helm's ownership
metadata does, so kubectl's added last-applied annotation is the only
difference between its `modified` and ours.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from runner.kube.patch import STRATEGIC_MERGE_PATCH, GroupVersionKind, three_way_patch
from tests.e2e.test_client_side_apply import _client, _patch_sent, _request

pytestmark = pytest.mark.e2e

CASES = 16
NAMES = ["app", "web", "proxy", "worker", "agent"]
ENV = ["A", "B", "C", "D", "E"]
PORTS = [80, 443, 8080, 9090, 53]


def _container(rng: random.Random, name: str, volumes: list[str]) -> dict[str, Any]:
    env = rng.sample(ENV, rng.randint(0, 3))
    ports = rng.sample(PORTS, rng.randint(0, 3))
    mounts = rng.sample(volumes, rng.randint(0, len(volumes)))
    container: dict[str, Any] = {"name": name, "image": f"{name}:{rng.randint(1, 3)}"}
    if env:
        container["env"] = [{"name": e, "value": str(rng.randint(0, 2))} for e in env]
    if ports:
        container["ports"] = [{"name": f"p{p}", "containerPort": p} for p in ports]
    if mounts:
        container["volumeMounts"] = [{"name": v, "mountPath": f"/{v}"} for v in mounts]
    if rng.random() < 0.3:
        container["args"] = rng.sample(["--a", "--b", "--c"], rng.randint(1, 3))
    return container


def _volume(rng: random.Random, name: str) -> dict[str, Any]:
    if rng.random() < 0.5:
        return {"name": name, "emptyDir": {}}
    return {"name": name, "configMap": {"name": f"cm-{rng.randint(1, 2)}"}}


def _deployment(rng: random.Random, name: str) -> dict[str, Any]:
    volumes = rng.sample(["v1", "v2", "v3"], rng.randint(0, 3))
    containers = [_container(rng, c, volumes) for c in rng.sample(NAMES, rng.randint(1, 3))]
    strategy: dict[str, Any] = {"type": "Recreate"}
    if rng.random() < 0.5:
        strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": rng.randint(1, 2)}}
    labels = {"app": name, **({"tier": f"t{rng.randint(1, 2)}"} if rng.random() < 0.5 else {})}
    pod: dict[str, Any] = {"containers": containers}
    if volumes:
        pod["volumes"] = [_volume(rng, v) for v in volumes]
    if rng.random() < 0.4:
        pod["tolerations"] = [{"key": k, "operator": "Exists"} for k in rng.sample("xyz", 2)]
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": labels, "annotations": {"owner": "chart"}},
            "spec": {"replicas": rng.randint(1, 3), "selector": {"matchLabels": {"app": name}},
                     "strategy": strategy,
                     "template": {"metadata": {"labels": {"app": name}}, "spec": pod}}}


def _foreign_edit(rng: random.Random, v1: dict[str, Any]) -> dict[str, Any]:
    first = v1["spec"]["template"]["spec"]["containers"][0]["name"]
    edit: dict[str, Any] = {"metadata": {"labels": {"team": "ops"}}}
    spec: dict[str, Any] = {}
    if rng.random() < 0.5:
        spec["replicas"] = 7
    containers = []
    if rng.random() < 0.6:
        containers.append({"name": first, "env": [{"name": "FOREIGN", "value": "x"}]})
    if rng.random() < 0.5:
        containers.append({"name": "injected", "image": "injected:1"})
    if containers:
        spec["template"] = {"spec": {"containers": containers}}
    if spec:
        edit["spec"] = spec
    return edit


def _version_two(rng: random.Random, v1: dict[str, Any]) -> dict[str, Any]:
    """v1 with a few random chart changes (a fresh draw of the same name, mostly)."""
    v2 = _deployment(rng, v1["metadata"]["name"])
    if rng.random() < 0.5:  # keep v1's containers, reordered
        v2["spec"]["template"]["spec"] = json.loads(json.dumps(v1["spec"]["template"]["spec"]))
        rng.shuffle(v2["spec"]["template"]["spec"]["containers"])
    return v2


def _kubectl_dry_run_patch(cluster: Any, namespace: str, obj: dict[str, Any],
                           tmp_path: Path, dry_run: bool) -> dict[str, Any] | None:
    from runner.testbed.helm import kubectl_binary

    manifest = tmp_path / f"{obj['metadata']['name']}-{dry_run}.json"
    manifest.write_text(json.dumps(obj))
    args = [str(kubectl_binary()), "--kubeconfig", str(cluster.kubeconfig), "-n", namespace,
            "apply", "--server-side=false", "-v=9", "-f", str(manifest)]
    done = subprocess.run(args + (["--dry-run=server"] if dry_run else []),
                          capture_output=True, text=True, timeout=120, check=False)
    return _patch_sent(done.stderr)


def test_random_deployments_get_kubectls_patch(cluster, namespace, tmp_path):
    from runner.kube.patch.bridge import metadata_for

    rng = random.Random(20261123)
    source = metadata_for(_client(cluster))
    mismatches = []
    sent = 0
    for number in range(CASES):
        name = f"fuzz-{number}"
        v1 = _deployment(rng, name)
        edit = _foreign_edit(rng, v1)
        v2 = _version_two(rng, v1)
        _kubectl_dry_run_patch(cluster, namespace, v1, tmp_path, dry_run=False)
        path = f"/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
        _request(cluster, "PATCH", path, body=edit, query=[("fieldManager", "kubectl-edit")],
                 content_type=STRATEGIC_MERGE_PATCH)
        live = _request(cluster, "GET", path)
        _, ours = three_way_patch(v1, v2, live, GroupVersionKind.of_object(v2), source)
        theirs = _kubectl_dry_run_patch(cluster, namespace, v2, tmp_path, dry_run=True)
        sent += theirs is not None
        if ours != (theirs or {}):
            mismatches.append({"v1": v1, "edit": edit, "v2": v2, "ours": ours, "kubectl": theirs})
    assert not mismatches, json.dumps(mismatches, indent=1)
    assert sent == CASES  # every case changed something, so each compared a real patch
