"""kill -9 at random points of upgrades with hooks and --wait, then recovery.

After each kill: every record is one Helm reads (none half-written, none lost), and
once the dead run's Lease has expired the next upgrade works, marking a revision the
killed run left pending failed. The quick profile moves the Lease's renewTime back (what
waiting for it does, at once); the full one also waits for a real expiry once.
"""

from __future__ import annotations

import random
import signal
import time

import pytest

from tests.reliability.campaign import (
    CANARY_SET,
    FIGURES,
    FULL,
    PENDING,
    age_lease,
    finish,
    helm_reads_every_record,
    interrupt_after,
    is_python_crash,
    lease_holder,
    run,
    scale,
    start,
    write_chart,
)

pytestmark = pytest.mark.e2e

DEPLOY = ("--wait", "--timeout", "120s", *CANARY_SET)


def test_upgrades_killed_at_random_points_leave_records_helm_reads_and_recover(
        cluster, helm, home, namespace, tmp_path):
    rng = random.Random(9)
    chart = write_chart(tmp_path)
    begun = time.monotonic()
    assert run(home, cluster.kubeconfig, namespace, "install", "k", str(chart), *DEPLOY).code == 0
    span = (time.monotonic() - begun) * 1.2  # kills fall anywhere in a run, or just after it
    checked: set[bytes] = set()
    for n in range(scale(4, 30)):
        process = start(home, cluster.kubeconfig, namespace, "upgrade", "k", str(chart),
                        "--set", f"message=k{n}", *DEPLOY)
        killed = interrupt_after(process, rng.uniform(0.0, span), signal.SIGKILL)
        done = finish(process, "killed upgrade")
        assert not is_python_crash(done.err), done.err
        FIGURES.add("kill -9", "upgrades killed" if killed else "upgrades finished before the kill")
        statuses = helm_reads_every_record(cluster, helm, namespace, "k", checked)
        assert run(home, cluster.kubeconfig, namespace, "history", "k").code == 0
        stranded = statuses[0].startswith("pending")
        _recover(cluster, home, namespace, chart, expire=FULL and n == 0)
        statuses = helm_reads_every_record(cluster, helm, namespace, "k", checked)
        assert statuses[0] == "deployed" and not any(s.startswith("pending") for s in statuses), statuses
        FIGURES.add("kill -9", "pending revisions recovered" if stranded else "recoveries")


def _recover(cluster, home, namespace: str, chart, *, expire: bool) -> None:
    """The next upgrade once the dead run's lock has expired: at once (renewTime moved back),
    or, `expire`, after waiting out the Lease for real (refused while it is live)."""
    if lease_holder(cluster, namespace, "k") is not None:
        if expire:
            refused = run(home, cluster.kubeconfig, namespace, "upgrade", "k", str(chart), *DEPLOY)
            assert refused.code != 0 and PENDING in refused.err, refused.err
            done = run(home, cluster.kubeconfig, namespace, "upgrade", "k", str(chart),
                       "--wait-for-lock", "90s", *DEPLOY)
            FIGURES.add("kill -9", "real lease expiries waited for")
            assert done.code == 0, done.err
            return
        age_lease(cluster, namespace, "k")
    done = run(home, cluster.kubeconfig, namespace, "upgrade", "k", str(chart), *DEPLOY)
    assert done.code == 0, done.err
