"""Evidence first: what a user reads after a failed deploy's error, and what the failed
record keeps, captured before the rollback or the delete policy removes it."""

from __future__ import annotations

import pytest

from runner.actions import evidence
from runner.actions.install import install
from runner.actions.results import ContainerEvidence, Evidence
from runner.actions.upgrade import upgrade
from runner.errors import RunnerError
from runner.kube.wait import WaitError
from runner.release.redact import MASK
from tests.unit.actions.asking import asked
from tests.unit.fakes.storage import history

WEB = {"web.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers: [{name: web, image: "web:{{ .Values.tag }}"}]
"""}
CRASHING = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 10s restarting failed container"}}


def _deploy_never_ready(fake, monkeypatch, log: str = "starting\npanic: no database password\n") -> None:
    """--wait gives up on the Deployment (the first time: a rollback's wait succeeds): its
    pod crash-loops."""
    waits = []

    def wait(resources, timeout, *, strategy="watcher", jobs=False):
        waits.append(resources)
        if len(waits) > 1:
            return
        web = fake.objects["/apis/apps/v1/namespaces/ns/deployments/app-web"]
        web["status"] = {"conditions": [
            {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
             "message": "Deployment does not have minimum availability."}]}
        pod = fake.add_pod("app-web-6c9-x", [("web", CRASHING, log)], labels={"app": "web"})
        pod["status"]["containerStatuses"][0].update(
            restartCount=4, lastState={"terminated": {"exitCode": 1, "reason": "Error"}})
        fake.event_list.append({"involvedObject": {"kind": "Deployment", "name": "app-web"}, "type": "Normal",
                                "reason": "ScalingReplicaSet", "message": "Scaled up replica set app-web-6c9 to 1"})
        raise WaitError("resource Deployment/ns/app-web not ready. status: InProgress, message: Available: 0/1\n"
                        "context deadline exceeded")

    monkeypatch.setattr(fake, "wait", wait)


def test_a_failed_upgrade_rolled_back_still_says_why_it_failed(cfg, journal, fake, chart, monkeypatch):
    path = chart(templates=WEB)
    install(cfg, journal, *asked(name="app", chart=path))
    _deploy_never_ready(fake, monkeypatch)

    with pytest.raises(RunnerError) as raised:
        upgrade(cfg, journal, *asked(name="app", chart=path, values={"tag": "2"}, rollback_on_failure=True))

    assert "has been rolled back due to rollback-on-failure" in str(raised.value)
    assert raised.value.details.splitlines() == [
        "Evidence (captured when it failed, before any clean-up or rollback):",
        "  Deployment/app-web (waited on): InProgress: Replicas: 0/1",
        "    condition Available=False (MinimumReplicasUnavailable): Deployment does not have minimum availability.",
        "    event Normal ScalingReplicaSet: Scaled up replica set app-web-6c9 to 1",
        "    pod app-web-6c9-x, container web: waiting (CrashLoopBackOff), restarts 4, last exit code 1: "
        "back-off 10s restarting failed container",
        "      | starting",
        "      | panic: no database password",
    ]
    failed = history(cfg.storage, "app")[1]
    assert failed[:2] == (2, "failed")
    assert failed[2].startswith('Upgrade "app" failed: resource Deployment/ns/app-web not ready.')
    assert failed[2].endswith('(evidence: Deployment/app-web InProgress: Replicas: 0/1 (pod app-web-6c9-x, container web: waiting (CrashLoopBackOff), '
                              'restarts 4, last exit code 1: back-off 10s restarting failed container; last line: '
                              '"panic: no database password"))')
    assert history(cfg.storage, "app")[2][:2] == (3, "deployed")


def test_a_failed_hook_leaves_its_evidence_without_any_log_policy(cfg, journal, fake, chart):
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [
        ("main", {"terminated": {"exitCode": 2, "reason": "Error"}}, "ERROR: relation users exists\n")]})
    fake.fail("hook", "Job/app-migrate", "job failed: BackoffLimitExceeded")
    hook = {"migrate.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: app-migrate
  annotations: {"helm.sh/hook": pre-install, "helm.sh/hook-delete-policy": hook-failed}
spec:
  template:
    spec:
      containers: [{name: main, image: busybox}]
"""}

    with pytest.raises(RunnerError) as raised:
        install(cfg, journal, *asked(name="app", chart=chart(templates=hook)))

    assert journal.hook_logs == []
    assert "  Job/app-migrate (pre-install hook app/templates/migrate.yaml): " in raised.value.details
    assert ("    pod app-migrate-1, container main: terminated, exit code 2 (Error)\n"
            "      | ERROR: relation users exists") in raised.value.details
    assert fake.get("Job", "app-migrate") is None  # deleted by its policy, after the capture


def test_evidence_is_redacted(cfg, journal, fake, chart, monkeypatch):
    _deploy_never_ready(fake, monkeypatch, log="password=hunter2-canary\n")

    with pytest.raises(RunnerError) as raised:
        install(cfg, journal, *asked(name="app", chart=chart(templates=WEB), wait=True,
                                   secret_values=["hunter2-canary"]))

    assert "hunter2-canary" not in raised.value.details
    assert f"| password={MASK}" in raised.value.details
    assert "hunter2-canary" not in history(cfg.storage, "app")[0][2]


def test_the_summary_in_the_record_is_short():
    many = [Evidence(f"Job/j{n}", "ns", "waited on", status="Failed: " + "x" * 100,
                     containers=[ContainerEvidence("p", "c", state="terminated", exit_code=1, log_tail=["y"])])
            for n in range(10)]

    summary = evidence.evidence_summary(many)

    assert len(summary) == evidence.SUMMARY_CHARACTERS and summary.endswith("...")


def test_a_waits_own_account_comes_first_in_the_evidence(cfg, journal):
    """The error a user reads is Helm's; why each object was not ready (ours) opens the
    evidence, found on the wait's error the action's own error was raised from."""
    with pytest.raises(RunnerError) as raised, evidence.on_error(journal):
        try:
            raise WaitError("context deadline exceeded", ["deployment/web: 0 of 1 replicas available"])
        except WaitError as err:
            raise RunnerError(f"UPGRADE FAILED: {err}") from err
    assert str(raised.value) == "UPGRADE FAILED: context deadline exceeded"
    assert raised.value.details == f"{evidence.HEADING}\n  deployment/web: 0 of 1 replicas available"
