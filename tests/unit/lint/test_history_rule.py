"""deploy-runner's lint rule: .Release.History / .DeployedChart(s) used without a guard that
holds when the history is empty (runner/lint/history.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.chart.logs import Warnings
from runner.lint import TemplateOptions, run_all
from runner.lint.history import unguarded_uses
from runner.lint.support import WARNING

UNGUARDED = {
    "index": "{{ $last := index .Release.History 0 }}",
    "index through $": "{{ index $.Release.History 1 }}",
    "index of DeployedCharts": "{{ index .DeployedCharts 0 }}",
    "a field of the indexed entry": "v: {{ (index .Release.History 0).Chart.Version }}",
    "a field of first": "v: {{ (first .Release.History).Chart.Version }}",
    "a field of DeployedChart": "{{ .DeployedChart.Version }}",
    "in the else of a guard": "{{ if .Release.History }}x{{ else }}{{ index .Release.History 0 }}{{ end }}",
    "under a test for emptiness": "{{ if not .Release.History }}{{ index .Release.History 0 }}{{ end }}",
    "guarded by the revision only": "{{ if gt .Release.Revision 1 }}{{ index .Release.History 0 }}{{ end }}",
    "and, the guard second": '{{ if and (semverCompare "<2" .DeployedChart.Version) .DeployedChart }}m{{ end }}',
    "in a define": '{{ define "x" }}{{ .DeployedChart.Version }}{{ end }}',
}
GUARDED = {
    "len": "{{ if gt (len .Release.History) 0 }}{{ index .Release.History 0 }}{{ end }}",
    "truth": "{{ if .Release.History }}{{ (index .Release.History 0).Status }}{{ end }}",
    "with": "{{ with .DeployedChart }}{{ .Version }}{{ end }}",
    "if DeployedChart": "{{ if .DeployedChart }}{{ .DeployedChart.Version }}{{ end }}",
    "and, the guard first": '{{ if and .DeployedChart (semverCompare "<2" .DeployedChart.Version) }}m{{ end }}',
    "the else of a test for emptiness": "{{ if eq (len .Release.History) 0 }}n{{ else }}{{ .DeployedChart.Version }}{{ end }}",
    "range": "{{ range .Release.History }}{{ .Chart.Version }}{{ index $.Release.History 0 }}{{ end }}",
    "names only": "{{ len .Release.History }}{{ .DeployedChart }}{{ toJson .DeployedCharts }}",
    "nested guard": "{{ with .DeployedChart }}{{ if .Version }}{{ $.DeployedChart.Name }}{{ end }}{{ end }}",
    "not parsable (left to the template rules)": "{{ if }}",
}


@pytest.mark.parametrize("text", UNGUARDED.values(), ids=UNGUARDED.keys())
def test_unguarded_uses_are_found(text: str) -> None:
    found = unguarded_uses("templates/t.yaml", text)
    assert [line for line, _ in found] == [1]
    assert "fails when" in found[0][1] and "guard it with {{ " in found[0][1]


@pytest.mark.parametrize("text", GUARDED.values(), ids=GUARDED.keys())
def test_guarded_uses_pass(text: str) -> None:
    assert unguarded_uses("templates/t.yaml", text) == []


def test_lint_names_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (tmp_path / "templates" / "_helpers.tpl").write_text(
        '{{- define "c.from" -}}\n{{ .DeployedChart.Version }}\n{{- end }}\n')
    (tmp_path / "templates" / "job.yaml").write_text(
        "{{- if .DeployedChart }}\nfrom: {{ .DeployedChart.Version }}\n{{- end }}\n"
        "line4: {{ (index .Release.History 0).Status }}\nline5: {{ (index .Release.History 0).Name }}\n")
    linter = run_all(str(tmp_path), TemplateOptions(values={}), Warnings())
    ours = [(m.severity, m.path, m.text.split(" fails")[0]) for m in linter.messages
            if m.path.startswith("templates/") and m.path[-1].isdigit()]
    assert ours == [(WARNING, "templates/_helpers.tpl:2", ".DeployedChart.Version"),
                    (WARNING, "templates/job.yaml:4", "index .Release.History 0"),
                    (WARNING, "templates/job.yaml:5", "index .Release.History 0")]


def test_a_chart_without_history_gets_no_message(tmp_path: Path) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (tmp_path / "templates" / "cm.yaml").write_text("a: {{ .Release.Revision }}\n")
    linter = run_all(str(tmp_path), TemplateOptions(values={}), Warnings())
    assert not [m for m in linter.messages if m.path[-1].isdigit()]
