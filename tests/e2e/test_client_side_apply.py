"""Client-side apply's three-way patches on the testbed, against kubectl 1.35.

Each scenario applies manifest v1, lets another manager edit the live object
(as `kubectl edit` would), then applies v2 with runner.kube.patch's patch. A
twin object in a second namespace takes the same sequence through the real
`kubectl apply --server-side=false`, which builds the same three-way patch
(original = its last-applied annotation = v1). Both live objects must end
equal, apart from server-assigned metadata and kubectl's annotation.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runner.kube.patch import MERGE_PATCH, STRATEGIC_MERGE_PATCH, GroupVersionKind, three_way_patch

pytestmark = pytest.mark.e2e

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
EDITOR = "kubectl-edit"


def _client(cluster: Any) -> Any:

    return cluster.client()


def _path(obj: dict[str, Any], namespace: str, plural: str) -> str:
    api = obj["apiVersion"]
    base = f"/apis/{api}" if "/" in api else f"/api/{api}"
    return f"{base}/namespaces/{namespace}/{plural}"


def _request(cluster: Any, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
    reply = _client(cluster).request(method, path, **kwargs)
    assert reply.ok, (method, path, reply.body)
    return reply.body


def _create(cluster: Any, obj: dict[str, Any], namespace: str, plural: str) -> None:
    _request(cluster, "POST", _path(obj, namespace, plural), body=obj,
             query=[("fieldManager", "helm")])


def _edit(cluster: Any, obj: dict[str, Any], namespace: str, plural: str,
          patch: dict[str, Any], content_type: str) -> None:
    """Another manager's change, sent as kubectl edit sends it (a patch)."""
    path = f"{_path(obj, namespace, plural)}/{obj['metadata']['name']}"
    _request(cluster, "PATCH", path, body=patch, query=[("fieldManager", EDITOR)],
             content_type=content_type)


def _our_apply(cluster: Any, original: dict[str, Any], modified: dict[str, Any], namespace: str,
               plural: str, **options: bool) -> tuple[str, dict[str, Any], bool]:
    """Our client-side apply: (content type, patch, whether the server took it)."""
    from runner.kube.patch.bridge import metadata_for

    path = f"{_path(modified, namespace, plural)}/{modified['metadata']['name']}"
    live = _request(cluster, "GET", path)
    content_type, body = three_way_patch(original, modified, live,
                                         GroupVersionKind.of_object(modified),
                                         metadata_for(_client(cluster)), **options)
    if not body:
        return content_type, body, True
    reply = _client(cluster).request("PATCH", path, body=body, query=[("fieldManager", "helm")],
                                     content_type=content_type)
    return content_type, body, reply.ok


def _kubectl_apply(cluster: Any, obj: dict[str, Any], namespace: str, tmp_path: Path,
                   expect_ok: bool = True) -> dict[str, Any] | None:
    """`kubectl apply --server-side=false`; the patch it sent (read from -v=9), if any."""
    from testbed.helm import kubectl_binary

    manifest = tmp_path / f"{uuid.uuid4().hex}.json"
    manifest.write_text(json.dumps(obj))
    done = subprocess.run([str(kubectl_binary()), "--kubeconfig", str(cluster.kubeconfig),
                           "-n", namespace, "apply", "--server-side=false", "-v=9",
                           "-f", str(manifest)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode == 0) == expect_ok, done.stderr
    return _patch_sent(done.stderr)


def _patch_sent(log: str) -> dict[str, Any] | None:
    """The body logged just before kubectl's PATCH request, without its own annotation."""
    body: str | None = None
    lines = log.splitlines()
    for number, line in enumerate(lines):
        if '"Request Body" body="' in line:
            body = json.loads(line.split(" body=", 1)[1])
        elif '"Request Body" body=<' in line:
            body = lines[number + 1].strip()
        elif "-XPATCH" in line and body:
            return _without_last_applied(json.loads(body))
    return None


def _without_last_applied(patch: dict[str, Any]) -> dict[str, Any]:
    meta = patch.get("metadata") or {}
    notes = meta.get("annotations") or {}
    notes.pop(LAST_APPLIED, None)
    if "annotations" in meta and not notes:
        meta.pop("annotations")
    if "metadata" in patch and not meta:
        patch.pop("metadata")
    return patch


def _live(cluster: Any, obj: dict[str, Any], namespace: str, plural: str) -> dict[str, Any]:
    return _request(cluster, "GET", f"{_path(obj, namespace, plural)}/{obj['metadata']['name']}")


def _comparable(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out.pop("status", None)
    meta = out["metadata"]
    for key in ("managedFields", "uid", "resourceVersion", "creationTimestamp", "namespace",
                "generation"):
        meta.pop(key, None)
    notes = meta.get("annotations") or {}
    for key in (LAST_APPLIED, "deployment.kubernetes.io/revision"):
        notes.pop(key, None)
    if not notes:
        meta.pop("annotations", None)
    for key in ("clusterIP", "clusterIPs"):
        (out.get("spec") or {}).pop(key, None)
    return out


@pytest.fixture
def twin_namespace(cluster: Any) -> Iterator[str]:
    name = f"twin-{uuid.uuid4().hex[:10]}"
    _request(cluster, "POST", "/api/v1/namespaces",
             body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    try:
        yield name
    finally:
        _client(cluster).request("DELETE", f"/api/v1/namespaces/{name}")


def _both_ways(cluster: Any, namespace: str, twin: str, tmp_path: Path, plural: str,
               v1: dict[str, Any], edit: dict[str, Any], v2: dict[str, Any],
               edit_type: str = STRATEGIC_MERGE_PATCH, expect_ok: bool = True,
               **options: bool) -> tuple[dict[str, Any], str]:
    """v1 -> foreign edit -> v2 through us and through kubectl: the same patch is sent,
    the server takes both or neither, and the live objects end equal. Returns ours and
    the content type we chose."""
    _create(cluster, v1, namespace, plural)
    _kubectl_apply(cluster, v1, twin, tmp_path)
    _edit(cluster, v1, namespace, plural, edit, edit_type)
    _edit(cluster, v1, twin, plural, edit, edit_type)
    content_type, body, ok = _our_apply(cluster, v1, v2, namespace, plural, **options)
    assert ok == expect_ok
    assert body == _kubectl_apply(cluster, v2, twin, tmp_path, expect_ok)  # kubectl's patch
    ours = _live(cluster, v2, namespace, plural)
    assert _comparable(ours) == _comparable(_live(cluster, v2, twin, plural))
    return ours, content_type


def _deployment(image: str, env: list[dict[str, str]], ports: list[dict[str, Any]],
                containers: list[dict[str, Any]], labels: dict[str, str],
                strategy: dict[str, Any], volume: dict[str, Any], args: list[str]) -> dict[str, Any]:
    app = {"name": "app", "image": image, "args": args, "env": env, "ports": ports}
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "labels": labels},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "strategy": strategy,
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [app, *containers],
                                       "volumes": [{"name": "cache", **volume}]}}},
    }


DEPLOY_V1 = _deployment(
    "nginx:1.25", [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
    [{"name": "http", "containerPort": 80}, {"name": "metrics", "containerPort": 9090}],
    [{"name": "helper", "image": "busybox:1"}], {"app": "web", "tier": "front"},
    {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}, {"emptyDir": {}}, ["--a", "--b"])
DEPLOY_V2 = _deployment(
    "nginx:1.26", [{"name": "C", "value": "3"}, {"name": "A", "value": "1"}],
    [{"name": "http", "containerPort": 80}], [], {"app": "web"},
    {"type": "Recreate"}, {"configMap": {"name": "settings"}}, ["--a"])
DEPLOY_EDIT = {
    "metadata": {"labels": {"team": "ops"}},
    "spec": {"replicas": 5, "template": {
        "metadata": {"annotations": {"edited": "yes"}},
        "spec": {"containers": [{"name": "app", "env": [{"name": "FOREIGN", "value": "x"}]},
                                {"name": "sidecar", "image": "busybox:2"}]}}},
}


def test_deployment_matches_kubectl_and_keeps_foreign_changes(cluster, namespace, twin_namespace,
                                                              tmp_path):
    live, content_type = _both_ways(cluster, namespace, twin_namespace, tmp_path, "deployments",
                                    DEPLOY_V1, DEPLOY_EDIT, DEPLOY_V2)

    assert content_type == STRATEGIC_MERGE_PATCH
    assert live["metadata"]["labels"] == {"app": "web", "team": "ops"}  # tier dropped, team kept
    spec = live["spec"]
    assert spec["replicas"] == 2  # the chart sets it: drift corrected
    assert spec["strategy"] == {"type": "Recreate"}  # $retainKeys cleared rollingUpdate
    pod = spec["template"]["spec"]
    assert [c["name"] for c in pod["containers"]] == ["app", "sidecar"]  # by name; helper gone
    app = pod["containers"][0]
    assert app["image"] == "nginx:1.26" and app["args"] == ["--a"]
    assert sorted(e["name"] for e in app["env"]) == ["A", "C", "FOREIGN"]  # B dropped
    assert [p["name"] for p in app["ports"]] == ["http"]
    assert pod["volumes"] == [{"name": "cache", "configMap": {"name": "settings",
                                                              "defaultMode": 420}}]
    assert spec["template"]["metadata"]["annotations"] == {"edited": "yes"}


def test_configmap_matches_kubectl(cluster, namespace, twin_namespace, tmp_path):
    v1 = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "settings", "labels": {"a": "1", "b": "2"}},
          "data": {"a": "1", "b": "2"}}
    v2 = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "settings", "labels": {"a": "1"}}, "data": {"a": "1", "d": "4"}}
    edit = {"metadata": {"labels": {"x": "y"}}, "data": {"a": "changed", "c": "3"}}

    live, _ = _both_ways(cluster, namespace, twin_namespace, tmp_path, "configmaps", v1, edit, v2)

    assert live["data"] == {"a": "1", "c": "3", "d": "4"}
    assert live["metadata"]["labels"] == {"a": "1", "x": "y"}


def test_service_ports_merge_by_port_and_match_kubectl(cluster, namespace, twin_namespace,
                                                       tmp_path):
    def service(ports: list[dict[str, Any]], selector: dict[str, str]) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                "spec": {"selector": selector, "ports": ports}}

    v1 = service([{"name": "http", "port": 80, "targetPort": 8080},
                  {"name": "metrics", "port": 9090}], {"app": "web", "tier": "front"})
    v2 = service([{"name": "http", "port": 80, "targetPort": 8081}], {"app": "web"})
    edit = {"metadata": {"annotations": {"note": "x"}},
            "spec": {"ports": [{"name": "extra", "port": 7000}]}}

    live, _ = _both_ways(cluster, namespace, twin_namespace, tmp_path, "services", v1, edit, v2)

    ports = {p["name"]: p for p in live["spec"]["ports"]}
    assert set(ports) == {"http", "extra"} and ports["http"]["targetPort"] == 8081
    assert live["spec"]["selector"] == {"app": "web"}
    assert live["metadata"]["annotations"] == {"note": "x"}


@pytest.fixture
def widget_crd(cluster: Any) -> Iterator[tuple[str, str]]:
    group = f"t{uuid.uuid4().hex[:8]}.example.com"
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {"group": group, "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                     "openAPIV3Schema": {"type": "object", "properties": {"spec": {
                         "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]},
    }
    _request(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body=crd)
    try:
        _wait_served(cluster, f"/apis/{group}/v1")
        yield group, f"{group}/v1"
    finally:
        _client(cluster).request(
            "DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{group}")


def _wait_served(cluster: Any, path: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        body = _client(cluster).request("GET", path)
        if body.ok and any(r.get("name") == "widgets" for r in body.body.get("resources") or []):
            return
        time.sleep(0.5)
    pytest.fail(f"{path} was not served in time")


def _widget(api_version: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


WIDGET_V1 = {"size": 1, "color": "red", "tags": ["a", "b"], "nested": {"x": 1, "y": 2}}
WIDGET_V2 = {"size": 2, "tags": ["a"], "nested": {"x": 1}}
WIDGET_EDIT = {"spec": {"owner": "ops", "nested": {"z": 3}, "tags": ["a", "b", "c"]}}


def test_custom_resource_three_way_merge_patch_matches_kubectl(cluster, namespace, twin_namespace,
                                                               widget_crd, tmp_path):
    _, api_version = widget_crd
    live, content_type = _both_ways(
        cluster, namespace, twin_namespace, tmp_path, "widgets", _widget(api_version, WIDGET_V1),
        WIDGET_EDIT, _widget(api_version, WIDGET_V2), MERGE_PATCH, three_way_for_custom=True)

    assert content_type == MERGE_PATCH
    assert live["spec"] == {"size": 2, "tags": ["a"], "owner": "ops", "nested": {"x": 1, "z": 3}}


def test_custom_resource_gets_helms_two_way_merge_patch_by_default(cluster, namespace, widget_crd):
    _, api_version = widget_crd
    v1, v2 = _widget(api_version, WIDGET_V1), _widget(api_version, WIDGET_V2)
    _create(cluster, v1, namespace, "widgets")
    _edit(cluster, v1, namespace, "widgets", WIDGET_EDIT, MERGE_PATCH)

    content_type, body, ok = _our_apply(cluster, v1, v2, namespace, "widgets")

    assert ok and content_type == MERGE_PATCH
    # original -> modified only, as Helm sends it: the live object is not consulted, so
    # fields the chart never set (owner, nested.z) stay and the chart's changes land.
    assert body == {"spec": {"size": 2, "color": None, "tags": ["a"], "nested": {"y": None}}}
    live = _live(cluster, v2, namespace, "widgets")
    assert live["spec"] == {"size": 2, "tags": ["a"], "owner": "ops", "nested": {"x": 1, "z": 3}}


def _pod_deployment(name: str, pod: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": pod}}}


def _dns(ports: list[dict[str, Any]], mounts: list[dict[str, str]]) -> dict[str, Any]:
    return {"containers": [{"name": "dns", "image": "coredns:1", "ports": ports,
                            "volumeMounts": mounts}],
            "volumes": [{"name": m["name"], "emptyDir": {}} for m in mounts]}


TCP_UDP = [{"name": "dns", "containerPort": 53, "protocol": "UDP"},
           {"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"}]
SCENARIOS = {
    # Two ports share the merge key containerPort; swapping them makes a patch the server
    # refuses (duplicate port names): kubectl sends the very same one, paired as Go sorts.
    "duplicate merge keys": (
        _pod_deployment("dup", _dns(TCP_UDP, [{"name": "a", "mountPath": "/a"}])),
        {"spec": {"template": {"metadata": {"annotations": {"x": "y"}}}}},
        _pod_deployment("dup", _dns([TCP_UDP[1], TCP_UDP[0], {"name": "m", "containerPort": 9153}],
                                    [{"name": "a", "mountPath": "/a"}]))),
    "nested merge lists and a new order": (
        _pod_deployment("nest", _dns([{"containerPort": 80}], [
            {"name": "a", "mountPath": "/a"}, {"name": "b", "mountPath": "/b"}])),
        {"spec": {"template": {"spec": {"containers": [
            {"name": "dns", "volumeMounts": [{"name": "a", "mountPath": "/x"}]}]}}}},
        _pod_deployment("nest", _dns([{"containerPort": 80}], [
            {"name": "b", "mountPath": "/b"}, {"name": "a", "mountPath": "/a"}]))),
    "only the order changes": (
        _pod_deployment("order", {"containers": [{"name": "a", "image": "a:1"},
                                                 {"name": "b", "image": "b:1"}]}),
        {"metadata": {"labels": {"seen": "yes"}}},
        _pod_deployment("order", {"containers": [{"name": "b", "image": "b:1"},
                                                 {"name": "a", "image": "a:1"}]})),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_strategic_scenarios_send_kubectls_patch(cluster, namespace, twin_namespace, tmp_path,
                                                 scenario):
    v1, edit, v2 = SCENARIOS[scenario]
    _both_ways(cluster, namespace, twin_namespace, tmp_path, "deployments", v1, edit, v2,
               expect_ok=scenario != "duplicate merge keys")


def _finalized_cm(finalizers: list[str], value: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "fin", "finalizers": finalizers}, "data": {"a": value}}


FOREIGN_FINALIZER = {"metadata": {"finalizers": ["example.com/foreign"]}}


@pytest.mark.parametrize(("v1", "edit", "v2"), [
    (_finalized_cm(["example.com/a", "example.com/b"], "1"), FOREIGN_FINALIZER,
     _finalized_cm(["example.com/c", "example.com/a"], "1")),
    # Unchanged but unsorted: apimachinery compares the live list, sorted in place, with
    # the chart's, so kubectl sends $setElementOrder/finalizers anyway.
    (_finalized_cm(["example.com/b", "example.com/a"], "1"), {"data": {"x": "y"}},
     _finalized_cm(["example.com/b", "example.com/a"], "2")),
])
def test_primitive_merge_list_finalizers_match_kubectl(cluster, namespace, twin_namespace,
                                                       tmp_path, v1, edit, v2):
    try:
        live, _ = _both_ways(cluster, namespace, twin_namespace, tmp_path, "configmaps",
                             v1, edit, v2)
        added = edit.get("metadata", {}).get("finalizers", [])
        assert sorted(live["metadata"]["finalizers"]) == sorted(
            [*v2["metadata"]["finalizers"], *added])
    finally:
        for ns in (namespace, twin_namespace):
            _client(cluster).request("PATCH", f"/api/v1/namespaces/{ns}/configmaps/fin",
                                     body={"metadata": {"finalizers": None}},
                                     content_type=MERGE_PATCH)

def test_custom_resource_upgrade_patch_is_helms_two_way_one(cluster, namespace, widget_crd, helm,
                                                            tmp_path):
    """Helm 4.1.4 upgrades a custom resource with original -> modified only
    (threeWayMergeForUnstructured off): a foreign change to a field the chart set
    and did not change survives. Our default patch gives the same live object."""
    from tests.fixtures import write_chart

    _, api_version = widget_crd
    v1 = {"size": 1, "color": "red", "nested": {"x": 1, "y": 2}}
    v2 = {"size": 1, "color": "blue", "nested": {"x": 1}}
    edit = {"spec": {"size": 9, "owner": "ops"}}
    for version, spec in (("1.0.0", v1), ("2.0.0", v2)):
        obj = _widget(api_version, spec)
        write_chart(tmp_path, version=version, templates={"w.yaml": json.dumps(obj)})
    assert helm("install", "w", str(tmp_path / "demo-1.0.0"), "-n", namespace,
                "--server-side=false").returncode == 0
    ours_v1, ours_v2 = _widget(api_version, v1), _widget(api_version, v2)
    ours_v1["metadata"]["name"] = ours_v2["metadata"]["name"] = "mine"
    _create(cluster, ours_v1, namespace, "widgets")
    for name in ("w", "mine"):
        _edit(cluster, {**ours_v1, "metadata": {"name": name}}, namespace, "widgets", edit,
              MERGE_PATCH)

    upgrade = helm("upgrade", "w", str(tmp_path / "demo-2.0.0"), "-n", namespace)
    assert upgrade.returncode == 0, upgrade.stderr
    _, _, ok = _our_apply(cluster, ours_v1, ours_v2, namespace, "widgets")

    theirs = _live(cluster, _widget(api_version, v2), namespace, "widgets")
    assert ok and theirs["spec"] == {"size": 9, "owner": "ops", "color": "blue", "nested": {"x": 1}}
    assert _live(cluster, ours_v2, namespace, "widgets")["spec"] == theirs["spec"]


# -- seeded random Deployments ---------------------------------------------------------------
# kubectl runs with --dry-run=server: it still sends (and logs) its patch, nothing is stored.
# Every manifest keeps one label and one annotation, as Helm's ownership metadata does, so
# kubectl's added last-applied annotation is the only difference between its `modified` and ours.

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
    from testbed.helm import kubectl_binary

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
