"""The run's JSON result (deploy-runner/run-result/v1) read as the report's input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runner.report.adapt import run_report
from runner.report.model import (
    ADDED,
    FAILED,
    PLANNED,
    SKIPPED,
    SUCCEEDED,
    UNCHANGED,
    Source,
    Unready,
)
from tests.github.reports import workspace_with_chart


def release(**fields: Any) -> dict[str, Any]:
    base = {"name": "web", "namespace": "prod", "chart": "charts/web", "chart_version": "1.0.0",
            "action": "upgrade", "status": "deployed", "reason": None, "revision": 4,
            "previous_revision": 3, "apply_method": "ssa", "needs": [], "spec_line": 3,
            "started_at": "2026-01-02T03:04:05Z", "finished_at": "2026-01-02T03:04:17Z",
            "timings": {"total_seconds": 2.5}, "diff": {"view": "live", "live_unavailable": None, "counts": {},
                                    "changes": []},
            "hook_logs": [], "error": None, "evidence": [], "notes": [], "messages": []}
    return {**base, **fields}


def result(*releases: dict[str, Any], mode: str = "run") -> dict[str, Any]:
    return {"schema": "deploy-runner/run-result/v1", "spec": "deploy-runner.yaml",
            "environment": "default", "mode": mode, "warnings": ["w"],
            "releases": list(releases)}


def test_statuses_actions_and_times(tmp_path: Path) -> None:
    workspace_with_chart(tmp_path)
    report = run_report(result(
        release(), release(name="api", status="unchanged", action="none", reason="no change"),
        release(name="db", status="failed", error="boom", evidence=["pod db-0: CrashLoopBackOff"]),
        release(name="q", status="not-selected", action="none", revision=None),
        release(name="x", status="planned", chart="repo/x")), tmp_path, result_path="r.json")
    web, api, db, q, x = report.releases
    assert (web.outcome, web.status, web.action, web.revision, web.apply_method, web.seconds) == (
        SUCCEEDED, "deployed", "upgrade", 4, "server-side", 2.5)
    assert web.chart_dir == (tmp_path / "charts/web").resolve() and web.chart == "charts/web 1.0.0"
    assert (api.outcome, api.action, api.notes) == (UNCHANGED, "", ("no change",))
    assert db.outcome == FAILED and db.error == "boom\npod db-0: CrashLoopBackOff"
    assert q.outcome == SKIPPED and x.outcome == PLANNED and x.chart_dir is None
    assert report.result_path == "r.json" and report.warnings == ("w",) and not report.plan


def test_changes_keep_their_template_lines_and_hide_secret_values(tmp_path: Path) -> None:
    change = {"key": "prod, web, Secret (v1)", "kind": "Secret", "api_version": "v1",
              "namespace": "prod", "name": "web", "change": "add", "diff": "+kind: Secret\n",
              "hook": False, "secret_keys": {"added": ["password"], "changed": [], "removed": []},
              "source": {"path": "web/templates/secret.yaml", "line": 1},
              "changed_lines": [{"path": "web/templates/secret.yaml", "line": 5}], "note": ""}
    hook = {"hook": "Job/migrate", "pod": "migrate-x", "phase": "Failed", "log": "a\nb",
            "truncated": False, "template": "web/templates/migrate.yaml", "line": 2}
    report = run_report(result(release(diff={"changes": [change]}, hook_logs=[hook]),
                               mode="plan"), tmp_path)
    [web] = report.releases
    [resource] = web.changes
    assert resource.change == ADDED and resource.where == Source("web/templates/secret.yaml", 5)
    assert resource.diff == ("# Secret data keys: added password (values never shown)\n"
                             "+kind: Secret")
    [log] = web.hooks
    assert (log.outcome, log.lines, log.source) == ("failed", ("a", "b"),
                                                    Source("web/templates/migrate.yaml", 2))
    assert report.plan


def job(name: str, template: str, *, hook: bool = True) -> dict[str, Any]:
    return {"key": f"prod, {name}, Job (batch)", "kind": "Job", "api_version": "batch/v1",
            "namespace": "prod", "name": name, "change": "add", "diff": "+kind: Job\n",
            "hook": hook, "secret_keys": None, "source": {"path": template, "line": 1},
            "changed_lines": [], "note": ""}


def test_what_did_not_become_ready_points_at_its_template(tmp_path: Path) -> None:
    """The waiters' words name the resource (kstatus's, both legacy forms); the diff has
    its template; a failed hook with a log takes its template from the diff instead."""
    kstatus = ('resource Job/prod/migrate not ready. status: Failed, message: Job Failed. '
               'failed: 1/1\ncontext deadline exceeded')
    changes = [job("migrate", "web/templates/migrate.yaml"),
               job("seed", "web/templates/seed.yaml", hook=False)]
    report = run_report(result(
        release(status="failed", error=kstatus, diff={"changes": changes}),
        release(name="api", status="failed", error="job seed failed: BackoffLimitExceeded",
                diff={"changes": changes}),
        release(name="db", status="failed", error="job is failed: prod/gone"),
        release(name="q", status="failed", error=kstatus, diff={"changes": changes},
                hook_logs=[{"hook": "Job/migrate", "pod": "migrate-x", "phase": "Failed",
                            "log": "no table", "truncated": False}]),
        release(name="ok", error=kstatus)), tmp_path)
    web, api, db, q, ok = report.releases
    assert web.unready == (Unready("Job/migrate", kstatus.splitlines()[0],
                                   Source("web/templates/migrate.yaml", 1)),)
    assert api.unready == (Unready("Job/seed", "job seed failed: BackoffLimitExceeded",
                                   Source("web/templates/seed.yaml", 1)),)
    assert db.unready == (Unready("Job/gone", "job is failed: prod/gone", None),)
    assert q.unready == () and q.hooks[0].source == Source("web/templates/migrate.yaml", 1)
    assert ok.unready == ()  # only a failed release's error is read


def test_the_evidence_says_what_did_not_become_ready(tmp_path: Path) -> None:
    """`not_ready` (the deploy's evidence) is preferred to the error's words: a hook at its
    own template, a waited-on object at the diff's, a hook whose log is annotated once."""
    not_ready = [
        {"resource": "Job/migrate", "namespace": "prod", "context": "pre-upgrade hook "
         "web/templates/migrate.yaml", "reason": "Failed: Job Failed\ncondition Failed=True",
         "template": "web/templates/migrate.yaml"},
        {"resource": "Deployment/web", "namespace": "prod", "context": "waited on",
         "reason": "InProgress: 0/1 ready\npod web-1: waiting (CrashLoopBackOff)",
         "template": ""},
        {"resource": "Job/seed", "namespace": "prod", "context": "post-upgrade hook "
         "web/templates/seed.yaml", "reason": "Failed", "template": "web/templates/seed.yaml"}]
    deployment = {**job("web", "web/templates/deployment.yaml", hook=False), "kind": "Deployment"}
    seed_log = {"hook": "Job/seed", "pod": "seed-x", "phase": "Failed", "log": "boom",
                "truncated": False, "template": "web/templates/seed.yaml"}
    [web] = run_report(result(release(
        status="failed", error="job migrate failed: BackoffLimitExceeded", not_ready=not_ready,
        diff={"changes": [deployment]}, hook_logs=[seed_log])), tmp_path).releases
    assert web.unready == (
        Unready("Job/migrate", "Failed: Job Failed\ncondition Failed=True",
                Source("web/templates/migrate.yaml", 1)),
        Unready("Deployment/web", "InProgress: 0/1 ready\npod web-1: waiting (CrashLoopBackOff)",
                Source("web/templates/deployment.yaml", 1)))
