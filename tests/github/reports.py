"""Report data for the tests: releases as the run's result will describe them, with a
chart whose templates are real files under a workspace."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from runner.report.model import (
    ADDED,
    CHANGED,
    FAILED,
    SUCCEEDED,
    HookLog,
    ReleaseReport,
    ResourceChange,
    Source,
    Unready,
)

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
"""


def workspace_with_chart(root: Path, chart: str = "charts/web") -> Path:
    """A repository checkout: the chart `web` at `chart`, with two templates."""
    templates = root / chart / "templates"
    templates.mkdir(parents=True)
    (root / chart / "Chart.yaml").write_text("apiVersion: v2\nname: web\nversion: 1.0.0\n")
    (templates / "deployment.yaml").write_text(DEPLOYMENT)
    (templates / "migrate.yaml").write_text("kind: Job\n" * 12)
    return root / chart


def change(number: int = 0, kind: str = "ConfigMap", how: str = CHANGED,
           diff: str = "-a: 1\n+a: 2", line: int = 3) -> ResourceChange:
    return ResourceChange(kind=kind, name=f"web-{number}", namespace="prod", change=how,
                          diff=diff, source=Source("web/templates/deployment.yaml", line))


def deployed(chart_dir: Path | None, **fields: object) -> ReleaseReport:
    release = ReleaseReport(
        name="web", namespace="prod", outcome=SUCCEEDED, action="upgrade", chart="web-1.0.0",
        chart_dir=chart_dir, revision=4, status="deployed", apply_method="server-side",
        started=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        finished=datetime(2026, 1, 2, 3, 4, 17, tzinfo=UTC),
        changes=(change(0), change(1, "Deployment", ADDED)))
    return replace(release, **fields)  # type: ignore[arg-type]


def failed(chart_dir: Path | None) -> ReleaseReport:
    return deployed(
        chart_dir, outcome=FAILED, status="failed",
        error="pre-upgrade hooks failed: job web-migrate failed: BackoffLimitExceeded",
        hooks=(HookLog("Job/web-migrate", "failed", ("migrating...", "ERROR: no table"),
                       source=Source("web/templates/migrate.yaml", 1)),),
        unready=(Unready("Deployment/web", "0 of 2 replicas available: ImagePullBackOff",
                         Source("web/templates/deployment.yaml", 2)),))
