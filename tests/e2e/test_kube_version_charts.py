"""Corpus charts with a `kubeVersion` constraint install on the testbed (issue 11).

They need a cluster that reports its real version: an unstamped kube-apiserver says
v0.0.0-master+$Format:%H$, and both Helm and deploy-runner refuse every such chart.
Helm 4.1.4 is the oracle: its server-side dry run checks the constraint against the
same cluster, and it reads the release record we write.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.corpus import corpus_chart
from tests.e2e.release_helpers import ours

pytestmark = pytest.mark.e2e

CHARTS = [
    ("grafana", ()),
    # Without a storage provider the chart's default BackupStorageLocation is invalid.
    ("velero", ("--set", "backupsEnabled=false", "--set", "snapshotsEnabled=false")),
    ("vault", ()),
    # Its hook Jobs set ttlSecondsAfterFinished: 0: a wait must see them complete before
    # they are deleted (a poll saw them NotFound and timed out; Helm's watch and ours see both).
    ("ingress-nginx", ()),
]


@pytest.mark.parametrize(("chart", "flags"), CHARTS, ids=[name for name, _ in CHARTS])
def test_a_chart_with_a_kube_version_constraint_installs(cluster, namespace, helm, chart, flags):
    path = corpus_chart(chart)
    assert yaml.safe_load((path / "Chart.yaml").read_text()).get("kubeVersion")
    name = f"kv-{chart}"

    oracle = helm("install", name, str(path), "-n", namespace, "--dry-run=server", *flags)
    assert oracle.returncode == 0, oracle.stderr

    try:
        mine = ours(cluster, namespace, "install", name, str(path), "--wait", "--timeout", "3m", *flags)
        assert mine.code == 0, mine.err
        assert "STATUS: deployed" in mine.out
        status = helm("status", name, "-n", namespace, "-o", "json")
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["info"]["status"] == "deployed"
    finally:
        # Cluster-scoped objects (ClusterRoles, bindings, webhooks) outlive the namespace:
        # remove them for the tests that follow.
        ours(cluster, namespace, "uninstall", name, "--wait", "--timeout", "2m")
