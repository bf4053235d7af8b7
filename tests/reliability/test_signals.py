"""SIGINT and SIGTERM at random points of installs and upgrades with hooks and --wait.

What Helm does with a cancelled operation (handleContext), and what a CI runner's
cancel (SIGTERM) must do as well: the run ends with an error, no traceback (a signal
in the first milliseconds, before the handler is set, ends the process as it ends
Helm's); the revision it was writing ends failed with the reason ("context canceled"),
or was never written, or was completed; the lock is given back at once, so the next
run goes ahead without waiting for the Lease to expire.
"""

from __future__ import annotations

import random
import signal
import time

import pytest

from tests.reliability.campaign import (
    CANARY_SET,
    FIGURES,
    SIGNAL_NAMES,
    finish,
    helm_reads_every_record,
    interrupt_after,
    is_python_crash,
    lease_holder,
    run,
    scale,
    start,
    storage,
    write_chart,
)

pytestmark = pytest.mark.e2e

DEPLOY = ("--wait", "--timeout", "120s", *CANARY_SET)
SIGNALS = [signal.SIGINT, signal.SIGTERM]  # Ctrl-C; docker stop, a cancelled CI job


@pytest.mark.parametrize("signum", SIGNALS, ids=[SIGNAL_NAMES[s] for s in SIGNALS])
def test_an_interrupted_run_ends_failed_with_a_reason_and_gives_the_lock_back(
        signum, cluster, helm, home, namespace, tmp_path):
    rng = random.Random(int(signum))
    chart = write_chart(tmp_path)
    checked: set[bytes] = set()
    name = "s"
    begun = time.monotonic()
    assert run(home, cluster.kubeconfig, namespace, "install", name, str(chart), *DEPLOY).code == 0
    span = (time.monotonic() - begun) * 1.2
    for n in range(scale(3, 12)):
        verb = "install" if n % 3 == 2 else "upgrade"
        if verb == "install":  # a first install interrupted: uninstall first
            assert run(home, cluster.kubeconfig, namespace, "uninstall", name, "--wait").code == 0
        process = start(home, cluster.kubeconfig, namespace, verb, name, str(chart),
                        "--set", f"message=s{n}", *DEPLOY)
        sent = interrupt_after(process, rng.uniform(0.0, span * 0.8), signum)
        done = finish(process, f"interrupted {verb}")
        FIGURES.add("signals", f"{SIGNAL_NAMES[signum]} sent" if sent else "runs finished before the signal")
        where = f"{verb} #{n}: {done.err}"
        assert not is_python_crash(done.err), where
        if sent and done.code not in (0, -signum):  # -signum: stopped before its handler was set
            assert done.err.rstrip().endswith("interrupted") or "context canceled" in done.err, where
        assert lease_holder(cluster, namespace, name) is None, where  # given back, not left to expire
        statuses = helm_reads_every_record(cluster, helm, namespace, name, checked)
        assert statuses[:1] in ([], ["deployed"], ["failed"]), (where, statuses)
        if statuses[:1] == ["failed"]:
            last = storage(cluster, namespace).last(name)
            assert last.info.description.endswith("context canceled"), (where, last.info.description)
            FIGURES.add("signals", "revisions recorded failed: context canceled")
        again = run(home, cluster.kubeconfig, namespace, "upgrade", name, str(chart), "--install", *DEPLOY)
        assert again.code == 0, (where, again.err)  # at once: no lease to wait out
