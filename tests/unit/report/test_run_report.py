"""A run's result as JSON (the documented form), text and markdown; the redactor passes over
every string before any of them is made."""

from __future__ import annotations

import json

from runner.diff.model import MODIFY, ObjectChange, ReleaseDiff, SourceRef
from runner.release.redact import MASK, Redactor
from runner.report.run import markdown, text
from runner.spec.result import (
    DEPLOYED,
    FAILED,
    SCHEMA,
    SKIPPED,
    HookLog,
    NotReady,
    ReleaseOutcome,
    RunResult,
)


def _result() -> RunResult:
    change = ObjectChange("ns, api-config, ConfigMap (v1)", "ConfigMap", "v1", "ns", "api-config", MODIFY,
                          diff="@@ -1 +1 @@\n-a: canary-token\n+a: b\n", source=SourceRef("api/templates/cm.yaml", 1),
                          changed_lines=[SourceRef("api/templates/cm.yaml", 6)])
    api = ReleaseOutcome("api", "ns", "charts/api", "1.0.0", "upgrade", DEPLOYED, revision=2, previous_revision=1,
                         apply_method="ssa", diff=ReleaseDiff("live", [change]))
    web = ReleaseOutcome("web", "ns", "charts/web", action="none", status=SKIPPED,
                         reason="it needs ns/api, which failed")
    return RunResult("deploy-runner.yaml", releases=[api, web])


def test_the_json_form_is_stable_and_documented():
    data = _result().to_json()
    assert data["schema"] == SCHEMA
    assert list(data) == ["schema", "spec", "environment", "mode", "event", "started_at", "finished_at",
                          "duration_seconds", "outcome", "counts", "warnings", "releases"]
    release = data["releases"][0]
    assert list(release) == ["name", "namespace", "chart", "chart_version", "action", "status", "reason",
                             "revision", "previous_revision", "apply_method", "needs", "spec_line",
                             "started_at", "finished_at", "timings", "diff", "hook_logs", "error",
                             "evidence", "not_ready", "notes", "messages"]
    assert release["diff"]["changes"][0]["changed_lines"] == [{"path": "api/templates/cm.yaml", "line": 6}]
    json.dumps(data)  # plain JSON all through


def test_redaction_reaches_every_string_and_every_format():
    data = Redactor(["canary-token"]).redact_data(_result().to_json())
    for rendered in (json.dumps(data), text(data), markdown(data)):
        assert "canary-token" not in rendered and MASK in rendered


def test_text_and_markdown_say_what_happened_to_each_release():
    data = _result().to_json()
    out = text(data)
    assert "ns/api: upgrade, revision 1 -> 2, ssa: deployed" in out
    assert "  ns, api-config, ConfigMap (v1) has changed:  [api/templates/cm.yaml:6]" in out
    assert "ns/web: skipped (it needs ns/api, which failed)" in out
    md = markdown(data)
    assert "| `ns/api` | upgrade | deployed | 2 | +0 ~1 -0 |" in md
    assert "```diff\n@@ -1 +1 @@" in md


def _failed() -> RunResult:
    """A release whose pre-install hook failed: what the deploy's evidence and the hook's
    log policy left in the result."""
    reason = ("Job migrate: job failed: BackoffLimitExceeded\n"
              "pod migrate-x1: container main terminated (exit code 1, Error)\n"
              "  last lines:\n    connecting with canary-token\n    ERROR relation exists")
    not_ready = [NotReady("Job/migrate", "ns", "pre-install hook api/templates/job.yaml", reason,
                          "api/templates/job.yaml")]
    logs = [HookLog("Job/migrate", "migrate-x1", "Failed", "step 3\nconnecting with canary-token\nERROR relation exists",
                    truncated=True, container="main", template="api/templates/job.yaml"),
            HookLog("Job/seed", "", "Succeeded", "No logs for hook seed: no pod of Job/seed is left")]
    api = ReleaseOutcome("api", "ns", "charts/api", "1.0.0", "install", FAILED, revision=1, apply_method="ssa",
                         error="failed pre-install: job failed: BackoffLimitExceeded",
                         evidence=["revision 1: failed"], not_ready=not_ready, hook_logs=logs)
    return RunResult("deploy-runner.yaml", releases=[api])


def test_the_text_report_shows_what_failed_the_release_and_the_hook_logs():
    out = text(Redactor(["canary-token"]).redact_data(_failed().to_json()))

    assert ("  error: failed pre-install: job failed: BackoffLimitExceeded\n"
            "  evidence: revision 1: failed\n"
            "  not ready: Job/migrate in ns (pre-install hook api/templates/job.yaml)\n"
            "    Job migrate: job failed: BackoffLimitExceeded\n"
            "    pod migrate-x1: container main terminated (exit code 1, Error)\n"
            "      last lines:\n"
            "        connecting with [REDACTED]\n"
            "        ERROR relation exists\n") in out
    assert ("  hook Job/migrate (Failed), pod migrate-x1, container main  [api/templates/job.yaml]\n"
            "    [earlier lines cut: the spec's hookLogs.cap keeps the last ones]\n"
            "    step 3\n    connecting with [REDACTED]\n    ERROR relation exists\n"
            "  hook Job/seed (Succeeded)\n"
            "    No logs for hook seed: no pod of Job/seed is left\n") in out
    assert "canary-token" not in out


def test_the_markdown_report_shows_them_too():
    md = markdown(Redactor(["canary-token"]).redact_data(_failed().to_json()))

    assert ("- revision 1: failed\n\n"
            "**Not ready:** Job/migrate in ns (pre-install hook api/templates/job.yaml) `api/templates/job.yaml`\n"
            "```\nJob migrate: job failed: BackoffLimitExceeded\n") in md
    assert ("**Hook log:** Job/migrate (Failed), pod migrate-x1, container main `api/templates/job.yaml`\n"
            "_[earlier lines cut: the spec's hookLogs.cap keeps the last ones]_\n"
            "```\nstep 3\nconnecting with [REDACTED]\nERROR relation exists\n```") in md
    assert "**Hook log:** Job/seed (Succeeded)\n```\nNo logs for hook seed" in md
    assert "canary-token" not in md
