"""Twenty processes upgrading one release at once, with and without --wait-for-lock.

Without it, one (or a few, one after another) win and every other gets Helm's errPending
with who holds the lock, one line, no traceback. With it, every one gets its turn. Either
way the revisions are contiguous, exactly one is deployed, every record is one Helm reads,
and the lock is given back.
"""

from __future__ import annotations

import pytest

from tests.reliability.campaign import (
    CANARY_SET,
    CM_ONLY,
    FIGURES,
    PENDING,
    finish,
    helm_reads_every_record,
    is_python_crash,
    lease_holder,
    record_secrets,
    run,
    scale,
    start,
    write_chart,
)

pytestmark = pytest.mark.e2e

PROCESSES = 20


@pytest.mark.parametrize("wait_for_lock", [False, True], ids=["refused", "queued"])
def test_twenty_processes_on_one_release(wait_for_lock, cluster, helm, home, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert run(home, cluster.kubeconfig, namespace, "install", "c", str(chart), *CANARY_SET).code == 0
    queue = ["--wait-for-lock", "600s"] if wait_for_lock else []
    upgrades = 0
    for round_ in range(scale(1, 3)):
        processes = [start(home, cluster.kubeconfig, namespace, "upgrade", "c", str(chart), "--set",
                           f"message=r{round_}p{i}", "--history-max", "0", *CANARY_SET, *queue)
                     for i in range(PROCESSES)]
        done = [finish(p, "concurrent upgrade") for p in processes]
        FIGURES.add("concurrency", f"processes ({'queued' if wait_for_lock else 'refused'})", len(done))
        winners = [d for d in done if d.code == 0]
        losers = [d for d in done if d.code != 0]
        assert not [d.err for d in done if is_python_crash(d.err)]
        assert all(d.err.startswith(f"Error: UPGRADE FAILED: {PENDING} (held by ")
                   and d.err.count("\n") == 1 for d in losers), [d.err for d in losers]
        assert len(winners) == (PROCESSES if wait_for_lock else len(winners)) and winners
        FIGURES.add("concurrency", "refused with errPending", len(losers))
        upgrades += len(winners)
        revisions = sorted(record_secrets(cluster, namespace, "c"))
        assert revisions == list(range(1, upgrades + 2))  # contiguous, none lost
        statuses = helm_reads_every_record(cluster, helm, namespace, "c")
        assert statuses == ["deployed"] + ["superseded"] * upgrades
        assert lease_holder(cluster, namespace, "c") is None
