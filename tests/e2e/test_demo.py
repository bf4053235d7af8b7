"""`make demo` runs end to end on the testbed, printing CLI commands a user can replay."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


def test_the_demo_runs_a_spec_then_upgrades_across_a_major_version_and_rolls_back(cluster, tmp_path):
    from testbed import demo

    out = io.StringIO()
    kubeconfig_before = os.environ.get("KUBECONFIG")
    try:
        with redirect_stdout(out):
            assert demo.run(str(cluster.kubeconfig), tmp_path) == 0
        text = out.getvalue()
        # Each step is printed as the command a user types, in the order it ran.
        commands = [shlex.split(line[2:]) for line in text.splitlines() if line.startswith("$ ")]
        assert commands[0] == ["export", f"KUBECONFIG={cluster.kubeconfig}"]
        assert [c[:2] for c in commands[1:]] == [
            *[["deploy-runner", "run"]] * 5, ["deploy-runner", "history"],
            ["deploy-runner", "install"], ["deploy-runner", "package"], ["deploy-runner", "upgrade"],
            ["deploy-runner", "get"], ["deploy-runner", "get"], ["deploy-runner", "rollback"],
            ["deploy-runner", "get"], ["deploy-runner", "history"], ["deploy-runner", "run"]]
        assert "Plan: 3 to install, 0 to upgrade, 0 to uninstall, 0 unchanged." in text
        assert "Summary: 0 deployed, 0 uninstalled, 3 unchanged, 0 failed, 0 skipped." in text
        assert "-  replicas: 1\n    +  replicas: 3\n" in text  # production's diff
        assert "Summary: 1 deployed, 0 uninstalled, 2 unchanged, 0 failed, 0 skipped." in text
        assert "name: shop-migrate-v1-to-v2" in text  # the migration hook of the major upgrade
        assert "revision 1: deployed, chart 1.4.0" in text  # .Release.History as the upgrade saw it
        assert "name: shop-migrate-v2-to-v1" in text  # the down-migration of the rollback with history
        assert "Rollback to 1 (re-rendered with .Release.History)" in text

        # Last, the spec as a GitHub Actions step: the check runs it posted, rendered.
        assert commands[-1][2:] == ["--spec", "examples/spec/deploy-runner.yaml", "--report", "github"]
        assert "deploy-runner storefront: success" in text and "Annotations (2)" in text

        # The printed `history` line, typed in a shell, prints what the demo printed after it.
        history = commands[-2]
        replay = subprocess.run([str(Path(sys.executable).parent / "deploy-runner"), *history[1:]],
                                capture_output=True, text=True, timeout=120, check=False,
                                env={**os.environ, "KUBECONFIG": str(cluster.kubeconfig)})
        assert replay.returncode == 0, replay.stderr
        assert f"$ {shlex.join(history)}\n{replay.stdout}\n# The same spec as a GitHub" in text
    finally:
        for name in (demo.NAMESPACE, demo.SPEC_NAMESPACE):
            cluster.client().request("DELETE", f"/api/v1/namespaces/{name}")
    assert os.environ.get("KUBECONFIG") == kubeconfig_before  # the demo's export is undone
