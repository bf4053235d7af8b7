"""examples/workflows/*.yml run as the runner runs them (tests/workflows/executor.py), the
action being this repository's action.yml as the runner downloads it: against the testbed,
the tests' GitHub server and, for EKS, moto's STS and EKS behind the testbed's token
webhook. Each checks what a user would: the releases on the cluster (helm 4.1.4 reads
them), the check runs, the declared outputs, a checkout left as it was; the nightly drift
example opening and closing its issue; a rollback click handled by the operate example."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from testbed import octokit
from testbed.github import FakeGitHub
from tests.e2e.release_helpers import get_object
from tests.workflows.executor import Job, run_job
from tests.workflows.machine import EXAMPLES, ROOT

pytestmark = pytest.mark.e2e
RELEASES = ("postgres", "redis", "storefront")


def example_repository(tmp_path: Path, namespace: str) -> Path:
    """A repository holding examples/spec (its releases in this test's namespace)."""
    import shutil

    repository = tmp_path / "repository"
    shutil.copytree(ROOT / "examples" / "spec", repository)
    spec = repository / "deploy-runner.yaml"
    spec.write_text(spec.read_text().replace("namespace: store", f"namespace: {namespace}"))
    return repository


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def conclusions(github: FakeGitHub) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for run in github.check_runs.values():
        found.setdefault(run.fields["name"], []).append(run.fields["conclusion"])
    return found


def deployed(helm: Any, namespace: str) -> dict[str, tuple[int, str]]:
    listed = helm("list", "-n", namespace, "-o", "json")
    assert listed.returncode == 0, listed.stderr
    return {r["name"]: (int(r["revision"]), r["status"]) for r in json.loads(listed.stdout)}


def kubeconfig(cluster: Any) -> dict[str, str]:
    return {"KUBECONFIG": Path(cluster.kubeconfig).read_text()}


def succeeded(job: Job, step: str) -> dict[str, str]:
    assert job.steps[step].outcome == "success", job.shown()
    assert not job.failed, job.shown()
    return job.steps[step].outputs


def test_the_readme_shows_the_deploy_example_first() -> None:
    """The workflow a reader copies from the README is examples/workflows/deploy.yml."""
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"```yaml\n(.*?)```", readme, re.DOTALL)
    assert first is not None and first.group(1) == (EXAMPLES / "deploy.yml").read_text()
    assert readme.index(first.group(0)) < readme.index("make test")


def test_deploy_on_push(cluster: Any, namespace: str, tmp_path: Path, make_runner: Any,
                        helm: Any) -> None:
    repository = example_repository(tmp_path, namespace)
    with FakeGitHub() as github:
        runner = make_runner(github, repository, "push", octokit.event_payload("push"),
                             secrets=kubeconfig(cluster))
        job = run_job(runner, EXAMPLES / "deploy.yml")
        outputs = succeeded(job, "deploy")
        assert outputs["changed"] == "true"
        assert json.loads(outputs["revisions"]) == dict.fromkeys(RELEASES, 1)
        assert json.loads(outputs["statuses"]) == dict.fromkeys(RELEASES, "deployed")
        result = Path(outputs["result"])
        assert result.parent == runner.root / "temp"  # RUNNER_TEMP, not the checkout
        assert {r["name"] for r in json.loads(result.read_text())["releases"]} == set(RELEASES)
        assert "storefront is at revision 1" in job.log  # the example's last step
        assert conclusions(github) == {f"deploy-runner {r}": ["success"] for r in RELEASES}
        assert files(runner.workspace) == files(repository)  # nothing written into it
        assert github.rejections == []
    assert deployed(helm, namespace) == dict.fromkeys(RELEASES, (1, "deployed"))
    config = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/storefront-config")
    assert config is not None and config["data"]["GREETING"] == "Welcome to the shop"


def test_plan_on_pull_requests(cluster: Any, namespace: str, tmp_path: Path, make_runner: Any,
                               helm: Any) -> None:
    repository = example_repository(tmp_path, namespace)
    with FakeGitHub() as github:
        payload = octokit.event_payload("pull_request", "synchronize")
        runner = make_runner(github, repository, "pull_request", payload,
                             secrets=kubeconfig(cluster))
        job = run_job(runner, EXAMPLES / "plan.yml")
        outputs = succeeded(job, "plan")
        assert outputs["changed"] == "true"
        assert json.loads(outputs["statuses"]) == dict.fromkeys(RELEASES, "planned")
        assert json.loads(outputs["revisions"]) == dict.fromkeys(RELEASES, 1)  # would be
        assert "would change: true" in job.log
        [comment] = github.comments.values()
        assert "storefront" in comment["body"]
        head = payload["pull_request"]["head"]["sha"]
        assert {r.fields["head_sha"] for r in github.check_runs.values()} == {head}
    assert deployed(helm, namespace) == {}  # a plan writes nothing


PREVIEW_SPEC = """\
releases:
- name: web
  namespace: {namespace}
  chart: ./charts/service
  values: [values/storefront.yaml]
  preview:
    enabled: true
    url: https://web-pr-${{pr}}.preview.example.com
"""


def test_previews_with_nightly_collection(cluster: Any, namespace: str, tmp_path: Path,
                                          make_runner: Any) -> None:
    from runner.actions import preview
    from runner.kube.namespaces import Namespaces

    repository = example_repository(tmp_path, namespace)
    (repository / "deploy-runner.yaml").write_text(PREVIEW_SPEC.format(namespace=namespace))
    opened = octokit.event_payload("pull_request", "opened")
    space = preview.namespace_name(opened["repository"]["full_name"], opened["number"])
    namespaces = Namespaces(cluster.client())
    workflow = EXAMPLES / "previews.yml"
    with FakeGitHub() as github:
        job = run_job(make_runner(github, repository, "pull_request", opened,
                                  secrets={"PREVIEW_KUBECONFIG": kubeconfig(cluster)["KUBECONFIG"]}),
                      workflow)
        assert not job.failed, job.shown()
        assert namespaces.get(space) is not None
        [deployment] = github.deployments.values()
        assert deployment["environment"] == f"pr-{opened['number']}"
        # the nightly run: `preview-gc` (the example's expression), the pull request
        # closed on GitHub's side, so its preview goes
        github.add_pull(opened["number"], state="closed")
        nightly = run_job(make_runner(github, repository, "schedule",
                                      {"schedule": "17 3 * * *"},
                                      secrets={"PREVIEW_KUBECONFIG": kubeconfig(cluster)["KUBECONFIG"]}),
                          workflow)
        assert not nightly.failed, nightly.shown()
        assert namespaces.get(space) is None
        assert github.deployment_statuses[deployment["id"]][-1]["state"] == "inactive"


def test_manual_dispatch(cluster: Any, namespace: str, tmp_path: Path, make_runner: Any,
                         helm: Any) -> None:
    repository = example_repository(tmp_path, namespace)
    inputs = {"environment": "production", "releases": "postgres redis"}
    payload = {**octokit.event_payload("workflow_dispatch"), "inputs": inputs}
    with FakeGitHub() as github:
        job = run_job(make_runner(github, repository, "workflow_dispatch", payload,
                                  secrets=kubeconfig(cluster)), EXAMPLES / "dispatch.yml",
                      inputs=inputs)
        outputs = succeeded(job, "deploy")
        assert json.loads(outputs["statuses"]) == {"postgres": "deployed", "redis": "deployed"}
        assert set(conclusions(github)) == {"deploy-runner postgres (production)",
                                            "deploy-runner redis (production)"}
    assert deployed(helm, namespace) == {"postgres": (1, "deployed"), "redis": (1, "deployed")}
    # the job ran in the GitHub environment the input chose
    assert job.name == "deploy"


def test_eks_with_oidc_and_no_kubeconfig(eks: Any, namespace: str, tmp_path: Path,
                                         make_runner: Any, helm: Any) -> None:
    """configure-aws-credentials' OIDC exchange (moto's STS), then the action with
    eks_cluster alone: DescribeCluster, a token the testbed's webhook checks with STS and
    maps (mapRoles) to a user of the cluster-admin group."""
    oidc = "arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com"
    role = eks.role(SimpleNamespace(arn=oidc))
    repository = example_repository(tmp_path, namespace)
    with FakeGitHub() as github:
        runner = make_runner(github, repository, "push", octokit.event_payload("push"),
                             variables={"DEPLOY_ROLE_ARN": role, "AWS_REGION": eks.region,
                                        "EKS_CLUSTER": eks.name},
                             AWS_ENDPOINT_URL=eks.aws.endpoint, AWS_CONFIG_FILE="/dev/null",
                             AWS_SHARED_CREDENTIALS_FILE="/dev/null",
                             AWS_EC2_METADATA_DISABLED="true")
        job = run_job(runner, EXAMPLES / "eks.yml")
        outputs = succeeded(job, "deploy")
        assert json.loads(outputs["statuses"]) == dict.fromkeys(RELEASES, "deployed")
        assert conclusions(github) == {f"deploy-runner {r}": ["success"] for r in RELEASES}
        assert job.env["AWS_SESSION_TOKEN"] not in "\n".join(job.log)
    assert deployed(helm, namespace) == dict.fromkeys(RELEASES, (1, "deployed"))
    assert "deployer:GitHubActions" in eks.webhook_log()


def test_nightly_drift_opens_then_closes_the_drift_issue(cluster: Any, namespace: str, tmp_path: Path,
                                                         make_runner: Any) -> None:
    repository = example_repository(tmp_path, namespace)
    nightly = {"schedule": "17 3 * * *"}  # what GitHub sends a scheduled run
    with FakeGitHub() as github:
        # deployed with the default environment: production's storefront values are not
        # what runs, which is drift for the nightly check of production
        succeeded(run_job(make_runner(github, repository, "push", octokit.event_payload("push"),
                                      secrets=kubeconfig(cluster)), EXAMPLES / "deploy.yml"), "deploy")
        job = run_job(make_runner(github, repository, "schedule", nightly, secrets=kubeconfig(cluster)),
                      EXAMPLES / "drift.yml")
        assert job.steps["drift"].outputs["drift"] == "true", job.shown()
        assert "the cluster drifted from the spec; see the deploy-runner/drift issue" in job.log  # its last step
        assert conclusions(github)["deploy-runner drift (production)"] == ["failure"]
        [issue] = github.issues_labelled("deploy-runner/drift")
        assert issue["state"] == "open" and "storefront" in issue["body"]

        inputs = {"environment": "production", "releases": ""}
        payload = {**octokit.event_payload("workflow_dispatch"), "inputs": inputs}
        succeeded(run_job(make_runner(github, repository, "workflow_dispatch", payload,
                                      secrets=kubeconfig(cluster)), EXAMPLES / "dispatch.yml",
                          inputs=inputs), "deploy")
        again = run_job(make_runner(github, repository, "schedule", nightly, secrets=kubeconfig(cluster)),
                        EXAMPLES / "drift.yml")
        assert succeeded(again, "drift")["drift"] == "false"
        assert not [line for line in again.log if "the cluster drifted" in line]
        assert conclusions(github)["deploy-runner drift (production)"] == ["failure", "success"]
        [issue] = github.issues_labelled("deploy-runner/drift")
        assert issue["state"] == "closed"
        assert github.rejections == []


def test_a_rollback_click_runs_the_operate_example(cluster: Any, namespace: str, tmp_path: Path,
                                                   make_runner: Any, helm: Any) -> None:
    repository = example_repository(tmp_path, namespace)
    values = repository / "values" / "storefront.yaml"
    with FakeGitHub() as github:
        github.permissions["maintainer"] = "admin"
        for sha in ("1" * 40, "2" * 40):
            succeeded(run_job(make_runner(github, repository, "push", octokit.event_payload("push"),
                                          secrets=kubeconfig(cluster), sha=sha),
                              EXAMPLES / "deploy.yml"), "deploy")
            values.write_text(values.read_text().replace("Welcome to the shop", "Welcome back"))
        storefront = next(r for r in github.check_runs.values()
                          if r.fields["name"] == "deploy-runner storefront" and r.fields["head_sha"] == "2" * 40)
        assert [a["identifier"] for a in storefront.fields["actions"]] == ["rollback"]
        click = github.requested_action(storefront.id, "rollback", "maintainer")
        job = run_job(make_runner(github, repository, "check_run", click, secrets=kubeconfig(cluster),
                                  sha="2" * 40), EXAMPLES / "rollback.yml")
        assert not job.failed, job.shown()
        [answer] = [r for r in github.check_runs.values() if r.fields["name"] == "deploy-runner rollback storefront"]
        assert answer.fields["conclusion"] == "success" and answer.fields["head_sha"] == "2" * 40
        assert github.rejections == []
    assert deployed(helm, namespace)["storefront"] == (3, "deployed")
    config = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/storefront-config")
    assert config is not None and config["data"]["GREETING"] == "Welcome to the shop"
