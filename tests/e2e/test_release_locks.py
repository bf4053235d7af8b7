"""Concurrency and recovery: pending releases, the per-release Lease, take-over after expiry."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from tests.e2e.release_helpers import config, ours
from tests.fixtures import CM_ONLY, write_chart

pytestmark = pytest.mark.e2e

PENDING = "another operation (install/upgrade/rollback) is in progress"


def _lease(cluster, namespace: str, release: str, renewed: datetime, holder: str = "someone-else") -> None:
    from runner.kube.lease import lease_name, micro_time

    body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": lease_name(release)},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 30,
                     "acquireTime": micro_time(renewed), "renewTime": micro_time(renewed)}}
    reply = cluster.client().request(
        "POST", f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases", body=body)
    assert reply.ok, reply.body


def _strand(cluster, namespace: str, name: str, started: datetime) -> None:
    """What a killed upgrade leaves behind: a pending-upgrade record at the next revision."""
    from runner.release.record import PENDING_UPGRADE

    storage = config(cluster, namespace).storage
    last = storage.last(name)
    last.version += 1
    last.info.status = PENDING_UPGRADE
    last.info.description = "Preparing upgrade"
    last.info.last_deployed = started.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    storage.create(last)


def test_a_live_lock_holder_blocks_a_second_operation(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "l", str(chart)).code == 0
    _lease(cluster, namespace, "l", datetime.now(UTC))
    result = ours(cluster, namespace, "upgrade", "l", str(chart))
    assert result.code != 0 and PENDING in result.err and "someone-else" in result.err


def test_a_fresh_pending_record_is_refused_as_helm_refuses_it(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "p", str(chart)).code == 0
    _strand(cluster, namespace, "p", datetime.now(UTC))
    theirs = helm("upgrade", "p", str(chart), "-n", namespace)
    mine = ours(cluster, namespace, "upgrade", "p", str(chart))
    assert PENDING in theirs.stderr
    assert mine.code != 0 and PENDING in mine.err


def test_an_expired_lock_is_taken_over_and_the_stranded_revision_marked_failed(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "x", str(chart)).code == 0
    _strand(cluster, namespace, "x", datetime.now(UTC))
    _lease(cluster, namespace, "x", datetime.now(UTC) - timedelta(minutes=5), holder="dead-runner")

    result = ours(cluster, namespace, "upgrade", "x", str(chart), "--set", "message=after")

    assert result.code == 0, result.err
    assert "revision 2 was left pending" in result.err
    storage = config(cluster, namespace).storage
    stranded = storage.get("x", 2)
    assert stranded.info.status == "failed"
    assert "dead-runner" in stranded.info.description
    assert storage.get("x", 3).info.status == "deployed"
    assert "deployed" in helm("status", "x", "-n", namespace).stdout


def test_helms_own_stranded_record_is_recovered_after_the_timeout(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "o", str(chart)).code == 0
    _strand(cluster, namespace, "o", datetime.now(UTC) - timedelta(minutes=10))
    result = ours(cluster, namespace, "upgrade", "o", str(chart), "--timeout", "5m")
    assert result.code == 0, result.err
    assert config(cluster, namespace).storage.get("o", 2).info.status == "failed"


def test_two_concurrent_upgrades_never_both_proceed(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "c", str(chart)).code == 0
    from runner.actions.journal import Journal
    from runner.actions.upgrade import upgrade
    from runner.errors import RunnerError
    from tests.unit.actions.asking import asked

    outcomes: list[str] = []

    def run(message: str) -> None:
        try:
            upgrade(config(cluster, namespace), Journal(), *asked(name="c", chart=str(chart),
                                                                          values={"message": message}))
            outcomes.append("ok")
        except RunnerError as err:
            outcomes.append(str(err))

    threads = [threading.Thread(target=run, args=(m,)) for m in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    storage = config(cluster, namespace).storage
    statuses = [h.status for h in storage.heads("c")]
    assert statuses.count("deployed") == 1
    assert all(o == "ok" or PENDING in o for o in outcomes)
    assert "ok" in outcomes
    assert len(storage.heads("c")) == 1 + outcomes.count("ok")


def test_the_lock_waits_when_asked(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "w", str(chart)).code == 0
    _lease(cluster, namespace, "w", datetime.now(UTC) - timedelta(seconds=28))  # expires in ~2s
    result = ours(cluster, namespace, "upgrade", "w", str(chart), "--wait-for-lock", "20s")
    assert result.code == 0, result.err


def test_a_running_operation_keeps_its_lock_alive_and_releases_it(cluster, namespace):
    import time

    from runner.kube.lease import LockHeldError, ReleaseLock, lock_state

    client = cluster.client()
    with ReleaseLock(client, namespace, "busy", duration=3).acquire():  # renewed every second
        first = lock_state(client, namespace, "busy")
        time.sleep(4)  # longer than the lease: only renewal keeps it held
        later = lock_state(client, namespace, "busy")
        assert later["renewTime"] > first["renewTime"]
        with pytest.raises(LockHeldError):
            ReleaseLock(client, namespace, "busy").acquire()
    assert lock_state(client, namespace, "busy") is None


def test_a_first_install_killed_mid_way_is_retried_after_its_lock_expired(cluster, namespace, tmp_path):
    from runner.release.record import PENDING_INSTALL, Info, Release

    chart = write_chart(tmp_path, templates=CM_ONLY)
    stranded = Release(name="k", namespace=namespace, version=1, manifest="",
                       info=Info(status=PENDING_INSTALL, description="Initial install underway",
                                 first_deployed="2026-01-01T00:00:00Z",
                                 last_deployed=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")))
    config(cluster, namespace).storage.create(stranded)
    _lease(cluster, namespace, "k", datetime.now(UTC) - timedelta(minutes=5), holder="killed-run")

    result = ours(cluster, namespace, "install", "k", str(chart))

    assert result.code == 0, result.err
    storage = config(cluster, namespace).storage
    assert [h.status for h in storage.heads("k")] == ["deployed", "failed"]
    assert "killed-run" in storage.get("k", 1).info.description


def test_a_waiter_says_whom_it_waits_for_and_starts_when_the_lock_is_released(cluster, namespace, tmp_path):
    import os
    import subprocess
    import sys

    from runner.kube.lease import lease_name, micro_time

    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert ours(cluster, namespace, "install", "q", str(chart)).code == 0
    renewed = datetime.now(UTC)
    _lease(cluster, namespace, "q", renewed, holder="deploy-runner@ci/42/abcd")
    command = [sys.executable, "-m", "runner.cli", "upgrade", "q", str(chart), "-n", namespace,
               "--kubeconfig", str(cluster.kubeconfig), "--wait-for-lock", "5m", "--set", "message=next"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ})
    assert process.stderr is not None
    first = process.stderr.readline()  # told once it finds the lock held

    reply = cluster.client().request(
        "DELETE", f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{lease_name('q')}")
    assert reply.ok, reply.body
    out, rest = process.communicate(timeout=120)

    assert process.returncode == 0, first + rest
    assert first == (f'waiting for the lock on release "q": held by deploy-runner@ci/42/abcd until '
                     f"{micro_time(renewed + timedelta(seconds=30))}\n")
    assert "waiting for the lock" not in rest  # once: the holder did not change
    assert "has been upgraded" in out
    assert config(cluster, namespace).storage.last("q").info.status == "deployed"
