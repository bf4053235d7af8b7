"""SIGINT and SIGTERM during `install --wait` and `upgrade --wait`, side by side with Helm
4.1.4 on the testbed: what each prints, its exit code, and the record it leaves; ours
also releases the release's Lease (Helm has none)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.release_helpers import config
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

NEVER_READY = {"deploy.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-stuck
spec:
  replicas: 1
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      nodeSelector: {no-such-node: "true"}
      containers: [{name: c, image: busybox}]
"""}


def _signalled(command: list[str], cluster, namespace: str, name: str, pending: str,
               sig: signal.Signals) -> subprocess.CompletedProcess[str]:
    """Run `command` until release `name` is `pending`, send `sig`, collect what it printed."""
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    storage = config(cluster, namespace).storage
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        heads = storage.heads(name)
        if heads and heads[0].status == pending:
            break
        time.sleep(0.1)
    time.sleep(0.5)  # well inside the wait
    process.send_signal(sig)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def _last_record(cluster, namespace: str, name: str) -> tuple[int, str, str]:
    last = config(cluster, namespace).storage.last(name)
    return last.version, last.info.status, last.info.description


def _ours(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "deploy-runner"), *args]


def _theirs(*args: str) -> list[str]:
    from testbed.helm import helm_binary

    return [str(helm_binary()), *args]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("operation", ["install", "upgrade"])
def test_a_signal_during_a_wait_cancels_as_helm_does(cluster, namespace, helm, tmp_path, operation, sig):
    from runner.kube.lease import lock_state

    chart = str(write_chart(tmp_path, templates=NEVER_READY))
    outcomes = {}
    for who, command in (("helm", _theirs), ("ours", _ours)):
        name = f"{who}-{operation}"
        if operation == "upgrade":
            assert helm("install", name, chart, "-n", namespace).returncode == 0
        quiet = ["--no-progress"] if who == "ours" else []  # Helm shows no progress of the wait
        done = _signalled(command(operation, name, chart, "-n", namespace, "--wait", "--timeout", "120s",
                                  "--set", "message=two", *quiet),
                          cluster, namespace, name, f"pending-{operation}", sig)
        record = _last_record(cluster, namespace, name)
        outcomes[who] = (done.returncode, done.stdout.replace(name, "NAME"), done.stderr.replace(name, "NAME"),
                         record[0], record[1], record[2].replace(name, "NAME"))

    assert outcomes["ours"] == outcomes["helm"]
    code, out, err, revision, status, description = outcomes["ours"]
    failed = "INSTALLATION FAILED" if operation == "install" else "UPGRADE FAILED"
    assert (code, out) == (1, "Release NAME has been cancelled.\n")
    assert err.endswith(f"Error: {failed}: context canceled\n")
    assert (revision, status) == (1 if operation == "install" else 2, "failed")
    assert description.endswith('"NAME" failed: context canceled')
    assert lock_state(cluster.client(), namespace, f"ours-{operation}") is None


def test_the_next_operation_after_a_cancelled_install_needs_no_wait(cluster, namespace, tmp_path):
    """Nothing is left pending or locked: installing again at once retries the failed install."""
    chart = str(write_chart(tmp_path, templates=NEVER_READY))
    done = _signalled(_ours("install", "again", chart, "-n", namespace, "--wait", "--timeout", "120s"),
                      cluster, namespace, "again", "pending-install", signal.SIGTERM)
    assert done.returncode == 1, done.stderr

    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig)}
    retry = subprocess.run(_ours("install", "again", chart, "-n", namespace), env=env, capture_output=True,
                           text=True, timeout=120, check=False)

    assert retry.returncode == 0, retry.stderr
    assert [h.status for h in config(cluster, namespace).storage.heads("again")] == ["deployed", "failed"]


def test_a_signal_during_a_rollback_wait_records_it_failed_and_unlocks(cluster, namespace, helm, tmp_path):
    """Helm's rollback has no signal handler (killed, it leaves `pending-rollback`); ours
    records the rollback failed, releases the Lease and exits as interrupted."""
    from runner.kube.lease import lock_state

    chart = str(write_chart(tmp_path, templates=NEVER_READY))
    for message in ("one", "two"):
        assert helm("upgrade", "--install", "rb", chart, "-n", namespace, "--set", f"message={message}").returncode == 0
    done = _signalled(_ours("rollback", "rb", "1", "-n", namespace, "--wait", "--timeout", "120s"),
                      cluster, namespace, "rb", "pending-rollback", signal.SIGTERM)

    # The wait's progress (CI-log lines: no terminal) says how it ended, then the error.
    assert (done.returncode, done.stdout) == (143, ""), done.stderr
    assert re.fullmatch(r"Waiting for 1 object to be ready \(.*\n(  .*\n|\[.*\n)*"
                        r"\[[\d.]+s\] 1 of 1 object not ready after [\d.]+s\nError: interrupted\n", done.stderr), done.stderr
    assert _last_record(cluster, namespace, "rb") == (3, "failed", 'Rollback "rb" failed: context canceled')
    assert lock_state(cluster.client(), namespace, "rb") is None


def test_a_signal_reaches_a_run_waiting_for_the_lock(cluster, namespace, tmp_path):
    """The waiter blocks in a watch's read, where no exception reaches it: the interrupt
    wakes it. Had it not, the holder's Lease would expire and the upgrade succeed."""
    from datetime import UTC, datetime

    from runner.kube.lease import lease_name, micro_time

    chart = str(write_chart(tmp_path, templates={"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                                             "  name: {{ .Release.Name }}-cm\n"}))
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig)}
    assert subprocess.run(_ours("install", "w", chart, "-n", namespace), env=env, check=False,
                          capture_output=True).returncode == 0
    now = micro_time(datetime.now(UTC))
    reply = cluster.client().request("POST", f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases", body={
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": lease_name("w")},
        "spec": {"holderIdentity": "someone-else", "leaseDurationSeconds": 30, "acquireTime": now, "renewTime": now}})
    assert reply.ok, reply.body
    process = subprocess.Popen(_ours("upgrade", "w", chart, "-n", namespace, "--wait-for-lock", "5m"), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    assert process.stderr.readline().startswith('waiting for the lock on release "w": held by someone-else')
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)

    assert (process.returncode, out, err) == (1, "Release w has been cancelled.\n",
                                              "Error: UPGRADE FAILED: context canceled\n")
    assert [h.status for h in config(cluster, namespace).storage.heads("w")] == ["deployed"]
