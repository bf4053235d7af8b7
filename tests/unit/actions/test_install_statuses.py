"""install over the fake cluster: the records a user sees in `history`, the objects
left in the cluster, and the errors, for each way an install ends."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from runner.actions.install import install
from runner.actions.prepare import InstallError, InstallOptions
from runner.actions.release_config import PendingError
from runner.actions.results import NOTICE
from runner.actions.upgrade import upgrade
from runner.errors import RunnerError
from runner.kube.apply import ApplyConflictError
from runner.release.record import PENDING_INSTALL, Info, Release
from tests.unit.actions.asking import asked
from tests.unit.fakes.storage import history, statuses


def _install(cfg, journal, chart_path, own=None, **flags):
    return install(cfg, journal, *asked(name="app", chart=chart_path, own=own, **flags))


def test_an_install_goes_from_pending_install_to_deployed(cfg, journal, fake, driver, chart):
    result = _install(cfg, journal, chart())

    assert history(cfg.storage, "app") == [(1, "deployed", "Install complete")]
    assert statuses(driver, 1) == ["pending-install", "deployed"]
    assert result.release.apply_method == "ssa" and result.release.info.notes == "app says hello\n"
    assert result.created == ["ConfigMap/app-cm", "Deployment/app-web"]
    stored = fake.get("ConfigMap", "app-cm")
    assert stored["data"] == {"message": "hello"}
    assert stored["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
    assert stored["metadata"]["annotations"]["meta.helm.sh/release-name"] == "app"
    hook = cfg.storage.get("app", 1).hooks[0]
    assert hook.last_run.phase == "Succeeded"
    assert fake.get("Job", "app-migrate") is None  # hook-succeeded: deleted after it ran
    assert fake.lock_log == ["acquire app", "release app"]


def test_a_failed_apply_marks_the_install_failed(cfg, journal, fake, driver, chart):
    fake.fail("apply", "Deployment/app-web", "admission webhook denied it")

    with pytest.raises(RunnerError, match="admission webhook denied it"):
        _install(cfg, journal, chart())

    [(revision, status, description)] = history(cfg.storage, "app")
    assert (revision, status) == (1, "failed")
    assert description == 'Release "app" failed: admission webhook denied it'  # the server's text alone
    assert statuses(driver, 1) == ["pending-install", "failed"]
    assert fake.lock_log == ["acquire app", "release app"]


def test_a_failed_pre_install_hook_fails_the_install_before_any_object(cfg, journal, fake, chart):
    fake.fail("hook", "Job/app-migrate", "job failed: BackoffLimitExceeded")

    with pytest.raises(RunnerError, match="BackoffLimitExceeded"):
        _install(cfg, journal, chart())

    assert history(cfg.storage, "app")[0][1] == "failed"
    assert cfg.storage.get("app", 1).hooks[0].last_run.phase == "Failed"
    assert fake.names("ConfigMap") == [] and fake.names("Deployment") == []


def test_wait_failure_fails_the_install_and_leaves_its_objects(cfg, journal, fake, chart):
    fake.never_ready("Deployment/app-web")

    with pytest.raises(RunnerError) as raised:
        _install(cfg, journal, chart(), wait=True)

    assert "resource Deployment/ns/app-web not ready" in str(raised.value)
    assert history(cfg.storage, "app")[0][1] == "failed"
    assert fake.names("Deployment") == ["app-web"]


def test_rollback_on_failure_removes_what_the_install_created_and_its_record(cfg, journal, fake, chart):
    fake.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app-cm"}})
    fake.never_ready("Deployment/app-web")

    with pytest.raises(RunnerError) as raised:
        _install(cfg, journal, chart(), rollback_on_failure=True, take_ownership=True)

    assert str(raised.value).startswith("release app failed, and has been uninstalled due to "
                                        "rollback-on-failure being set: resource Deployment")
    assert cfg.storage.heads("app") == []
    assert fake.names("Deployment") == []  # created by the install: removed
    assert fake.names("ConfigMap") == ["app-cm"]  # existed before (adopted): stays


def test_an_interrupted_install_is_recorded_failed_and_unlocked(cfg, journal, fake, driver, chart):
    fake.interrupt("wait", "Deployment/app-web")

    with pytest.raises(InstallError, match="^context canceled$"):
        _install(cfg, journal, chart(), wait=True)

    assert history(cfg.storage, "app") == [(1, "failed", 'Release "app" failed: context canceled')]
    assert fake.lock_log == ["acquire app", "release app"]
    assert (NOTICE, "Release app has been cancelled.") in [(m.kind, m.text) for m in journal.messages]


def test_an_interrupted_install_with_rollback_on_failure_is_uninstalled(cfg, journal, fake, chart):
    """Helm's failRelease runs for a cancelled install too: --rollback-on-failure undoes it."""
    fake.interrupt("wait", "Deployment/app-web")

    with pytest.raises(InstallError) as raised:
        _install(cfg, journal, chart(), rollback_on_failure=True)

    assert str(raised.value) == ("release app failed, and has been uninstalled due to "
                                 "rollback-on-failure being set: context canceled")
    assert cfg.storage.heads("app") == []
    assert fake.names("Deployment") == []


def test_an_install_interrupted_before_its_record_records_nothing(cfg, journal, fake, chart, monkeypatch):
    """A signal while rendering or waiting for the lock: Helm's words, no record to fail."""
    import runner.actions.install as install_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(install_module, "_check_available", interrupted)
    with pytest.raises(InstallError, match="^context canceled$"):
        _install(cfg, journal, chart())

    assert cfg.storage.heads("app") == []
    assert fake.lock_log == ["acquire app", "release app"]
    assert [m.text for m in journal.messages if m.kind == NOTICE] == ["Release app has been cancelled."]


def test_a_failed_first_install_is_retried_as_a_new_revision(cfg, journal, fake, chart):
    fake.fail("apply", "ConfigMap/app-cm")
    with pytest.raises(RunnerError):
        _install(cfg, journal, chart())
    fake._failures.clear()

    result = _install(cfg, journal, chart())

    assert result.notes == ["retrying the failed first install of app (revision 1 failed)"]
    assert [h[:2] for h in history(cfg.storage, "app")] == [(1, "failed"), (2, "deployed")]


def test_a_name_in_use_is_refused_and_nothing_changes(cfg, journal, fake, driver, chart):
    _install(cfg, journal, chart())
    writes = len(driver.writes)

    with pytest.raises(RunnerError, match="cannot reuse a name that is still in use"):
        _install(cfg, journal, chart(), values={"message": "other"})

    assert len(driver.writes) == writes
    assert fake.get("ConfigMap", "app-cm")["data"] == {"message": "hello"}


def test_replace_reuses_the_name_of_an_uninstalled_release(cfg, journal, fake, chart):
    from runner.actions.uninstall import UninstallOptions, uninstall

    _install(cfg, journal, chart())
    uninstall(cfg, journal, UninstallOptions(name="app", keep_history=True))

    _install(cfg, journal, chart(), InstallOptions(replace=True))

    assert [h[:2] for h in history(cfg.storage, "app")] == [(1, "superseded"), (2, "deployed")]


def test_a_first_install_left_pending_by_a_killed_run_is_marked_failed_and_retried(cfg, journal, fake, chart):
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    cfg.storage.create(Release(name="app", namespace="ns", version=1, info=Info(
        status=PENDING_INSTALL, description="Initial install underway", last_deployed=stamp)))
    fake.expire_lock("app", holder="killed-run")

    result = _install(cfg, journal, chart())

    assert result.notes[0] == "revision 1 was left pending by an abandoned operation; marked failed"
    [first, second] = history(cfg.storage, "app")
    assert first[1] == "failed" and "killed-run" in first[2]
    assert second[:2] == (2, "deployed")


def test_a_young_pending_install_without_a_lock_is_in_progress(cfg, journal, chart):
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    cfg.storage.create(Release(name="app", namespace="ns", version=1, info=Info(
        status=PENDING_INSTALL, description="Initial install underway", last_deployed=stamp)))

    with pytest.raises(PendingError):
        _install(cfg, journal, chart())
    assert history(cfg.storage, "app")[0][1] == "pending-install"


def test_a_release_lock_held_elsewhere_stops_the_install_before_any_write(cfg, journal, fake, driver, chart):
    fake.hold_lock("app", holder="runner@ci/7")

    with pytest.raises(RunnerError, match="held by runner@ci/7"):
        _install(cfg, journal, chart())
    assert driver.writes == [] and fake.objects == {}


def test_an_object_of_another_owner_stops_the_install_unless_taken_over(cfg, journal, fake, driver, chart):
    fake.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app-cm"},
              "data": {"mine": "1"}})

    with pytest.raises(RunnerError) as raised:
        _install(cfg, journal, chart())
    assert str(raised.value).startswith('unable to continue with install: ConfigMap "app-cm" in '
                                        'namespace "ns" exists and cannot be imported')
    assert driver.writes == []

    result = _install(cfg, journal, chart(), take_ownership=True)
    assert result.updated == ["ConfigMap/app-cm"] and result.created == ["Deployment/app-web"]
    assert fake.get("ConfigMap", "app-cm")["data"] == {"message": "hello"}


def test_a_field_conflict_fails_the_install_as_helms_does_unless_forced(cfg, journal, fake, driver, chart):
    """No preflight: the apply's conflict is the error and the release is recorded failed,
    as Helm's Create does."""
    fake.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "app-cm", "labels": {"app.kubernetes.io/managed-by": "Helm"},
        "annotations": {"meta.helm.sh/release-name": "app", "meta.helm.sh/release-namespace": "ns"}}})
    fake.conflict("ConfigMap/app-cm", ".data.message", "kubectl")

    with pytest.raises(InstallError) as raised:
        _install(cfg, journal, chart())
    assert str(raised.value) == ('conflict occurred while applying object ns/app-cm /v1, Kind=ConfigMap: '
                                 'Apply failed with 1 conflict: conflict with "kubectl": .data.message')
    assert statuses(driver, 1) == ["pending-install", "failed"]
    assert "data" not in fake.get("ConfigMap", "app-cm")

    _install(cfg, journal, chart(), own=InstallOptions(replace=True), force_conflicts=True)
    assert [status for _, status, _ in history(cfg.storage, "app")] == ["failed", "deployed"]


def test_a_server_dry_run_reports_field_conflicts_and_writes_nothing(cfg, journal, fake, driver, chart):
    fake.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "app-cm", "labels": {"app.kubernetes.io/managed-by": "Helm"},
        "annotations": {"meta.helm.sh/release-name": "app", "meta.helm.sh/release-namespace": "ns"}}})
    fake.conflict("ConfigMap/app-cm", ".data.message", "kubectl")

    with pytest.raises(ApplyConflictError) as raised:
        _install(cfg, journal, chart(), dry_run="server")
    assert str(raised.value) == ('conflict occurred while applying object ns/app-cm /v1, Kind=ConfigMap: '
                                 'Apply failed with 1 conflict: conflict with "kubectl": .data.message')
    assert driver.writes == []


def test_a_server_dry_run_checks_the_cluster_and_writes_nothing(cfg, journal, fake, driver, chart):
    result = _install(cfg, journal, chart(), dry_run="server")

    assert result.release.info.description == "Dry run complete"
    assert result.release.info.status == "pending-install"
    assert result.created == ["ConfigMap/app-cm", "Deployment/app-web"]
    assert driver.writes == [] and fake.objects == {} and fake.lock_log == []


def test_hide_secret_applies_to_every_dry_run_and_only_there(cfg, journal, chart):
    secret = {"s.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  p: hunter2\n"}

    shown = _install(cfg, journal, chart(extra=secret), dry_run="server", hide_secret=True)
    assert "hunter2" not in shown.release.manifest and "app-cm" in shown.release.manifest
    with pytest.raises(RunnerError, match="hiding Kubernetes secrets requires a dry-run mode"):
        _install(cfg, journal, chart(extra=secret), hide_secret=True)


def test_a_client_dry_run_needs_no_cluster(journal, chart):
    from runner.actions.release_config import ActionConfig
    from runner.release.storage import MemoryDriver, Storage

    offline = ActionConfig(None, "ns", Storage(MemoryDriver()))
    result = _install(offline, journal, chart(), dry_run="client")
    assert result.release.info.description == "Dry run complete" and result.created == []


def test_client_side_apply_is_recorded_and_creates_objects(cfg, journal, fake, chart):
    result = _install(cfg, journal, chart(), server_side="false")
    assert result.release.apply_method == "csa"
    assert fake.names("ConfigMap") == ["app-cm"]


def test_crds_come_first_and_skip_crds_leaves_them_out(cfg, journal, fake, chart):
    crd = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true}]
"""
    widget = {"w.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"}

    _install(cfg, journal, chart(templates=widget, crds={"w.yaml": crd}))
    assert fake.names("CustomResourceDefinition") == ["widgets.example.com"]
    assert fake.names("Widget") == ["w"]

    other = type(fake)()
    cfg.cluster = other
    with pytest.raises(RunnerError, match='no matches for kind "Widget"'):
        install(cfg, journal, *asked(name="b", chart=chart(templates=widget, crds={"w.yaml": crd}),
                                   skip_crds=True))
    assert other.names("CustomResourceDefinition") == []


def test_no_hooks_and_create_namespace(cfg, journal, fake, chart):
    _install(cfg, journal, chart(), no_hooks=True, create_namespace=True)
    assert cfg.storage.get("app", 1).hooks[0].last_run.phase == ""
    assert fake.namespaces == {"ns"}


def test_labels_go_on_the_record_and_reserved_ones_are_refused(cfg, journal, chart):
    _install(cfg, journal, chart(), labels={"team": "web"})
    assert cfg.storage.get("app", 1).labels == {"team": "web"}
    with pytest.raises(RunnerError, match="system reserved label name"):
        install(cfg, journal, *asked(name="b", chart=chart(), labels={"owner": "me"}))


def test_render_warnings_are_told_not_printed(cfg, journal, chart, capsys):
    told = []
    journal.on_message = told.append
    _install(cfg, journal, chart(values="message: hello\ntag: \"1\"\nlist: [1]\n"),
             values={"list": {"a": 1}})
    assert capsys.readouterr() == ("", "")
    assert told and told == journal.messages
    warnings = [m for m in told if m.kind == "warning"]
    assert warnings and "list" in warnings[0].text


def test_an_existing_crd_is_brought_to_the_charts_version_with_server_side_apply_only(cfg, journal, fake, chart):
    def crd(version: str) -> dict[str, str]:
        return {"w.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
                          f"metadata: {{name: widgets.example.com, annotations: {{v: '{version}'}}}}\n"
                          "spec: {group: example.com, names: {kind: Widget, plural: widgets}, scope: Namespaced,\n"
                          "       versions: [{name: v1, served: true, storage: true}]}\n"}

    def version() -> str:
        return fake.get("CustomResourceDefinition", "widgets.example.com")["metadata"]["annotations"]["v"]

    install(cfg, journal, *asked(name="a", chart=chart("1.0.0", crds=crd("A"))))
    install(cfg, journal, *asked(name="b", chart=chart("2.0.0", crds=crd("B")), server_side="false"))
    assert version() == "A"  # client-side: created, AlreadyExists left alone
    upgrade(cfg, journal, *asked(name="a", chart=chart("2.0.0", crds=crd("B"))))
    assert version() == "A"  # an upgrade leaves crds/ alone
    install(cfg, journal, *asked(name="c", chart=chart("2.0.0", crds=crd("B"))))
    assert version() == "B"  # server-side apply updates it
