"""`get metadata` beside `helm get metadata` on the same release."""

from __future__ import annotations

import pytest

from tests.e2e.release_helpers import ours
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("output", ["table", "json", "yaml"])
def test_get_metadata_matches_helm(cluster, namespace, helm, tmp_path, output):
    chart = write_chart(tmp_path)
    sub = write_chart(chart / "charts", name="sub", version="0.2.0", templates={})
    sub.rename(chart / "charts" / "sub")
    (chart / "Chart.yaml").write_text((chart / "Chart.yaml").read_text()
                                      + "annotations:\n  team: blue\n  a.io/tier: web\n"
                                      + "dependencies:\n- name: sub\n  version: 0.2.0\n")
    assert helm("install", "meta", str(chart), "-n", namespace).returncode == 0
    assert ours(cluster, namespace, "upgrade", "meta", str(chart)).code == 0
    for revision in ([], ["--revision", "1"]):
        theirs = helm("get", "metadata", "meta", "-n", namespace, "-o", output, *revision)
        mine = ours(cluster, namespace, "get", "metadata", "meta", "-o", output, *revision)
        assert theirs.returncode == 0, theirs.stderr
        assert mine.out == theirs.stdout
