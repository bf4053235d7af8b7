"""rollback, uninstall and test over the fake cluster: records and objects after each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from runner.actions.install import install
from runner.actions.release_test import TestOptions as ReleaseTestOptions
from runner.actions.release_test import pod_logs, run_tests
from runner.actions.rollback import RollbackOptions, rollback
from runner.actions.uninstall import UninstallOptions, uninstall
from runner.actions.upgrade import upgrade
from runner.errors import RunnerError
from runner.release.record import PENDING_ROLLBACK
from tests.unit.actions.asking import asked
from tests.unit.fakes.storage import history, statuses

EXTRA = {"extra.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: app-svc\n"}
KEPT = {"kept.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: app-kept
  annotations: {"helm.sh/resource-policy": " Keep "}
"""}
TEST_HOOK = {"test.yaml": """apiVersion: v1
kind: Pod
metadata:
  name: app-test
  annotations: {"helm.sh/hook": test}
spec:
  containers: [{name: t, image: busybox}]
"""}


@pytest.fixture
def two_revisions(cfg, journal, chart):
    """app at revision 2 (deployed, with a Service), revision 1 superseded."""
    install(cfg, journal, *asked(name="app", chart=chart()))
    upgrade(cfg, journal, *asked(name="app", chart=chart(extra=EXTRA), values={"message": "two"}))


# -- rollback ---------------------------------------------------------------------


def test_a_rollback_writes_a_new_revision_with_the_old_content(cfg, journal, fake, driver, two_revisions):
    result = rollback(cfg, journal, RollbackOptions(name="app", revision=1))

    assert history(cfg.storage, "app") == [(1, "superseded", "Install complete"),
                                           (2, "superseded", "Upgrade complete"),
                                           (3, "deployed", "Rollback to 1")]
    assert statuses(driver, 3) == [PENDING_ROLLBACK, "deployed"]
    assert fake.get("ConfigMap", "app-cm")["data"] == {"message": "hello"}
    assert fake.names("Service") == [] and result.deleted == ["Service/app-svc"]
    assert cfg.storage.get("app", 3).config == cfg.storage.get("app", 1).config


def test_a_failed_rollback_apply_is_recorded_failed(cfg, journal, fake, two_revisions):
    fake.fail("apply", "ConfigMap/app-cm", "etcd is sad")

    with pytest.raises(RunnerError, match="etcd is sad"):
        rollback(cfg, journal, RollbackOptions(name="app"))

    last = history(cfg.storage, "app")[-1]
    assert last[:2] == (3, "failed") and last[2].startswith('Rollback "app" failed: ')
    assert history(cfg.storage, "app")[1][1] == "superseded"


def test_an_interrupted_rollback_is_recorded_failed_not_left_pending(cfg, journal, fake, two_revisions):
    fake.interrupt("apply", "ConfigMap/app-cm")

    with pytest.raises(KeyboardInterrupt):
        rollback(cfg, journal, RollbackOptions(name="app"))

    assert history(cfg.storage, "app")[-1] == (3, "failed", 'Rollback "app" failed: context canceled')
    assert fake.lock_log[-1] == "release app"


def test_a_rollback_that_does_not_become_ready_fails_with_wait(cfg, journal, fake, two_revisions):
    fake.never_ready("Deployment/app-web")

    with pytest.raises(RunnerError, match="^release app failed: resource Deployment/ns/app-web"):
        rollback(cfg, journal, RollbackOptions(name="app", wait=True))

    assert history(cfg.storage, "app")[-1][:2] == (3, "failed")
    assert history(cfg.storage, "app")[-1][2].startswith('Release "app" failed: ')


def test_rollback_to_a_missing_revision_and_a_dry_run_write_nothing(cfg, journal, driver, two_revisions):
    writes = len(driver.writes)
    with pytest.raises(RunnerError, match="release has no 7 version"):
        rollback(cfg, journal, RollbackOptions(name="app", revision=7))
    result = rollback(cfg, journal, RollbackOptions(name="app", dry_run="client"))
    assert result.release.version == 3 and result.release.info.description == "Rollback to 1"
    assert len(driver.writes) == writes


def test_a_rollback_follows_the_target_revisions_apply_method(cfg, journal, chart):
    install(cfg, journal, *asked(name="app", chart=chart(), server_side="false"))
    upgrade(cfg, journal, *asked(name="app", chart=chart(), server_side="true"))

    result = rollback(cfg, journal, RollbackOptions(name="app", revision=1, force_conflicts=True))

    assert result.release.apply_method == "csa"
    assert "the target revision's apply method is csa" in result.notes[0]


def test_a_rollback_recovers_a_stranded_pending_record(cfg, journal, two_revisions):
    stranded = cfg.storage.get("app", 2)
    stranded.version, stranded.info.status = 3, "pending-upgrade"
    stranded.info.last_deployed = (datetime.now(UTC) - timedelta(hours=1)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")
    cfg.storage.create(stranded, 0)

    result = rollback(cfg, journal, RollbackOptions(name="app", revision=1))

    assert result.notes[0].startswith("revision 3 was left pending")
    assert [h[1] for h in history(cfg.storage, "app")] == [
        "superseded", "superseded", "failed", "deployed"]


def test_a_rollback_waits_for_no_lock_held_elsewhere(cfg, journal, fake, driver, two_revisions):
    fake.hold_lock("app")
    writes = len(driver.writes)
    with pytest.raises(RunnerError, match="another operation .install/upgrade/rollback. is in progress"):
        rollback(cfg, journal, RollbackOptions(name="app"))
    assert len(driver.writes) == writes


# -- uninstall --------------------------------------------------------------------


def test_uninstall_deletes_objects_and_records_but_keeps_kept_ones(cfg, journal, fake, driver, chart):
    install(cfg, journal, *asked(name="app", chart=chart(extra=KEPT)))

    result = uninstall(cfg, journal, UninstallOptions(name="app"))

    assert cfg.storage.heads("app") == []
    assert statuses(driver, 1) == ["pending-install", "deployed", "uninstalling"]
    assert fake.names("Deployment") == [] and fake.names("ConfigMap") == ["app-kept"]
    assert result.info == ("These resources were kept due to the resource policy:\n"
                           "[ConfigMap] app-kept\n")


def test_keep_history_leaves_an_uninstalled_record(cfg, journal, fake, chart):
    install(cfg, journal, *asked(name="app", chart=chart()))

    uninstall(cfg, journal, UninstallOptions(name="app", keep_history=True, description="gone"))

    assert history(cfg.storage, "app") == [(1, "uninstalled", "gone")]
    with pytest.raises(RunnerError, match='the release named "app" is already deleted'):
        uninstall(cfg, journal, UninstallOptions(name="app", keep_history=True))
    uninstall(cfg, journal, UninstallOptions(name="app"))  # without --keep-history: purged
    assert cfg.storage.heads("app") == []


def test_uninstalling_nothing(cfg, journal):
    with pytest.raises(RunnerError, match="uninstall: Release not loaded: app: release: not found"):
        uninstall(cfg, journal, UninstallOptions(name="app"))
    assert uninstall(cfg, journal, UninstallOptions(name="app", ignore_not_found=True)) is None


def test_delete_errors_are_reported_after_the_rest_is_removed(cfg, journal, fake, chart):
    install(cfg, journal, *asked(name="app", chart=chart()))
    fake.fail("delete", "ConfigMap/app-cm", "forbidden")

    with pytest.raises(RunnerError, match=r"uninstallation completed with 1 error\(s\): .*forbidden"):
        uninstall(cfg, journal, UninstallOptions(name="app"))

    assert cfg.storage.heads("app") == []
    assert fake.names("Deployment") == [] and fake.names("ConfigMap") == ["app-cm"]


def test_a_failing_pre_delete_hook_leaves_the_record_uninstalling(cfg, journal, fake, chart):
    hook = {"pre-delete.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: app-bye
  annotations: {"helm.sh/hook": pre-delete}
spec: {template: {spec: {containers: [{name: b, image: busybox}]}}}
"""}
    install(cfg, journal, *asked(name="app", chart=chart(extra=hook)))
    fake.fail("hook", "Job/app-bye", "job failed")

    with pytest.raises(RunnerError, match="job failed"):
        uninstall(cfg, journal, UninstallOptions(name="app"))

    assert history(cfg.storage, "app") == [
        (1, "uninstalling", "Deletion in progress (or silently failed)")]
    assert fake.names("Deployment") == ["app-web"]


def test_uninstall_dry_run_changes_nothing(cfg, journal, fake, driver, chart):
    install(cfg, journal, *asked(name="app", chart=chart()))
    objects, writes = dict(fake.objects), len(driver.writes)
    assert uninstall(cfg, journal, UninstallOptions(name="app", dry_run=True)).release.version == 1
    assert fake.objects == objects and len(driver.writes) == writes


# -- test ---------------------------------------------------------------------------


def test_release_tests_record_their_runs_and_a_failure(cfg, journal, fake, chart):
    install(cfg, journal, *asked(name="app", chart=chart(extra=TEST_HOOK)))
    fake.logs["app-test"] = "all good\n"

    run = run_tests(cfg, journal, ReleaseTestOptions(name="app"))
    assert run.error is None
    assert _test_hook(cfg, journal).last_run.phase == "Succeeded"
    assert pod_logs(cfg, journal, run.release, ReleaseTestOptions(name="app")) == "POD LOGS: app-test\nall good\n\n"

    fake.fail("hook", "Pod/app-test", "pod failed")
    failed = run_tests(cfg, journal, ReleaseTestOptions(name="app"))
    assert failed.error is not None and "pod failed" in str(failed.error)
    assert _test_hook(cfg, journal).last_run.phase == "Failed"


def test_release_test_logs_hide_the_releases_secrets(cfg, journal, fake, chart):
    secret = {"secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-db\n"
                             "stringData:\n  password: canary-pw-4711\n"}
    install(cfg, journal, *asked(name="app", chart=chart(extra={**TEST_HOOK, **secret})))
    fake.logs["app-test"] = "connecting with canary-pw-4711\n"

    run = run_tests(cfg, journal, ReleaseTestOptions(name="app"))
    logs = pod_logs(cfg, journal, run.release, ReleaseTestOptions(name="app"))
    assert logs == "POD LOGS: app-test\nconnecting with [REDACTED]\n\n"


def _test_hook(cfg, journal):
    return next(h for h in cfg.storage.get("app", 1).hooks if h.name == "app-test")
