"""Helm's flags on the testbed: values reuse, --install, --replace, --generate-name,
failures and --cleanup-on-fail, --cascade, --wait, hooks."""

from __future__ import annotations

import json

import pytest

from tests.e2e.release_helpers import get_object, ours, record
from tests.fixtures import write_chart

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
    assert json.loads(result.out)["name"].startswith("demo-")  # Helm's release object


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
    result = ours(cluster, namespace, "install", "f", str(failing), "--wait", "--wait-for-jobs",
                  "--timeout", "60s")
    assert result.code != 0 and "INSTALLATION FAILED" in result.err
    rows = json.loads(helm("history", "f", "-n", namespace, "-o", "json").stdout)
    assert rows[0]["status"] == "failed" and rows[0]["description"].startswith('Release "f" failed:')
    good = write_chart(tmp_path, version="2.0.0")
    # Beyond Helm: a release that never succeeded is retried cleanly, without --replace.
    retry = ours(cluster, namespace, "install", "f", str(good))
    assert retry.code == 0 and "retrying the failed first install of f" in retry.err
    rows = json.loads(helm("history", "f", "-n", namespace, "-o", "json").stdout)
    assert [(r["revision"], r["status"]) for r in rows] == [(1, "failed"), (2, "deployed")]
    # Once it has succeeded, the name is in use, as in Helm.
    again = ours(cluster, namespace, "install", "f", str(good))
    assert again.code != 0 and "cannot reuse a name that is still in use" in again.err


def test_rollback_on_failure_removes_only_what_the_install_created(cluster, namespace, tmp_path):
    from tests.e2e.test_apply import _apply_as, _owned_cm

    failing = write_chart(tmp_path, templates={
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata: {a: b}\n",
        "pre.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-pre\ndata: {a: b}\n",
        "job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-job\nspec:\n"
                    "  backoffLimit: 0\n  template:\n    metadata:\n      labels: {testbed.deploy-runner/fail: \"true\"}\n"
                    "    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n"})
    # An object that exists before the install and is adopted: never ours to delete.
    _apply_as(cluster, namespace, "kubectl", _owned_cm("a-pre", "a", namespace, {"a": "b"}))
    # Helm 4's watcher counts a started Job as ready; --wait-for-jobs waits for it to finish.
    result = ours(cluster, namespace, "install", "a", str(failing), "--rollback-on-failure",
                  "--wait-for-jobs", "--timeout", "60s")
    assert result.code != 0 and "has been uninstalled due to rollback-on-failure" in result.err
    assert _cm(cluster, namespace, "a-cm") is None
    assert _cm(cluster, namespace, "a-pre") is not None
    from tests.e2e.release_helpers import config

    assert config(cluster, namespace).storage.heads("a") == []


def test_upgrade_rollback_on_failure_returns_to_the_last_good_revision(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, version="1.0.0")
    broken = write_chart(tmp_path, version="2.0.0")
    (broken / "templates" / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-job\nspec:\n"
        "  backoffLimit: 0\n  template:\n    metadata:\n      labels: {testbed.deploy-runner/fail: \"true\"}\n"
        "    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n")
    assert ours(cluster, namespace, "install", "u", str(chart)).code == 0
    result = ours(cluster, namespace, "upgrade", "u", str(broken), "--atomic", "--wait-for-jobs",
                  "--timeout", "60s")
    assert result.code != 0 and "has been rolled back due to rollback-on-failure" in result.err
    statuses = [record(cluster, namespace, "u", v)["info"]["status"] for v in (1, 2, 3)]
    assert statuses == ["superseded", "failed", "deployed"]
    assert record(cluster, namespace, "u", 3)["info"]["description"] == "Rollback to 1"


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
    result = ours(cluster, namespace, "upgrade", "c", str(bigger), "--wait", "--wait-for-jobs",
                  "--timeout", "60s", "--cleanup-on-fail")
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


SECRET = {"secret.yaml": """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-creds
stringData:
  password: {{ .Values.password | quote }}
""", "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata: {a: b}\n"}


def test_hide_secret_keeps_secret_values_out_of_a_dry_run(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=SECRET, values="password: hunter2\n")
    shown = ours(cluster, namespace, "install", "s", str(chart), "--dry-run=server", "--hide-secret")
    assert shown.code == 0
    assert "hunter2" not in shown.out and "kind: Secret" not in shown.out and "s-cm" in shown.out
    refused = ours(cluster, namespace, "install", "s", str(chart), "--hide-secret")
    assert refused.code != 0 and "hiding Kubernetes secrets requires a dry-run mode" in refused.err


def test_upgrade_install_of_a_new_release_hides_secrets_as_install_does(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=SECRET, values="password: hunter2\n")
    shown = ours(cluster, namespace, "upgrade", "--install", "u", str(chart), "--dry-run=server",
                 "--hide-secret")
    assert shown.code == 0, shown.err
    assert 'Release "u" does not exist. Installing it now.' in shown.out
    assert "hunter2" not in shown.out and "kind: Secret" not in shown.out and "u-cm" in shown.out


def test_force_replace_puts_the_whole_object(cluster, namespace, tmp_path):
    from tests.e2e.test_apply import _apply_as

    chart = write_chart(tmp_path, templates={"cm.yaml": SECRET["cm.yaml"]})
    assert ours(cluster, namespace, "install", "r", str(chart), "--server-side=false").code == 0
    _apply_as(cluster, namespace, "someone", {"apiVersion": "v1", "kind": "ConfigMap",
                                              "metadata": {"name": "r-cm"}, "data": {"extra": "1"}})
    assert ours(cluster, namespace, "upgrade", "r", str(chart), "--force-replace").code == 0
    assert _cm(cluster, namespace, "r-cm")["data"] == {"a": "b"}  # replaced, not merged
    both = ours(cluster, namespace, "upgrade", "r", str(chart), "--force", "--force-conflicts")
    assert both.code != 0 and "mutually exclusive" in both.err


HOOKS = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata: {a: b}\n",
    "hooks.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-weight": "5"
    "helm.sh/hook-delete-policy": hook-succeeded
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-first
  annotations:
    "helm.sh/hook": pre-install
    "helm.sh/hook-weight": "-1"
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-after
  annotations:
    "helm.sh/hook": post-install
    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded
data: {a: b}
""",
}


def test_hook_weights_and_delete_policies_behave_as_helms(cluster, namespace, helm, tmp_path):
    from tests.e2e.release_helpers import comparable

    chart = write_chart(tmp_path, templates=HOOKS)
    assert helm("install", "theirs", str(chart), "-n", namespace).returncode == 0
    assert ours(cluster, namespace, "install", "mine", str(chart)).code == 0
    theirs = comparable(record(cluster, namespace, "theirs", 1), "theirs")
    mine = comparable(record(cluster, namespace, "mine", 1), "mine")
    assert mine["hooks"] == theirs["hooks"]
    for name in ("theirs", "mine"):
        assert _cm(cluster, namespace, f"{name}-first") is not None  # default policy keeps it
        assert _cm(cluster, namespace, f"{name}-after") is None  # hook-succeeded deletes it
        job = get_object(cluster, f"/apis/batch/v1/namespaces/{namespace}/jobs/{name}-migrate")
        assert job is None


def test_dependency_update_fetches_a_missing_local_dependency(cluster, namespace, helm, tmp_path):
    sub = write_chart(tmp_path, name="sub", version="0.1.0", templates={
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-sub\ndata: {a: b}\n"})
    parent = write_chart(tmp_path, name="parent", version="1.0.0", templates={
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-parent\ndata: {a: b}\n"})
    with (parent / "Chart.yaml").open("a") as handle:
        handle.write(f"dependencies:\n- name: sub\n  version: 0.1.0\n  repository: file://{sub}\n")
    theirs = helm("install", "dep", str(parent), "-n", namespace)
    mine = ours(cluster, namespace, "install", "dep", str(parent))
    assert theirs.returncode != 0 and mine.code != 0
    assert mine.err.strip() == theirs.stderr.strip().splitlines()[-1]

    assert ours(cluster, namespace, "install", "dep", str(parent), "--dependency-update").code == 0
    assert _cm(cluster, namespace, "dep-sub") is not None and _cm(cluster, namespace, "dep-parent") is not None


def test_labels_go_on_the_record_and_reserved_ones_are_refused(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "lb", str(chart), "--labels", "team=web,tier=front").code == 0
    assert ours(cluster, namespace, "upgrade", "lb", str(chart), "--labels", "tier=null,env=prod").code == 0
    secret = get_object(cluster, f"/api/v1/namespaces/{namespace}/secrets/sh.helm.release.v1.lb.v2")
    labels = secret["metadata"]["labels"]
    assert labels["team"] == "web" and labels["env"] == "prod" and "tier" not in labels
    theirs = helm("install", "lb2", str(chart), "-n", namespace, "--labels", "owner=me")
    mine = ours(cluster, namespace, "install", "lb2", str(chart), "--labels", "owner=me")
    assert mine.code != 0 and mine.err.strip() == theirs.stderr.strip().splitlines()[-1]


def test_delete_hooks_run_around_uninstall_and_resources_go_in_uninstall_order(cluster, namespace, helm, tmp_path):
    templates = {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata: {a: b}\n",
        "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-svc\n"
                    "spec:\n  ports: [{port: 80}]\n  selector: {app: x}\n",
        "pre-delete.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-backup
  annotations:
    "helm.sh/hook": pre-delete
    "helm.sh/hook-delete-policy": hook-succeeded
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
""",
        "post-delete.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-farewell
  annotations:
    "helm.sh/hook": post-delete
data: {bye: "1"}
""",
    }
    chart = write_chart(tmp_path, templates=templates)
    assert ours(cluster, namespace, "install", "del", str(chart)).code == 0
    result = ours(cluster, namespace, "uninstall", "del", "--wait")
    assert result.code == 0, result.err
    assert _cm(cluster, namespace, "del-cm") is None
    assert get_object(cluster, f"/api/v1/namespaces/{namespace}/services/del-svc") is None
    assert get_object(cluster, f"/apis/batch/v1/namespaces/{namespace}/jobs/del-backup") is None  # ran, then deleted
    assert _cm(cluster, namespace, "del-farewell") is not None  # post-delete hook ran and stays
    assert helm("status", "del", "-n", namespace).returncode != 0
