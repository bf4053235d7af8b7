"""The Action as GitHub runs it (action.yml's composite steps, run by the tests' runner:
tests/e2e/github_action.py) against the local GitHub server and the testbed: push,
pull_request opened / synchronize / closed, workflow_dispatch, repository_dispatch; a
failing hook; a canary secret nowhere."""

from __future__ import annotations

import base64
import uuid
from pathlib import Path
from typing import Any

import pytest

from runner.actions import preview
from runner.kube.namespaces import Namespaces
from testbed import octokit
from testbed.github import FakeGitHub
from tests.e2e.github_action import StepResult, run_step
from tests.e2e.release_helpers import get_object

pytestmark = pytest.mark.e2e

TEMPLATES = {
    "config.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  message: {{ .Values.message | quote }}
  token: {{ .Values.token | quote }}
""",
    "secret.yaml": """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
stringData:
  token: {{ .Values.token | quote }}
  password: {{ .Values.password | quote }}
""",
}
FAILING_HOOK = """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-output-log-policy": hook-failed
spec:
  backoffLimit: 0
  template:
    metadata:
      labels:
        testbed.deploy-runner/fail: "true"
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: busybox
        env:
        - name: TESTBED_LOG
          value: "migrating\\nerror: token {{ .Values.token }} refused: table users is locked"
"""


def spec(namespace: str) -> str:
    return f"""\
helmDefaults:
  recreatePods: true  # helmfile's, ignored: a warning, which comes after the masks
releases:
- name: web
  namespace: {namespace}
  chart: charts/web
  secretValues: [secrets.yaml]
  preview:
    enabled: true
    url: https://web-pr-${{pr}}.preview.example.com
    set:
    - name: message
      value: preview of pull request ${{pr}}
- name: api
  namespace: {namespace}
  chart: charts/api
  secretValues: [secrets.yaml]
"""


@pytest.fixture
def repository(tmp_path: Path, namespace: str) -> tuple[Path, str]:
    """A checkout: the spec, two charts, the canary in the secret values."""
    canary = f"canary-{uuid.uuid4().hex}"
    root = tmp_path / "workspace"
    for name in ("web", "api"):
        chart = root / "charts" / name
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 1.0.0\n")
        (chart / "values.yaml").write_text(
            f"message: hello\ntoken: none\npassword: {generated(canary)}\n")
        for file, text in TEMPLATES.items():
            (chart / "templates" / file).write_text(text)
    (root / "secrets.yaml").write_text(f"token: {canary}\n")
    (root / "deploy-runner.yaml").write_text(spec(namespace))
    return root, canary


@pytest.fixture
def step(action_dir: Path, cache_store: Path) -> Any:
    def run(github: FakeGitHub, cluster: Any, root: Path, event: str, payload: dict[str, Any],
            sha: str = "f" * 40, **inputs: str) -> StepResult:
        kubeconfig = Path(cluster.kubeconfig).read_text()
        return run_step(github, root, event, payload, {"kubeconfig": kubeconfig, **inputs},
                        sha=sha, action_dir=action_dir, cache_store=cache_store)

    return run


def no_canary(github: FakeGitHub, result: StepResult, root: Path, canary: str) -> None:
    """The canary nowhere: not in a log line (an `::add-mask::` command is the runner's, never
    shown, and comes before any other line), an output, the summary, the result, a request.
    Nor the chart's own Secret (`generated`), learned while a release deploys."""
    lines = result.log.splitlines()
    first = lines.index(next(line for line in lines if not line.startswith("::add-mask::")))
    assert f"::add-mask::{canary}" in lines[:first]
    encoded = base64.b64encode(canary.encode()).decode()  # the forms the run's redactor hides
    assert f"::add-mask::{encoded}" in lines[:first]
    assert f"::add-mask::{encoded.rstrip('=')}" in lines[:first]
    shown = "\n".join(line for line in lines if not line.startswith("::add-mask::"))
    for secret in (canary, generated(canary)):
        assert secret not in shown and secret not in result.summary
        assert secret not in str(result.outputs)
        assert not any(secret in sent for sent in github.everything_sent())
        assert secret not in Path(result.outputs["result"]).read_text()
    assert github.rejections == []


def generated(canary: str) -> str:
    """The value of the chart's own Secret (not a secretValues leaf)."""
    return canary.replace("canary-", "generated-")


def conclusions(github: FakeGitHub) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for run in github.check_runs.values():
        found.setdefault(run.fields["name"], []).append(run.fields["conclusion"])
    return found


def test_push_then_dispatches(cluster: Any, repository: tuple[Path, str], step: Any) -> None:
    root, canary = repository
    with FakeGitHub() as github:
        pushed = step(github, cluster, root, "push", octokit.event_payload("push"))
        assert pushed.code == 0, pushed.log
        assert conclusions(github) == {"deploy-runner web": ["success"],
                                       "deploy-runner api": ["success"]}
        assert all(r.fields["head_sha"] == "f" * 40 for r in github.check_runs.values())
        assert pushed.outputs["changed"] == "true"
        assert Path(pushed.outputs["result"]).parent == root.parent / "workspace-runner" / "temp"
        assert not (root / "deploy-runner-result.json").exists()  # nothing in the checkout
        assert pushed.revision("web") == 1 and pushed.status("web") == "deployed"
        assert "::group::web: installed as revision 1" in pushed.log
        assert "| web |" in pushed.summary
        assert "level=DEBUG" not in pushed.log  # Helm's debug lines only with --debug
        [warning] = [line for line in pushed.log.splitlines() if "recreatePods" in line]
        assert warning.startswith("::warning::") and "ignored by deploy-runner" in warning
        # learned from the release's Secret as it deployed: masked for the rest of the job
        assert f"::add-mask::{generated(canary)}" in pushed.log.splitlines()
        web = github.runs_named("deploy-runner web")[0]
        assert {a["path"] for a in web.annotations} == {"charts/web/templates/config.yaml",
                                                        "charts/web/templates/secret.yaml"}
        no_canary(github, pushed, root, canary)

        again = step(github, cluster, root, "workflow_dispatch",
                     octokit.event_payload("workflow_dispatch"))
        assert again.code == 0, again.log
        assert again.outputs["changed"] == "false" and again.revision("web") == 1
        dispatched = step(github, cluster, root, "repository_dispatch",
                          octokit.event_payload("repository_dispatch"), sync="true")
        assert dispatched.code == 0, dispatched.log
        assert dispatched.revision("web") == 2
        no_canary(github, dispatched, root, canary)


def test_pull_request_preview_lifecycle(cluster: Any, repository: tuple[Path, str], step: Any) -> None:
    root, canary = repository
    opened = octokit.event_payload("pull_request", "opened")
    number, head = opened["number"], opened["pull_request"]["head"]["sha"]
    name = preview.namespace_name("Codertocat/Hello-World", number)
    space = Namespaces(cluster.client())
    with FakeGitHub() as github:
        first = step(github, cluster, root, "pull_request", opened, comment="true")
        assert first.code == 0, first.log
        info = space.get(name)
        assert info is not None and info.labels == {preview.PREVIEW_LABEL: "true",
                                                    preview.PR_LABEL: str(number),
                                                    "kubernetes.io/metadata.name": name,
                                                    # the releases' install --create-namespace,
                                                    # a server-side apply as Helm 4's: its label
                                                    "name": name}
        assert info.annotations[preview.HEAD_SHA_ANNOTATION] == head
        assert info.annotations[preview.REPOSITORY_ANNOTATION] == "Codertocat/Hello-World"
        config = get_object(cluster, f"/api/v1/namespaces/{name}/configmaps/web-config")
        assert config is not None and config["data"]["message"] == \
            f"preview of pull request {number}"  # the preview's set, ${pr} substituted
        assert first.status("web") == "deployed"
        assert first.status("api") == "planned"  # no preview: planned, nothing written
        assert all(r.fields["head_sha"] == head for r in github.check_runs.values())
        [deployment] = github.deployments.values()
        assert deployment["environment"] == f"pr-{number}" and deployment["ref"] == head
        statuses = github.deployment_statuses[deployment["id"]]
        assert statuses[-1]["environment_url"] == f"https://web-pr-{number}.preview.example.com"

        synchronized = octokit.event_payload("pull_request", "synchronize")
        second = step(github, cluster, root, "pull_request", synchronized, comment="true")
        assert second.code == 0, second.log
        assert len(github.comments) == 1  # edited, never a second comment
        no_canary(github, second, root, canary)

        # pull_request_target (GitHub's pull_request payload, GITHUB_SHA the base branch's
        # commit) runs as pull_request: the preview deployed, reported on the head commit
        base = synchronized["pull_request"]["base"]["sha"]
        checks = len(github.check_runs)
        target = step(github, cluster, root, "pull_request_target", synchronized, sha=base)
        assert target.code == 0, target.log
        assert target.status("web") == "deployed"
        assert target.status("api") == "planned"
        assert [r.fields["head_sha"] for r in list(github.check_runs.values())[checks:]] == [
            synchronized["pull_request"]["head"]["sha"]] * 2
        no_canary(github, target, root, canary)

        # a label added (GitHub's payload differs in `action` and `label`): the preview's
        # change is planned, not deployed
        template = root / "charts" / "web" / "templates" / "config.yaml"
        template.write_text(template.read_text() + "  added: by the pull request\n")
        labeled = {**synchronized, "action": "labeled", "label": {"name": "preview"}}
        planned = step(github, cluster, root, "pull_request", labeled)
        assert planned.code == 0, planned.log
        assert planned.status("web") == "planned" and len(github.deployments) == 3
        config = get_object(cluster, f"/api/v1/namespaces/{name}/configmaps/web-config")
        assert config is not None and "added" not in config["data"]

        closed = octokit.event_payload("pull_request", "closed", merged=True)
        third = step(github, cluster, root, "pull_request", closed)
        assert third.code == 0, third.log
        assert space.get(name) is None
        assert third.status("web") == "uninstalled"
        assert third.status("api") is None  # a closed pull request plans nothing
        assert all(r.fields["status"] == "completed" for r in github.check_runs.values())
        assert all(s[-1]["state"] == "inactive" for s in github.deployment_statuses.values())
        no_canary(github, third, root, canary)


def test_a_failing_hook_is_red_and_points_at_its_template(cluster: Any, repository: tuple[Path, str],
                                                          step: Any) -> None:
    root, canary = repository
    (root / "charts" / "api" / "templates" / "migrate.yaml").write_text(FAILING_HOOK)
    with FakeGitHub() as github:
        result = step(github, cluster, root, "push", octokit.event_payload("push"))
        assert result.code == 1
        assert conclusions(github) == {"deploy-runner web": ["success"],
                                       "deploy-runner api": ["failure"]}
        assert result.status("api") == "failed"
        assert "::error file=charts/api/templates/migrate.yaml,line=1,title=api failed::" \
            "failed pre-install: resource Job/" in result.log
        api = github.runs_named("deploy-runner api")[0]
        failures = [a for a in api.annotations if a["annotation_level"] == "failure"]
        assert [(a["path"], a["start_line"]) for a in failures] == [
            ("charts/api/templates/migrate.yaml", 1)]  # the hook's, with its log's tail
        assert failures[0]["message"].startswith("hook Job/api-migrate failed; its log ends:")
        assert failures[0]["message"].endswith("refused: table users is locked")
        saved = result.result()
        [failed] = [r for r in saved["releases"] if r["name"] == "api"]
        [evidence] = failed["not_ready"]  # what the CLI prints after the error, as data
        assert (evidence["resource"], evidence["template"]) == ("Job/api-migrate",
                                                                "api/templates/migrate.yaml")
        assert "table users is locked" in evidence["reason"]
        no_canary(github, result, root, canary)


def test_a_spec_that_cannot_be_used_points_at_its_line(cluster: Any, repository: tuple[Path, str],
                                                       step: Any) -> None:
    root, _canary = repository
    spec_file = root / "deploy-runner.yaml"
    spec_file.write_text(spec_file.read_text().replace("chart: charts/api",
                                                       "chart: charts/api\n  applyMethod: sideways"))
    line = spec_file.read_text().splitlines().index("  applyMethod: sideways") + 1
    with FakeGitHub() as github:
        result = step(github, cluster, root, "push", octokit.event_payload("push"))
        assert result.code == 1 and github.check_runs == {}
        assert f"::error file=deploy-runner.yaml,line={line},title=the spec cannot be used::" \
               f"deploy-runner.yaml:{line}: releases[1].applyMethod: must be one of" in result.log


def test_working_directory_namespace_result_file_and_detailed_exitcode(
        cluster: Any, namespace: str, tmp_path: Path, step: Any, helm: Any) -> None:
    """The spec in a subdirectory (working_directory), releases that name no namespace
    (the namespace input), the result where result_file says, and --detailed-exitcode:
    2, the step failed, while a plan would change something; 0 once deployed."""
    root = tmp_path / "workspace"
    chart = root / "deploy" / "charts" / "web"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: web\nversion: 1.0.0\n")
    (chart / "values.yaml").write_text("message: hello\ntoken: none\n")
    (chart / "templates" / "config.yaml").write_text(TEMPLATES["config.yaml"])
    (root / "deploy" / "deploy-runner.yaml").write_text("releases:\n- name: web\n  chart: charts/web\n")
    inputs = {"working_directory": "deploy", "namespace": namespace}
    with FakeGitHub() as github:
        planned = step(github, cluster, root, "push", octokit.event_payload("push"), plan="true",
                       detailed_exitcode="true", **inputs)
        assert planned.code == 2, planned.log
        assert planned.outputs["changed"] == "true" and planned.status("web") == "planned"
        deployed = step(github, cluster, root, "push", octokit.event_payload("push"),
                        result_file="out/result.json", **inputs)
        assert deployed.code == 0, deployed.log
        assert deployed.outputs["result"] == str(root / "deploy" / "out" / "result.json")
        assert deployed.result()["releases"][0]["namespace"] == namespace
        again = step(github, cluster, root, "push", octokit.event_payload("push"), plan="true",
                     detailed_exitcode="true", **inputs)
        assert again.code == 0 and again.outputs["changed"] == "false", again.log
    listed = helm("list", "-n", namespace, "-q")
    assert listed.stdout.split() == ["web"]
