"""HIP-0029 .Release.History and HIP-0027 .DeployedChart(s) at render time, on the testbed."""

from __future__ import annotations

import pytest

from tests.e2e.release_helpers import get_object, ours, write_chart

pytestmark = pytest.mark.e2e

HISTORY_TEMPLATE = {"history.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-history
data:
  count: {{ len .Release.History | quote }}
  entries: "{{ range .Release.History }}{{ .Revision }}:{{ .Status }}:{{ .Chart.Version }}:{{ .Name }} {{ end }}"
  deployed: "{{ with .DeployedChart }}{{ .Version }}{{ end }}"
  charts: "{{ range .DeployedCharts }}{{ .Name }}-{{ .Version }} {{ end }}"
  values: "{{ range .Release.History }}[{{ .Values.message }}]{{ end }}"
  message: {{ .Values.message | quote }}
"""}


def _data(cluster, namespace: str, name: str) -> dict:
    return get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/{name}-history")["data"]


def test_history_is_empty_by_default_and_filled_newest_first_with_the_flag(cluster, namespace, tmp_path):
    v1 = write_chart(tmp_path, version="1.0.0", templates=HISTORY_TEMPLATE)
    v2 = write_chart(tmp_path, version="2.0.0", templates=HISTORY_TEMPLATE)
    assert ours(cluster, namespace, "install", "h", str(v1), "--release-history-max", "2",
                "--set", "message=a").code == 0
    assert _data(cluster, namespace, "h")["count"] == "0"

    assert ours(cluster, namespace, "upgrade", "h", str(v2), "--set", "message=b").code == 0
    assert _data(cluster, namespace, "h")["count"] == "0"  # default depth 0

    assert ours(cluster, namespace, "upgrade", "h", str(v2), "--set", "message=c",
                "--release-history-max", "2").code == 0
    data = _data(cluster, namespace, "h")
    assert data["count"] == "2"
    assert data["entries"] == "2:deployed:2.0.0:h 1:superseded:1.0.0:h "
    assert data["deployed"] == "2.0.0"
    assert data["charts"] == "demo-2.0.0 demo-1.0.0 "
    assert data["values"] == "[][]"  # values only with --include-history-values


def test_history_values_with_the_flag_and_deployed_depth_alias(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=HISTORY_TEMPLATE)
    assert ours(cluster, namespace, "install", "v", str(chart), "--set", "message=a").code == 0
    assert ours(cluster, namespace, "upgrade", "v", str(chart), "--set", "message=b").code == 0
    assert ours(cluster, namespace, "upgrade", "v", str(chart), "--set", "message=c",
                "--deployed-depth", "5", "--include-history-values").code == 0
    data = _data(cluster, namespace, "v")
    assert data["count"] == "2"
    assert data["values"] == "[b][a]"


def test_dry_run_client_sees_no_history_and_dry_run_server_sees_it(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=HISTORY_TEMPLATE)
    assert ours(cluster, namespace, "install", "d", str(chart), "--set", "message=a").code == 0
    client = ours(cluster, namespace, "upgrade", "d", str(chart), "--dry-run=client",
                  "--release-history-max", "3")
    assert client.code == 0
    server = ours(cluster, namespace, "upgrade", "d", str(chart), "--dry-run=server",
                  "--release-history-max", "3", "-o", "json")
    assert server.code == 0
    import json

    manifest = json.loads(server.out)["manifest"]
    assert 'count: "1"' in manifest


def test_rollback_keeps_the_target_revisions_manifest(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=HISTORY_TEMPLATE)
    assert ours(cluster, namespace, "install", "r", str(chart), "--set", "message=a").code == 0
    assert ours(cluster, namespace, "upgrade", "r", str(chart), "--set", "message=b",
                "--release-history-max", "1").code == 0
    assert _data(cluster, namespace, "r")["count"] == "1"
    assert ours(cluster, namespace, "rollback", "r", "1").code == 0
    assert _data(cluster, namespace, "r")["count"] == "0"
