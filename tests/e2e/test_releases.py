"""Releases on the real testbed: install/upgrade/rollback/uninstall by us, and
interop both ways with the Helm 4.1.4 binary."""

from __future__ import annotations

import json

import pytest

from tests.e2e.release_helpers import comparable, get_object, ours, record, write_chart

pytestmark = pytest.mark.e2e


def test_our_record_equals_helms_for_the_same_chart_and_values(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert helm("install", "theirs", str(chart), "-n", namespace, "--set", "message=hi").returncode == 0
    assert ours(cluster, namespace, "install", "mine", str(chart), "--set", "message=hi").code == 0

    theirs = comparable(record(cluster, namespace, "theirs", 1), "theirs")
    mine = comparable(record(cluster, namespace, "mine", 1), "mine")
    for field in sorted(set(theirs) | set(mine)):
        assert mine.get(field) == theirs.get(field), field


def test_helm_reads_a_release_we_installed_and_upgraded(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "app", str(chart), "--set", "message=one").code == 0
    assert ours(cluster, namespace, "upgrade", "app", str(chart), "--set", "message=two").code == 0

    history = helm("history", "app", "-n", namespace, "-o", "json")
    rows = json.loads(history.stdout)
    assert [(r["revision"], r["status"], r["description"]) for r in rows] == [
        (1, "superseded", "Install complete"), (2, "deployed", "Upgrade complete")]
    status = helm("status", "app", "-n", namespace)
    assert "STATUS: deployed" in status.stdout and "REVISION: 2" in status.stdout
    assert helm("get", "values", "app", "-n", namespace).stdout == "USER-SUPPLIED VALUES:\nmessage: two\n"
    manifest = helm("get", "manifest", "app", "-n", namespace).stdout
    assert "name: app-cm" in manifest and 'message: "two"' in manifest
    assert "NOTES:\nThanks for installing app (two)." in helm("get", "notes", "app", "-n", namespace).stdout


def test_we_upgrade_roll_back_and_uninstall_a_release_helm_installed(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert helm("install", "legacy", str(chart), "-n", namespace, "--set", "message=helm").returncode == 0

    assert ours(cluster, namespace, "upgrade", "legacy", str(chart), "--set", "message=ours").code == 0
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/legacy-cm")
    assert cm["data"]["message"] == "ours"

    assert ours(cluster, namespace, "rollback", "legacy", "1").code == 0
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/legacy-cm")
    assert cm["data"]["message"] == "helm"
    rows = json.loads(helm("history", "legacy", "-n", namespace, "-o", "json").stdout)
    assert [(r["revision"], r["status"]) for r in rows] == [
        (1, "superseded"), (2, "superseded"), (3, "deployed")]
    assert rows[2]["description"] == "Rollback to 1"

    result = ours(cluster, namespace, "uninstall", "legacy")
    assert result.out == 'release "legacy" uninstalled\n'
    assert get_object(cluster, f"/apis/apps/v1/namespaces/{namespace}/deployments/legacy-web") is None
    assert helm("status", "legacy", "-n", namespace).returncode != 0


def test_helm_upgrades_rolls_back_and_uninstalls_our_release(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "ours", str(chart)).code == 0
    assert helm("upgrade", "ours", str(chart), "-n", namespace, "--set", "message=x").returncode == 0
    assert helm("rollback", "ours", "1", "-n", namespace).returncode == 0
    assert helm("uninstall", "ours", "-n", namespace, "--keep-history").returncode == 0
    history = ours(cluster, namespace, "history", "ours", "-o", "json")
    statuses = [row["status"] for row in json.loads(history.out)]
    assert statuses == ["superseded", "superseded", "uninstalled"]


def test_upgrade_deletes_dropped_resources_but_keeps_resource_policy_keep(cluster, namespace, tmp_path):
    kept = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-kept
  annotations:
    helm.sh/resource-policy: keep
data: {a: "1"}
"""
    gone = kept.replace("-kept", "-gone").replace("    helm.sh/resource-policy: keep\n", "    x: \"z\"\n")
    first = write_chart(tmp_path, version="1.0.0", templates={"kept.yaml": kept, "gone.yaml": gone})
    second = write_chart(tmp_path, version="2.0.0", templates={"other.yaml": gone.replace("-gone", "-new")})
    assert ours(cluster, namespace, "install", "drop", str(first)).code == 0
    assert ours(cluster, namespace, "upgrade", "drop", str(second)).code == 0
    base = f"/api/v1/namespaces/{namespace}/configmaps"
    assert get_object(cluster, f"{base}/drop-gone") is None
    assert get_object(cluster, f"{base}/drop-kept") is not None
    assert get_object(cluster, f"{base}/drop-new") is not None


def test_uninstall_keep_history_leaves_an_uninstalled_record(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "kh", str(chart)).code == 0
    assert ours(cluster, namespace, "uninstall", "kh", "--keep-history").code == 0
    rows = json.loads(helm("history", "kh", "-n", namespace, "-o", "json").stdout)
    assert [(r["status"], r["description"]) for r in rows] == [("uninstalled", "Uninstallation complete")]
    again = ours(cluster, namespace, "uninstall", "kh", "--keep-history")
    assert again.code != 0 and 'the release named "kh" is already deleted' in again.err


def test_install_of_a_name_in_use_fails_as_helm_does(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "dup", str(chart)).code == 0
    theirs = helm("install", "dup", str(chart), "-n", namespace)
    mine = ours(cluster, namespace, "install", "dup", str(chart))
    assert mine.code != 0
    assert mine.err.strip() == theirs.stderr.strip().splitlines()[-1]


def test_history_max_prunes_old_records_but_never_the_deployed_one(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "hm", str(chart)).code == 0
    for i in range(4):
        assert ours(cluster, namespace, "upgrade", "hm", str(chart), "--set", f"message=m{i}",
                    "--history-max", "3").code == 0
    rows = json.loads(ours(cluster, namespace, "history", "hm", "-o", "json").out)
    assert [r["revision"] for r in rows] == [3, 4, 5]


def test_configmap_driver_records_are_read_by_helm(cluster, namespace, helm, tmp_path, monkeypatch):
    import os
    import subprocess

    from runner.testbed.helm import helm_binary

    chart = write_chart(tmp_path)
    monkeypatch.setenv("HELM_DRIVER", "configmap")
    assert ours(cluster, namespace, "install", "cmd", str(chart), "--set", "message=cm").code == 0
    stored = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/sh.helm.release.v1.cmd.v1")
    assert stored["metadata"]["labels"]["owner"] == "helm"
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig), "HELM_DRIVER": "configmap",
           "HELM_CONFIG_HOME": str(tmp_path / "h")}
    values = subprocess.run([str(helm_binary()), "get", "values", "cmd", "-n", namespace], env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert values.stdout == "USER-SUPPLIED VALUES:\nmessage: cm\n"
