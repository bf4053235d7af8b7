"""A failing API server: restarted in the middle of an install's --wait, and a proxy in
front of it that delays answers, drops connections, answers 429 (Retry-After) and 5xx.

What must hold (issue 12): retries are bounded and honour Retry-After (unit tests:
tests/unit/kube/test_retry.py); every run ends with its release deployed or failed with
a reason, never pending; the lock is given back; no record is lost, and Helm reads
every one.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.campaign import (
    CANARY_SET,
    FIGURES,
    contiguous,
    create_namespace,
    finish,
    helm_reads_every_record,
    helm_runner,
    is_python_crash,
    lease_holder,
    record_secrets,
    run,
    scale,
    start,
    wait_for,
    write_chart,
)
from tests.reliability.faultproxy import FaultProxy, Faults

pytestmark = pytest.mark.e2e

# About one request in three meets a fault; one in four is refused or lost.
FAULTS = Faults(delay=0.10, drop_before=0.05, drop_after=0.05, too_many=0.05, unavailable=0.05,
                timeout_after=0.05)


@pytest.fixture(scope="module")
def own_testbed() -> Iterator[Any]:
    """A testbed of this module's own: its API server is restarted, which the session's
    shared one should not see."""
    from testbed.cluster import Testbed
    from tests.conftest import Cluster

    with Testbed.start(log=lambda message: None) as testbed:
        yield Cluster(testbed.kubeconfig, testbed.server, None, testbed)


def test_an_install_waiting_while_the_api_server_restarts_ends_deployed(own_testbed, home, tmp_path):
    cluster = own_testbed
    namespace = create_namespace(cluster, f"restart-{uuid.uuid4().hex[:8]}")
    chart = write_chart(tmp_path)
    process = start(home, cluster.kubeconfig, namespace, "install", "r", str(chart), "--wait",
                    "--timeout", "180s", "--set", "settle=15", *CANARY_SET)
    deployment = f"/apis/apps/v1/namespaces/{namespace}/deployments/r-web"
    wait_for(lambda: cluster.client().request("GET", deployment).ok, 120, "the Deployment (the wait begins)")
    cluster.testbed.restart("kube-apiserver", down_seconds=3)
    FIGURES.add("api server faults", "api server restarts")
    done = finish(process, "install r (api server restarted)")
    assert done.code == 0, done.err
    helm = helm_runner(cluster.kubeconfig, home)
    assert helm_reads_every_record(cluster, helm, namespace, "r") == ["deployed"]
    assert lease_holder(cluster, namespace, "r") is None
    logs = [p.read_text(errors="replace") for p in cluster.testbed.workdir.glob("*.log")]
    assert not any(CANARY_SET[1].split("=", 1)[1] in text for text in logs)


def _runs(chart: Path, rounds: int) -> list[list[str]]:
    """install, upgrades with hooks and waits, a rollback, reads."""
    deploy = ["--wait", "--timeout", "120s", *CANARY_SET]
    runs = [["install", "f", str(chart), *deploy]]
    for i in range(rounds):
        runs.append(["upgrade", "f", str(chart), "--set", f"message=m{i}", "--set", "settle=0", *deploy])
        runs += [["status", "f"], ["history", "f"], ["list"]]
    runs.append(["rollback", "f", "1", "--wait", "--timeout", "120s"])
    return runs


def test_every_run_through_a_faulty_api_server_ends_deployed_and_loses_no_record(cluster, home, tmp_path):
    namespace = create_namespace(cluster, f"faults-{uuid.uuid4().hex[:8]}")
    chart = write_chart(tmp_path)
    helm = helm_runner(cluster.kubeconfig, home)
    writes = 0
    with FaultProxy(cluster.testbed, FAULTS, seed=12) as proxy:
        kubeconfig = proxy.kubeconfig(tmp_path / "through-proxy")
        for argv in _runs(chart, scale(2, 12)):
            done = run(home, kubeconfig, namespace, *argv)
            where = f"{' '.join(argv[:2])}: {done.err}"
            assert done.code == 0 and not is_python_crash(done.err), where
            if argv[0] in ("install", "upgrade", "rollback"):
                writes += 1
                assert lease_holder(cluster, namespace, "f") is None, where
                statuses = helm_reads_every_record(cluster, helm, namespace, "f")
                assert statuses[0] == "deployed", (where, statuses)
            FIGURES.add("api server faults", "runs through the proxy")
    FIGURES.add("api server faults", "requests through the proxy", proxy.requests)
    for kind, n in proxy.counts.items():
        FIGURES.add("api server faults", f"injected {kind}", n)
    revisions = sorted(record_secrets(cluster, namespace, "f"))
    assert revisions == list(range(1, writes + 1)) and contiguous(revisions)  # none lost
    assert sum(proxy.counts[k] for k in ("drop_after", "timeout_after")) > 0
