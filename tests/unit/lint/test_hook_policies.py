"""Our lint rule for helm.sh/hook-output-log-policy: unknown values and kinds, with the
template file and the annotation's line."""

from __future__ import annotations

from pathlib import Path

from runner.chart.logs import Warnings
from runner.lint import TemplateOptions, run_all
from runner.lint.hook_policies import problems

# The proposal's own example, misspelling and all.
PROPOSAL_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: "{{ .Release.Name }}-false-job"
  annotations:
    "helm.sh/hook": pre-install, pre-upgrade
    "helm.sh/hook-output-log-policy": hook-failed, hook-suceeded
    "helm.sh/hook-weight": "-5"
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: post-install-job, image: "alpine:3.18"}]
"""


def _lint(root: Path, templates: dict[str, str]) -> list[str]:
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\nicon: https://x/i.png\n")
    (root / "values.yaml").write_text("policy: hook-failed\n")
    for name, text in templates.items():
        (root / "templates" / name).write_text(text)
    linter = run_all(str(root), TemplateOptions(values={}), Warnings())
    return [str(m) for m in linter.messages]


def test_the_proposals_misspelt_value_is_warned_about_with_file_and_line(tmp_path: Path) -> None:
    assert _lint(tmp_path, {"job.yaml": PROPOSAL_JOB}) == [
        '[WARNING] templates/job.yaml:7: unknown value "hook-suceeded" in annotation '
        'helm.sh/hook-output-log-policy (known: hook-succeeded, hook-failed; did you mean "hook-succeeded"?): '
        "it is ignored, as Helm ignores it"]


def test_known_values_with_or_without_spaces_pass(tmp_path: Path) -> None:
    good = PROPOSAL_JOB.replace("hook-failed, hook-suceeded", "{{ .Values.policy }},hook-succeeded")
    assert _lint(tmp_path, {"job.yaml": good}) == []


def test_each_document_points_at_its_own_annotation(tmp_path: Path) -> None:
    second = PROPOSAL_JOB.replace("false-job", "other").replace("hook-failed, hook-suceeded", "on-failure")
    messages = _lint(tmp_path, {"job.yaml": PROPOSAL_JOB + "---\n" + second})
    assert [m.split(": unknown")[0] for m in messages] == ["[WARNING] templates/job.yaml:7",
                                                           "[WARNING] templates/job.yaml:21"]


def test_the_annotation_does_nothing_on_other_kinds() -> None:
    assert problems("ConfigMap", "hook-failed") == [
        "annotation helm.sh/hook-output-log-policy on a ConfigMap does nothing: only the logs of hook Jobs "
        "and Pods are shown"]
    assert problems("Pod", "hook-failed,hook-succeeded") == []
