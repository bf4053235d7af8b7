"""upgrade over the fake cluster: superseded / pending-upgrade / deployed / failed,
cleanup and rollback on failure, recovery, and what stays in the cluster."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from runner.actions.install import install
from runner.actions.prepare import UpgradeOptions
from runner.actions.release_config import PendingError
from runner.actions.upgrade import upgrade
from runner.errors import RunnerError, UsageError
from runner.release.record import PENDING_UPGRADE
from tests.unit.actions.asking import asked
from tests.unit.fakes.storage import history, statuses

KEPT = {"kept.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: app-kept
  annotations: {"helm.sh/resource-policy": keep}
"""}
EXTRA = {"extra.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: app-svc\n"}


def _install(cfg, journal, chart_path, **flags):
    return install(cfg, journal, *asked(name="app", chart=chart_path, **flags))


def _upgrade(cfg, journal, chart_path, own=None, **flags):
    return upgrade(cfg, journal, *asked(name="app", chart=chart_path, own=own, **flags))


def test_an_upgrade_supersedes_the_deployed_revision(cfg, journal, fake, driver, chart):
    _install(cfg, journal, chart(extra={**KEPT, **EXTRA}))

    result = _upgrade(cfg, journal, chart("1.1.0"), values={"message": "two"})

    assert history(cfg.storage, "app") == [(1, "superseded", "Install complete"),
                                           (2, "deployed", "Upgrade complete")]
    assert statuses(driver, 2) == ["pending-upgrade", "deployed"]
    assert fake.get("ConfigMap", "app-cm")["data"] == {"message": "two"}
    assert fake.names("Service") == []  # no longer rendered: deleted
    assert fake.names("ConfigMap") == ["app-cm", "app-kept"]  # resource-policy keep
    assert result.deleted == ["Service/app-svc"] and result.kept == ["ConfigMap/app-kept"]
    assert cfg.storage.get("app", 2).info.first_deployed == cfg.storage.get("app", 1).info.first_deployed


def test_the_record_is_pending_upgrade_while_hooks_run(cfg, journal, fake, driver, chart):
    _install(cfg, journal, chart())
    seen = []
    run_hook = fake.create_hook
    fake.create_hook = lambda resources, **kw: (seen.append(history(cfg.storage, "app")),
                                                run_hook(resources, **kw))[1]

    _upgrade(cfg, journal, chart())

    assert seen[0] == [(1, "deployed", "Install complete"), (2, PENDING_UPGRADE, "Preparing upgrade")]


def test_a_failed_upgrade_is_recorded_failed_and_the_deployed_one_stays(cfg, journal, fake, chart):
    _install(cfg, journal, chart())
    fake.fail("apply", "Deployment/app-web", "quota exceeded")

    with pytest.raises(RunnerError, match="quota exceeded"):
        _upgrade(cfg, journal, chart(), values={"message": "two"})

    [first, second] = history(cfg.storage, "app")
    assert first[:2] == (1, "deployed")
    assert second[:2] == (2, "failed") and second[2].startswith('Upgrade "app" failed: ')
    assert fake.lock_log == ["acquire app", "release app"] * 2


def test_cleanup_on_fail_deletes_only_what_the_upgrade_created(cfg, journal, fake, chart):
    _install(cfg, journal, chart())
    fake.never_ready("Service/app-svc")

    with pytest.raises(RunnerError, match="not ready"):
        _upgrade(cfg, journal, chart(extra=EXTRA), UpgradeOptions(cleanup_on_fail=True), wait=True)

    assert fake.names("Service") == []
    assert fake.names("ConfigMap") == ["app-cm"] and fake.names("Deployment") == ["app-web"]
    assert history(cfg.storage, "app")[-1][1] == "failed"


def test_rollback_on_failure_rolls_back_inside_the_same_lock(cfg, journal, fake, chart):
    _install(cfg, journal, chart())
    fake.never_ready("Service/app-svc")

    with pytest.raises(RunnerError) as raised:
        _upgrade(cfg, journal, chart(extra=EXTRA), values={"message": "two"}, rollback_on_failure=True)

    assert str(raised.value).startswith("release app failed, and has been rolled back due to "
                                        "rollback-on-failure being set: resource Service/ns/app-svc")
    assert [h[:2] for h in history(cfg.storage, "app")] == [
        (1, "superseded"), (2, "failed"), (3, "deployed")]
    assert history(cfg.storage, "app")[2][2] == "Rollback to 1"
    assert fake.get("ConfigMap", "app-cm")["data"] == {"message": "hello"}
    assert fake.names("Service") == []
    # one lock for the upgrade and its rollback: the fake refuses a second acquire
    assert fake.lock_log == ["acquire app", "release app", "acquire app", "release app"]


def test_rollback_on_failure_without_a_good_revision_says_so(cfg, journal, fake, chart):
    fake.fail("apply", "ConfigMap/app-cm")
    with pytest.raises(RunnerError):
        _install(cfg, journal, chart())

    with pytest.raises(RunnerError, match="unable to find a previously successful release"):
        _upgrade(cfg, journal, chart(), rollback_on_failure=True)
    assert [h[:2] for h in history(cfg.storage, "app")] == [(1, "failed"), (2, "failed")]


def test_an_interrupted_upgrade_is_recorded_failed(cfg, journal, fake, chart):
    _install(cfg, journal, chart())
    fake.interrupt("apply", "ConfigMap/app-cm")

    with pytest.raises(RunnerError, match="^context canceled$"):
        _upgrade(cfg, journal, chart())

    assert history(cfg.storage, "app")[-1] == (2, "failed", 'Upgrade "app" failed: context canceled')
    assert history(cfg.storage, "app")[0][1] == "deployed"
    assert fake.lock_log[-1] == "release app"
    told = [(m.kind, m.text) for m in journal.messages]
    assert ("notice", "Release app has been cancelled.") in told
    assert ("warning", 'level=WARN msg="upgrade failed" name=app error="context canceled"') in told


def test_upgrading_a_failed_release_supersedes_it(cfg, journal, fake, chart):
    fake.fail("apply", "ConfigMap/app-cm")
    with pytest.raises(RunnerError):
        _install(cfg, journal, chart())
    fake._failures.clear()

    _upgrade(cfg, journal, chart())

    assert [h[:2] for h in history(cfg.storage, "app")] == [(1, "superseded"), (2, "deployed")]


def test_upgrading_nothing_fails_and_install_installs(cfg, journal, fake, chart):
    with pytest.raises(RunnerError, match='"app" has no deployed releases'):
        _upgrade(cfg, journal, chart())

    result = _upgrade(cfg, journal, chart(), UpgradeOptions(install=True))

    assert result.release.version == 1
    assert history(cfg.storage, "app") == [(1, "deployed", "Install complete")]


def test_upgrade_install_over_an_uninstalled_release_replaces_it(cfg, journal, fake, chart):
    from runner.actions.uninstall import UninstallOptions, uninstall

    _install(cfg, journal, chart())
    uninstall(cfg, journal, UninstallOptions(name="app", keep_history=True))

    _upgrade(cfg, journal, chart(), UpgradeOptions(install=True))

    assert [h[:2] for h in history(cfg.storage, "app")] == [(1, "superseded"), (2, "deployed")]
    assert fake.names("ConfigMap") == ["app-cm"]


def test_a_stranded_pending_upgrade_is_marked_failed_and_the_upgrade_proceeds(cfg, journal, fake, chart):
    _install(cfg, journal, chart())
    stranded = cfg.storage.get("app", 1)
    stranded.version, stranded.info.status = 2, PENDING_UPGRADE
    stranded.info.last_deployed = (datetime.now(UTC) - timedelta(minutes=10)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")
    cfg.storage.create(stranded, 0)

    result = _upgrade(cfg, journal, chart(), timeout=300)

    assert result.notes == ["revision 2 was left pending by an abandoned operation; marked failed"]
    [first, second, third] = history(cfg.storage, "app")
    assert first[1] == "superseded" and third[:2] == (3, "deployed")
    assert second[1] == "failed" and "no lock and no progress" in second[2]


def test_a_pending_release_refuses_a_dry_run(cfg, journal, chart):
    _install(cfg, journal, chart())
    pending = cfg.storage.get("app", 1)
    pending.version, pending.info.status = 2, PENDING_UPGRADE
    cfg.storage.create(pending, 0)

    with pytest.raises(PendingError):
        _upgrade(cfg, journal, chart(), dry_run="server")


def test_auto_follows_a_client_side_record_and_explains_force_conflicts(cfg, journal, fake, chart):
    _install(cfg, journal, chart(), server_side="false")

    result = _upgrade(cfg, journal, chart(), force_conflicts=True)

    assert result.release.apply_method == "csa"
    assert result.notes and "--force-conflicts has no effect here" in result.notes[0]
    switched = _upgrade(cfg, journal, chart(), server_side="true")
    assert switched.release.apply_method == "ssa"


def test_history_max_prunes_the_oldest_records_never_the_deployed_one(cfg, journal, chart):
    _install(cfg, journal, chart())
    for _ in range(4):
        _upgrade(cfg, journal, chart(), UpgradeOptions(history_max=2))
    assert [h[:2] for h in history(cfg.storage, "app")] == [(4, "superseded"), (5, "deployed")]


def test_values_are_reused_when_none_are_given_and_labels_merge(cfg, journal, chart):
    _install(cfg, journal, chart(), values={"message": "custom"}, labels={"team": "web", "tier": "1"})

    result = _upgrade(cfg, journal, chart(), labels={"tier": "null", "env": "prod"})

    assert result.release.config == {"message": "custom"}
    assert cfg.storage.get("app", 2).labels == {"team": "web", "env": "prod"}
    reset = _upgrade(cfg, journal, chart(), UpgradeOptions(reset_values=True))
    assert reset.release.config == {}


def test_a_server_dry_run_writes_nothing(cfg, journal, fake, driver, chart):
    _install(cfg, journal, chart())
    writes = len(driver.writes)

    result = _upgrade(cfg, journal, chart(), values={"message": "two"}, dry_run="server")

    assert result.release.info.description == "Dry run complete" and result.release.version == 2
    assert result.updated == ["ConfigMap/app-cm", "Deployment/app-web"]
    assert len(driver.writes) == writes
    assert fake.get("ConfigMap", "app-cm")["data"] == {"message": "hello"}


def test_upgrade_install_dry_run_of_a_new_release_hides_secrets(cfg, journal, fake, chart):
    secret = {"s.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  p: hunter2\n"}

    for dry_run in ("client", "server"):
        result = _upgrade(cfg, journal, chart(extra=secret), UpgradeOptions(install=True),
                          dry_run=dry_run, hide_secret=True)
        assert "hunter2" not in result.release.manifest and "kind: Secret" not in result.release.manifest
        assert "app-cm" in result.release.manifest


def test_force_replace_excludes_force_conflicts(cfg, journal, chart):
    with pytest.raises(UsageError, match="mutually exclusive"):
        _upgrade(cfg, journal, chart(), UpgradeOptions(force_replace=True), force_conflicts=True)


def test_adopting_a_new_object_of_another_owner_needs_take_ownership(cfg, journal, fake, chart):
    _install(cfg, journal, chart())
    fake.put({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "app-svc"}})

    with pytest.raises(RunnerError, match="^unable to continue with update: Service \"app-svc\""):
        _upgrade(cfg, journal, chart(extra=EXTRA))
    assert len(cfg.storage.heads("app")) == 1

    _upgrade(cfg, journal, chart(extra=EXTRA), take_ownership=True)
    svc = fake.get("Service", "app-svc")
    assert svc["metadata"]["annotations"]["meta.helm.sh/release-name"] == "app"
