"""--hide-secret keeps Secret data out of every dry run, also when `upgrade --install`
installs a new release (it used to drop the flag on the way to install)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]
contexts: [{name: c, context: {cluster: c, namespace: ns}}]
current-context: c
users: []
"""


def _chart(root: Path) -> Path:
    chart = root / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (chart / "templates" / "secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  password: hunter2\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata: {a: b}\n")
    return chart


def _run(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    from runner.cli import main

    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(KUBECONFIG)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*args, "--kubeconfig", str(kubeconfig)])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", [["install", "app"], ["upgrade", "--install", "app"]])
def test_a_client_dry_run_with_hide_secret_prints_no_secret(tmp_path, monkeypatch, command):
    monkeypatch.setenv("HELM_DRIVER", "memory")  # a new release, and no cluster is asked
    code, out, err = _run(tmp_path, *command, str(_chart(tmp_path)), "--dry-run", "--hide-secret")
    assert code == 0, err
    assert "plain" in out  # the rest of the manifest is shown
    assert "hunter2" not in out and "kind: Secret" not in out
