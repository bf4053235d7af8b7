"""`make demo`'s script runs end to end on the testbed and shows the migration step."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest

pytestmark = pytest.mark.e2e


def test_the_demo_installs_upgrades_across_a_major_version_and_rolls_back(cluster, tmp_path):
    from runner import demo
    from runner.kube.client import KubeClient

    out = io.StringIO()
    try:
        with redirect_stdout(out):
            assert demo._run(str(cluster.kubeconfig), tmp_path) == 0
    finally:
        KubeClient(cluster.api_client).request("DELETE", f"/api/v1/namespaces/{demo.NAMESPACE}")
    text = out.getvalue()
    assert "hook Job/shop-migrate-v1-to-v2 (pre-upgrade): Succeeded" in text
    assert "revision 1: deployed, chart 1.4.0" in text  # what .Release.History showed the upgrade
    assert "revision 3: deployed (Rollback to 1)" in text
