"""Helm's flags on the testbed: values reuse, --install, --replace, --generate-name,
failures and --cleanup-on-fail, --cascade, --wait, hooks."""

from __future__ import annotations

import json

import pytest

from tests.e2e.release_helpers import get_object, ours, record, write_chart

pytestmark = pytest.mark.e2e


def _cm(cluster, namespace: str, name: str) -> dict | None:
    return get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/{name}")


def test_values_are_reused_as_helm_reuses_them(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, values="replicas: 1\nmessage: hello\nother: x\n")
    assert ours(cluster, namespace, "install", "v", str(chart), "--set", "message=first").code == 0
    # No values given: the previous user values are kept.
    assert ours(cluster, namespace, "upgrade", "v", str(chart)).code == 0
    assert record(cluster, namespace, "v", 2)["config"] == {"message": "first"}
    # --reset-values: back to the chart's defaults.
    assert ours(cluster, namespace, "upgrade", "v", str(chart), "--reset-values").code == 0
    assert _cm(cluster, namespace, "v-cm")["data"]["message"] == "hello"
    assert ours(cluster, namespace, "upgrade", "v", str(chart), "--set", "message=second").code == 0
    # --reuse-values / --reset-then-reuse-values merge new values over the old ones.
    assert ours(cluster, namespace, "upgrade", "v", str(chart), "--reuse-values",
                "--set", "replicas=2").code == 0
    assert record(cluster, namespace, "v", 5)["config"] == {"message": "second", "replicas": 2}
    assert ours(cluster, namespace, "upgrade", "v", str(chart), "--reset-then-reuse-values",
                "--set", "replicas=3").code == 0
    assert record(cluster, namespace, "v", 6)["config"] == {"message": "second", "replicas": 3}


def test_upgrade_install_installs_then_upgrades(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path)
    first = ours(cluster, namespace, "upgrade", "--install", "ui", str(chart))
    assert first.code == 0 and 'Release "ui" does not exist. Installing it now.' in first.out
    second = ours(cluster, namespace, "upgrade", "--install", "ui", str(chart), "--set", "message=2")
    assert second.code == 0 and 'Release "ui" has been upgraded. Happy Helming!' in second.out


def test_generate_name_uses_the_chart_name(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path)
    result = ours(cluster, namespace, "install", str(chart), "--generate-name", "-o", "json")
    assert result.code == 0
    assert json.loads(result.out)["release"]["name"].startswith("demo-")


def test_a_failed_install_is_recorded_and_replace_reinstalls_it(cluster, namespace, helm, tmp_path):
    bad_job = {"job.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-job
spec:
  backoffLimit: 0
  template:
    metadata:
      labels: {testbed.deploy-runner/fail: "true"}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""}
    failing = write_chart(tmp_path, version="1.0.0", templates=bad_job)
    result = ours(cluster, namespace, "install", "f", str(failing), "--wait", "--timeout", "60s")
    assert result.code != 0 and "INSTALLATION FAILED" in result.err
    rows = json.loads(helm("history", "f", "-n", namespace, "-o", "json").stdout)
    assert rows[0]["status"] == "failed" and rows[0]["description"].startswith('Release "f" failed:')
    good = write_chart(tmp_path, version="2.0.0")
    assert ours(cluster, namespace, "install", "f", str(good)).code != 0  # name in use
    assert ours(cluster, namespace, "install", "f", str(good), "--replace").code == 0
    rows = json.loads(helm("history", "f", "-n", namespace, "-o", "json").stdout)
    assert [(r["revision"], r["status"]) for r in rows] == [(1, "failed"), (2, "deployed")]


def test_cleanup_on_fail_removes_what_the_failed_upgrade_created(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, version="1.0.0")
    bigger = write_chart(tmp_path, version="2.0.0")
    (bigger / "templates" / "extra.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\ndata: {a: b}\n")
    (bigger / "templates" / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-job\nspec:\n"
        "  backoffLimit: 0\n  template:\n    metadata:\n      labels: {testbed.deploy-runner/fail: \"true\"}\n"
        "    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n")
    assert ours(cluster, namespace, "install", "c", str(chart)).code == 0
    result = ours(cluster, namespace, "upgrade", "c", str(bigger), "--wait", "--timeout", "60s",
                  "--cleanup-on-fail")
    assert result.code != 0 and "UPGRADE FAILED" in result.err
    assert _cm(cluster, namespace, "c-extra") is None
    assert record(cluster, namespace, "c", 2)["info"]["status"] == "failed"
    assert record(cluster, namespace, "c", 1)["info"]["status"] == "deployed"


def test_wait_returns_once_deployments_are_available(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, values="replicas: 2\nmessage: hi\n")
    assert ours(cluster, namespace, "install", "w", str(chart), "--wait", "--timeout", "120s").code == 0
    deploy = get_object(cluster, f"/apis/apps/v1/namespaces/{namespace}/deployments/w-web")
    assert deploy["status"]["availableReplicas"] == 2


def test_uninstall_cascade_orphan_leaves_the_replicasets(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "o", str(chart), "--wait", "--timeout", "120s").code == 0
    assert ours(cluster, namespace, "uninstall", "o", "--cascade", "orphan", "--wait").code == 0
    assert get_object(cluster, f"/apis/apps/v1/namespaces/{namespace}/deployments/o-web") is None
    sets = get_object(cluster, f"/apis/apps/v1/namespaces/{namespace}/replicasets")
    assert any(rs["metadata"]["name"].startswith("o-web-") for rs in sets["items"])
    bad = ours(cluster, namespace, "uninstall", "nothing", "--cascade", "sideways")
    assert bad.code != 0 and "invalid cascade value (sideways)" in bad.err


def test_hooks_run_and_are_recorded(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "hk", str(chart)).code == 0
    hook = record(cluster, namespace, "hk", 1)["hooks"][0]
    assert hook["last_run"]["phase"] == "Succeeded" and hook["events"] == ["pre-install", "pre-upgrade"]
    assert _cm(cluster, namespace, "hk-hook") is not None
    hooks = helm("get", "hooks", "hk", "-n", namespace).stdout
    assert "# Source: demo/templates/hook.yaml" in hooks
