"""Releases on the real testbed: install/upgrade/rollback/uninstall by us, and
interop both ways with the Helm 4.1.4 binary."""

from __future__ import annotations

import json

import pytest

from tests.e2e.release_helpers import comparable, get_object, ours, record
from tests.fixtures import write_chart

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
    assert (mine.code, mine.err) == (theirs.returncode, theirs.stderr)  # Helm's ERROR log line, then the error


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

    from testbed.helm import helm_binary

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


def _rich_chart(root):
    chart = write_chart(root, name="rich", version="0.3.1")
    (chart / "Chart.yaml").write_text("""apiVersion: v2
name: rich
version: 0.3.1
appVersion: "2.1"
description: A chart with everything a record stores
home: https://example.com
icon: https://example.com/icon.png
keywords: [web, demo]
sources: [https://github.com/example/rich]
maintainers:
- name: Ada
  email: ada@example.com
annotations:
  category: Demo
type: application
dependencies:
- name: sub
  version: 0.1.0
  condition: sub.enabled
- name: extra
  version: 0.1.0
  condition: extra.enabled
""")
    (chart / "values.yaml").write_text("replicas: 1\nmessage: hello\nratio: 0.5\nbig: 1000000\n"
                                       "sub:\n  enabled: true\nextra:\n  enabled: false\n")
    (chart / "values.schema.json").write_text('{"type": "object", "properties": {"replicas": {"type": "integer"}}}\n')
    (chart / "README.md").write_text("# rich <&>\n")
    (chart / "files").mkdir()
    (chart / "files" / "config.txt").write_text("key=value\n")
    (chart / ".helmignore").write_text("*.bak\n")
    (chart / "notes.bak").write_text("ignored\n")
    for sub in ("sub", "extra"):
        subdir = chart / "charts" / sub
        (subdir / "templates").mkdir(parents=True)
        (subdir / "Chart.yaml").write_text(f"apiVersion: v2\nname: {sub}\nversion: 0.1.0\n")
        (subdir / "values.yaml").write_text("enabled: true\nsize: 3\n")
        (subdir / "templates" / "cm.yaml").write_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\n"
            "data:\n  size: {{ .Values.size | quote }}\n")
    return chart


def test_record_of_a_chart_with_subcharts_files_and_schema_equals_helms(cluster, namespace, helm, tmp_path):
    chart = _rich_chart(tmp_path)
    args = ["--set", "sub.size=5", "--set-string", "tag=<b>"]
    theirs_run = helm("install", "theirs", str(chart), "-n", namespace, *args)
    assert theirs_run.returncode == 0, theirs_run.stderr
    mine_run = ours(cluster, namespace, "install", "mine", str(chart), *args)
    assert mine_run.code == 0, mine_run.err

    theirs = comparable(record(cluster, namespace, "theirs", 1), "theirs")
    mine = comparable(record(cluster, namespace, "mine", 1), "mine")
    for field in sorted(set(theirs["chart"]) | set(mine["chart"])):
        assert mine["chart"].get(field) == theirs["chart"].get(field), (field, mine["chart"].get(field), theirs["chart"].get(field))
    for field in sorted(set(theirs) | set(mine)):
        assert mine.get(field) == theirs.get(field), field


def test_status_and_history_print_as_helm_prints_them(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert helm("install", "same", str(chart), "-n", namespace).returncode == 0
    assert helm("upgrade", "same", str(chart), "-n", namespace, "--set", "message=2",
                "--wait", "--timeout", "120s").returncode == 0  # pods settled: same rows for both
    import re

    def aged(text: str) -> str:  # the AGE column (last) changes between the two calls
        return re.sub(r"(?m)   [0-9][0-9smhd]*$", "   AGE", text)

    def grouped(text: str) -> tuple[str, list[str]]:
        """Helm prints the RESOURCES groups in Go map order (random): compare them as a set."""
        head, _, resources = text.partition("RESOURCES:\n")
        body, end, tail = resources.partition("\n\n\n")  # two blank lines close the section
        return head + end + tail, sorted(("\n\n" + body).split("\n\n==> "))

    theirs = aged(helm("status", "same", "-n", namespace).stdout)
    assert "==> v1/ConfigMap\n" in theirs and "==> v1/Pod(related)" in theirs
    assert grouped(aged(ours(cluster, namespace, "status", "same").out)) == grouped(theirs)
    assert ours(cluster, namespace, "history", "same").out == helm("history", "same", "-n", namespace).stdout
    for what in ("values", "manifest", "notes", "hooks"):
        mine = ours(cluster, namespace, "get", what, "same").out
        assert mine == helm("get", what, "same", "-n", namespace).stdout, what
    mine_all = ours(cluster, namespace, "get", "values", "same", "--all").out
    assert mine_all == helm("get", "values", "same", "-n", namespace, "--all").stdout
    for args in (("history", "same", "-o", "json"), ("get", "values", "same", "-o", "json"),
                 ("get", "values", "same", "-o", "yaml")):
        assert ours(cluster, namespace, *args).out == helm(*args, "-n", namespace).stdout, args


def test_a_kube_version_constraint_fails_as_helm_fails(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    text = (chart / "Chart.yaml").read_text()
    # Beyond the testbed's Kubernetes (it reports its real version, v1.35.x).
    (chart / "Chart.yaml").write_text(text + 'kubeVersion: ">=1.99.0-0"\n')
    theirs = helm("install", "kv", str(chart), "-n", namespace)
    mine = ours(cluster, namespace, "install", "kv", str(chart))
    assert theirs.returncode != 0 and mine.code != 0
    assert mine.err.strip() == theirs.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("mode", ["client", "server"])
def test_dry_run_prints_as_helm_prints_it(cluster, namespace, helm, tmp_path, mode):
    import re

    chart = write_chart(tmp_path)

    def normal(text: str) -> str:
        return re.sub(r"LAST DEPLOYED: .*", "LAST DEPLOYED: X", text)

    theirs = helm("install", "dry", str(chart), "-n", namespace, f"--dry-run={mode}")
    mine = ours(cluster, namespace, "install", "dry", str(chart), f"--dry-run={mode}")
    assert mine.code == 0 and theirs.returncode == 0
    assert normal(mine.out) == normal(theirs.stdout)


def test_errors_on_missing_releases_read_as_helms(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert ours(cluster, namespace, "install", "gone", str(chart)).code == 0
    assert ours(cluster, namespace, "uninstall", "gone", "--keep-history").code == 0
    cases = [("upgrade", "gone", str(chart)), ("upgrade", "never", str(chart)), ("rollback", "never"),
             ("rollback", "gone", "7"), ("status", "never"), ("history", "never"),
             ("get", "values", "never"), ("uninstall", "never")]
    for args in cases:
        theirs = helm(*args, "-n", namespace)
        mine = ours(cluster, namespace, *args)
        assert mine.code != 0 and theirs.returncode != 0, args
        assert mine.err.strip() == theirs.stderr.strip().splitlines()[-1], args
