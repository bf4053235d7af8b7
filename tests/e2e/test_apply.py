"""Server-side apply, conflicts, ownership and the apply method on the testbed."""

from __future__ import annotations

import json

import pytest

from tests.e2e.release_helpers import config, get_object, ours, record
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

CM_ONLY = {"cm.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  message: {{ .Values.message | quote }}
  other: "x"
"""}


def _apply_as(cluster, namespace: str, manager: str, body: dict) -> None:

    path = f"/api/v1/namespaces/{namespace}/configmaps/{body['metadata']['name']}"
    reply = cluster.client().request(
        "PATCH", path, body=body, query=[("fieldManager", manager), ("force", "true")],
        content_type="application/apply-patch+yaml")
    assert reply.ok, reply.body


def _owned_cm(name: str, release: str, namespace: str, data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "Helm"},
                         "annotations": {"meta.helm.sh/release-name": release,
                                         "meta.helm.sh/release-namespace": namespace}},
            "data": data}


def test_ssa_conflicts_are_all_reported_with_field_and_manager_and_the_release_fails(
        cluster, namespace, tmp_path):
    templates = dict(CM_ONLY)
    templates["second.yaml"] = CM_ONLY["cm.yaml"].replace("-cm", "-two")
    chart = write_chart(tmp_path, templates=templates)
    _apply_as(cluster, namespace, "kubectl", _owned_cm("c-cm", "c", namespace,
                                                       {"message": "theirs", "other": "y"}))
    _apply_as(cluster, namespace, "argocd", _owned_cm("c-two", "c", namespace, {"message": "z"}))

    result = ours(cluster, namespace, "install", "c", str(chart))

    # Helm's error for each object, every field and its manager named: an install adopting
    # existing objects updates them as Helm's Update does (every object tried, ` && `).
    assert result.code != 0
    assert result.err.splitlines() == [
        f"Error: INSTALLATION FAILED: conflict occurred while applying object {namespace}/c-cm /v1, "
        'Kind=ConfigMap: Apply failed with 2 conflicts: conflicts with "kubectl":',
        "- .data.message",
        f"- .data.other && conflict occurred while applying object {namespace}/c-two /v1, Kind=ConfigMap: "
        'Apply failed with 1 conflict: conflict with "argocd": .data.message']
    stored = record(cluster, namespace, "c", 1)["info"]
    assert stored["status"] == "failed" and stored["description"].startswith(
        f'Release "c" failed: conflict occurred while applying object {namespace}/c-cm /v1')
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/c-cm")
    assert cm["data"] == {"message": "theirs", "other": "y"}


def test_force_conflicts_takes_the_fields_for_manager_helm(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    _apply_as(cluster, namespace, "kubectl", _owned_cm("f-cm", "f", namespace, {"message": "theirs"}))

    assert ours(cluster, namespace, "install", "f", str(chart), "--force-conflicts").code == 0

    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/f-cm")
    assert cm["data"]["message"] == "hello"
    helm_fields = [m for m in cm["metadata"]["managedFields"] if m["manager"] == "helm"]
    assert helm_fields and helm_fields[0]["operation"] == "Apply"
    assert "f:message" in json.dumps(helm_fields[0]["fieldsV1"])


def test_foreign_object_blocks_install_with_helms_error_text(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    _apply_as(cluster, namespace, "kubectl", {"apiVersion": "v1", "kind": "ConfigMap",
                                              "metadata": {"name": "o-cm"}, "data": {"a": "b"}})
    theirs = helm("install", "o", str(chart), "-n", namespace)
    mine = ours(cluster, namespace, "install", "o", str(chart))
    assert theirs.returncode != 0 and mine.code != 0
    assert mine.err.strip() == theirs.stderr.strip().splitlines()[-1]

    assert ours(cluster, namespace, "install", "o", str(chart), "--take-ownership",
                "--force-conflicts").code == 0
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/o-cm")
    assert cm["metadata"]["annotations"]["meta.helm.sh/release-name"] == "o"


def test_object_of_another_release_blocks_upgrade(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    bigger = write_chart(tmp_path, version="2.0.0", templates={
        **CM_ONLY, "steal.yaml": CM_ONLY["cm.yaml"].replace("{{ .Release.Name }}-cm", "a-cm")})
    assert ours(cluster, namespace, "install", "a", str(chart)).code == 0
    assert ours(cluster, namespace, "install", "b", str(chart)).code == 0
    theirs = helm("upgrade", "b", str(bigger), "-n", namespace)
    mine = ours(cluster, namespace, "upgrade", "b", str(bigger))
    assert mine.code != 0
    assert mine.err.strip() == theirs.stderr.strip().splitlines()[-1]


def test_apply_method_is_recorded_and_followed_by_auto(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "m", str(chart), "--server-side=false").code == 0
    assert ours(cluster, namespace, "upgrade", "m", str(chart), "--set", "message=2").code == 0
    assert ours(cluster, namespace, "upgrade", "m", str(chart), "--set", "message=3",
                "--server-side=true").code == 0
    assert ours(cluster, namespace, "rollback", "m", "2").code == 0
    methods = [record(cluster, namespace, "m", v).get("apply_method") for v in (1, 2, 3, 4)]
    assert methods == ["csa", "csa", "ssa", "csa"]
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/m-cm")
    assert cm["data"]["message"] == "2"


def test_client_side_apply_keeps_fields_set_by_others(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "k", str(chart), "--server-side=false").code == 0
    _apply_as(cluster, namespace, "someone", {"apiVersion": "v1", "kind": "ConfigMap",
                                              "metadata": {"name": "k-cm"}, "data": {"extra": "1"}})
    assert ours(cluster, namespace, "upgrade", "k", str(chart), "--set", "message=new").code == 0
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/k-cm")
    assert cm["data"] == {"message": "new", "other": "x", "extra": "1"}


def test_force_conflicts_on_a_client_side_release_is_explained(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "e", str(chart), "--server-side=false").code == 0
    result = ours(cluster, namespace, "upgrade", "e", str(chart), "--force-conflicts")
    assert result.code == 0
    assert "client-side apply because the latest record's apply method is csa" in result.err


def test_dry_run_server_writes_nothing(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path)
    result = ours(cluster, namespace, "install", "d", str(chart), "--dry-run=server")
    assert result.code == 0 and "STATUS: pending-install" in result.out
    assert "DESCRIPTION: Dry run complete" in result.out
    assert config(cluster, namespace).storage.heads("d") == []
    assert get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/d-cm") is None


def test_create_namespace(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    target = f"{namespace}-new"
    try:
        assert ours(cluster, target, "install", "n", str(chart), "--create-namespace").code == 0
        assert get_object(cluster, f"/api/v1/namespaces/{target}/configmaps/n-cm") is not None
    finally:

        cluster.client().request("DELETE", f"/api/v1/namespaces/{target}")


def test_client_side_upgrade_merges_containers_by_name_as_helm_does(cluster, namespace, helm, tmp_path):

    v1 = write_chart(tmp_path, version="1.0.0")
    v2 = write_chart(tmp_path, version="2.0.0")
    deploy = v2 / "templates" / "deploy.yaml"
    deploy.write_text(deploy.read_text().replace("nginx:1.25", "nginx:1.26"))
    client = cluster.client()
    sidecar = {"spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "envoy"}]}}}}
    images = {}
    for name, tool in (("mine", "ours"), ("theirs", "helm")):
        if tool == "ours":
            assert ours(cluster, namespace, "install", name, str(v1), "--server-side=false").code == 0
        else:
            assert helm("install", name, str(v1), "-n", namespace, "--server-side=false").returncode == 0
        path = f"/apis/apps/v1/namespaces/{namespace}/deployments/{name}-web"
        reply = client.request("PATCH", path, body=sidecar, query=[("fieldManager", "injector")],
                               content_type="application/strategic-merge-patch+json")
        assert reply.ok, reply.body
        if tool == "ours":
            assert ours(cluster, namespace, "upgrade", name, str(v2)).code == 0
        else:
            assert helm("upgrade", name, str(v2), "-n", namespace).returncode == 0
        containers = get_object(cluster, path)["spec"]["template"]["spec"]["containers"]
        images[name] = [(c["name"], c["image"]) for c in containers]
    assert images["mine"] == images["theirs"], images
    assert sorted(images["mine"]) == [("sidecar", "envoy"), ("web", "nginx:1.26")]


def test_rollback_reports_conflicts_before_writing_anything(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "rb", str(chart), "--set", "message=one").code == 0
    assert ours(cluster, namespace, "upgrade", "rb", str(chart), "--set", "message=two").code == 0
    _apply_as(cluster, namespace, "kubectl", _owned_cm("rb-cm", "rb", namespace, {"message": "mine"}))
    result = ours(cluster, namespace, "rollback", "rb", "1")
    assert result.code != 0 and result.err == (
        f"Error: conflict occurred while applying object {namespace}/rb-cm /v1, Kind=ConfigMap: "
        'Apply failed with 1 conflict: conflict with "kubectl": .data.message\n')
    assert [h.version for h in config(cluster, namespace).storage.heads("rb")] == [2, 1]
    assert ours(cluster, namespace, "rollback", "rb", "1", "--force-conflicts").code == 0
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/rb-cm")
    assert cm["data"]["message"] == "one"


def test_moving_a_helm_client_side_release_to_server_side_migrates_field_managers(
        cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert helm("install", "mv", str(chart), "-n", namespace, "--server-side=false").returncode == 0
    assert ours(cluster, namespace, "upgrade", "mv", str(chart), "--set", "message=csa").code == 0
    assert record(cluster, namespace, "mv", 2)["apply_method"] == "csa"

    # Drop a key from the chart while switching: SSA only removes it if it owns the field.
    smaller = write_chart(tmp_path, version="2.0.0", templates={
        "cm.yaml": CM_ONLY["cm.yaml"].replace('  other: "x"\n', "")})
    assert ours(cluster, namespace, "upgrade", "mv", str(smaller), "--server-side=true").code == 0
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/mv-cm")
    assert "other" not in cm["data"]
    managers = {(m["manager"], m["operation"]) for m in cm["metadata"]["managedFields"]}
    assert ("helm", "Apply") in managers and ("helm", "Update") not in managers
    assert record(cluster, namespace, "mv", 3)["apply_method"] == "ssa"
    assert helm("upgrade", "mv", str(smaller), "-n", namespace, "--set", "message=helm").returncode == 0
