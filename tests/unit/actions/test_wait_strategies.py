"""Which waiter each action uses, by --wait, as Helm 4.1.4's actions pick it: hooks follow
--wait (hookOnly unless waiting; --rollback-on-failure raises it to watcher), test hooks
always use the watcher, uninstall --wait=legacy deletes the legacy way."""

from __future__ import annotations

import pytest

from runner.actions.install import install
from runner.actions.release_test import TestOptions as ReleaseTestOptions
from runner.actions.release_test import run_tests
from runner.actions.uninstall import UninstallOptions, uninstall
from tests.unit.actions.asking import asked


@pytest.mark.parametrize(("flags", "hooks", "objects"), [
    ({}, "hookOnly", None),
    ({"wait": True}, "watcher", "watcher"),
    ({"wait": True, "wait_strategy": "legacy"}, "legacy", "legacy"),
    ({"rollback_on_failure": True}, "watcher", "watcher"),
])
def test_install_waits_for_hooks_and_objects_by_the_strategy(cfg, journal, fake, chart, flags, hooks, objects):
    install(cfg, journal, *asked(name="app", chart=chart(), **flags))
    # pre-install (then its hook-succeeded deletion), the objects, post-install (the same)
    expected = [("hook", hooks), ("hook deleted", hooks), *([("wait", objects)] if objects else []),
                ("hook", hooks), ("hook deleted", hooks)]
    assert fake.waiters == expected


TEST_POD = """apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-test
  annotations: {"helm.sh/hook": test}
spec:
  containers: [{name: t, image: busybox}]
"""


def test_test_hooks_always_use_the_watcher_and_uninstall_the_strategy_given(cfg, journal, fake, chart):
    install(cfg, journal, *asked(name="app", chart=chart(extra={"test.yaml": TEST_POD})))
    fake.waiters.clear()
    run_tests(cfg, journal, ReleaseTestOptions(name="app"))
    assert fake.waiters == [("hook deleted", "watcher"), ("hook", "watcher")]  # before-hook-creation first
    fake.waiters.clear()
    uninstall(cfg, journal, UninstallOptions(name="app", wait=True, wait_strategy="legacy"))
    assert fake.waiters == [("deleted", "legacy")]
