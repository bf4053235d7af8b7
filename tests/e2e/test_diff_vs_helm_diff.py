"""`deploy-runner diff` against `helm diff upgrade` (databus23/helm-diff, built from its Go
module and run by the Helm 4.1.4 binary): the same objects flagged, in the same order.

The manifest view is helm-diff's default (the stored manifest and hooks against the
rendered ones); the live view is what helm-diff's --three-way-merge computes for a
client-side-apply release (the live object against the dry-run of Helm's three-way
patch). helm-diff 3.9.14 asks Helm for `template --validate`, which Helm 4 refuses
alongside --dry-run, hence --disable-validation; --reset-values keeps it from reusing
the release's computed values where Helm (and we) reuse only the user's.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.release_helpers import ours

pytestmark = pytest.mark.e2e

CM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-%s
data:
  message: %s
"""
SVC = """apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  ports: [{port: 80}]
"""
SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
stringData:
  token: %s
"""
HOOK = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-hook
  annotations:
    helm.sh/hook: pre-upgrade
    helm.sh/hook-delete-policy: before-hook-creation
data:
  step: %s
"""


@pytest.fixture
def helm_diff(cluster, tmp_path):
    """`helm diff upgrade ...` by Helm 4.1.4 with the helm-diff plugin; (exit code, JSON)."""
    from runner.errors import RunnerError
    from testbed.helm import helm_binary
    from testbed.helmdiff import plugin_dir

    try:
        plugins, helm = plugin_dir(tmp_path / "plugins", log=print), helm_binary()
    except RunnerError as error:
        pytest.fail(f"helm-diff could not be built: {error}", pytrace=False)
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig), "HELM_PLUGINS": str(plugins),
           "HELM_CONFIG_HOME": str(tmp_path / "hc"), "HELM_CACHE_HOME": str(tmp_path / "hk")}

    def run(*args: str) -> list[tuple[str, str, str, str]]:
        done = subprocess.run([str(helm), "diff", "upgrade", *args, "--disable-validation",
                               "--reset-values", "--output", "json"], env=env, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        return [(e["namespace"], e["name"], e["kind"], e["change"].lower()) for e in json.loads(done.stdout)]

    return run


def _chart(root: Path, version: str, templates: dict[str, str]) -> Path:
    chart = root / f"app-{version}"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: app\nversion: {version}\n")
    for name, text in templates.items():
        (chart / "templates" / name).write_text(text)
    return chart


def _ours(cluster, namespace, *args: str) -> list[tuple[str, str, str, str]]:
    result = ours(cluster, namespace, "diff", *args, "-o", "json")
    assert result.code == 0, result.err
    return [(c["namespace"], c["name"], c["kind"], c["change"]) for c in json.loads(result.out)["changes"]]


def test_the_manifest_view_flags_what_helm_diff_flags_in_its_order(cluster, namespace, helm_diff, tmp_path):
    v1 = _chart(tmp_path, "1.0.0", {"a.yaml": CM % ("a", "one"), "b.yaml": CM % ("b", "same"),
                                     "svc.yaml": SVC, "secret.yaml": SECRET % "t1", "hook.yaml": HOOK % "1"})
    v2 = _chart(tmp_path, "2.0.0", {"a.yaml": CM % ("a", "two"), "b.yaml": CM % ("b", "same"),
                                     "c.yaml": CM % ("c", "new"), "secret.yaml": SECRET % "t2",
                                     "hook.yaml": HOOK % "2"})
    assert ours(cluster, namespace, "install", "rel", str(v1)).code == 0
    expected = helm_diff("rel", str(v2), "-n", namespace)
    assert expected == [(namespace, "rel-a", "ConfigMap", "modify"), (namespace, "rel-hook", "ConfigMap", "modify"),
                        (namespace, "rel-secret", "Secret", "modify"), (namespace, "rel", "Service", "remove"),
                        (namespace, "rel-c", "ConfigMap", "add")]
    assert _ours(cluster, namespace, "rel", str(v2), "--view", "manifest") == expected


def test_the_live_view_flags_what_helm_diffs_three_way_merge_flags(cluster, namespace, helm_diff, tmp_path):
    v1 = _chart(tmp_path, "1.0.0", {"a.yaml": CM % ("a", "one"), "b.yaml": CM % ("b", "same"),
                                     "d.yaml": CM % ("d", "kept"), "svc.yaml": SVC})
    v2 = _chart(tmp_path, "2.0.0", {"a.yaml": CM % ("a", "two"), "b.yaml": CM % ("b", "same"),
                                     "d.yaml": CM % ("d", "kept"), "c.yaml": CM % ("c", "new")})
    assert ours(cluster, namespace, "install", "rel", str(v1), "--server-side=false").code == 0
    reply = cluster.client().request("PATCH", f"/api/v1/namespaces/{namespace}/configmaps/rel-b",
                                     body={"data": {"message": "edited"}}, content_type="application/merge-patch+json",
                                     query=[("fieldManager", "kubectl-edit")])
    assert reply.ok, reply.message
    expected = helm_diff("rel", str(v2), "-n", namespace, "--three-way-merge")
    assert expected == [(namespace, "rel-a", "ConfigMap", "modify"), (namespace, "rel-b", "ConfigMap", "modify"),
                        (namespace, "rel", "Service", "remove"), (namespace, "rel-c", "ConfigMap", "add")]
    assert _ours(cluster, namespace, "rel", str(v2)) == expected
    # The stored manifest knows nothing of the hand edit: the manifest view leaves rel-b out.
    assert (namespace, "rel-b", "ConfigMap", "modify") not in _ours(cluster, namespace, "rel", str(v2),
                                                                    "--view", "manifest")


def test_a_secret_value_copied_into_a_configmap_is_hidden_in_the_diff(cluster, namespace, tmp_path):
    from tests.fixtures import write_chart

    cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
          "data:\n  dsn: \"postgres://app:{{ .Values.password }}@db\"\n")
    chart = write_chart(tmp_path, templates={"cm.yaml": cm}, values="password: public\n")
    assert ours(cluster, namespace, "install", "sec", str(chart)).code == 0
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text("password: canary-7f3a9\n")
    for output in ("table", "json"):
        run = ours(cluster, namespace, "diff", "sec", str(chart), "--secret-values", str(secrets),
                   "-o", output)
        assert run.code == 0, run.err
        assert "dsn" in run.out and "[REDACTED]" in run.out, run.out
        assert "canary-7f3a9" not in run.out + run.err
