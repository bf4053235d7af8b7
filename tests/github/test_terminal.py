"""The check run as `make demo` shows it in a terminal."""

from __future__ import annotations

import io

from runner.report import markdown
from runner.report.terminal import check_run_markdown, render, terminal_markdown
from tests.github.reports import deployed


def test_details_blocks_become_lines_and_keep_their_diff() -> None:
    text = terminal_markdown(markdown.summary(deployed(None)))
    assert "<details>" not in text and "</details>" not in text
    assert "**▸** `~ ConfigMap prod/web-0` changed — `web/templates/deployment.yaml:3`" in text
    out = io.StringIO()
    render(text, out)
    shown = out.getvalue()
    assert "▸ ~ ConfigMap prod/web-0 changed" in shown and "+a: 2" in shown


def test_a_check_run_with_its_annotations() -> None:
    fields = {"name": "deploy-runner web", "conclusion": "failure",
              "output": {"title": "web: failed", "summary": "S", "text": "T"}}
    notes = [{"path": "charts/web/templates/a.yaml", "start_line": 3,
              "annotation_level": "failure", "title": "hook failed", "message": "boom\nmore"}]
    text = check_run_markdown(fields, notes)
    assert text.splitlines()[0] == "# deploy-runner web: failure"
    assert "- `charts/web/templates/a.yaml:3` **failure** hook failed: boom" in text
