"""Pull-request previews on the testbed: the namespace with its labels and annotations,
teardown, and `preview gc` asking the local GitHub server which pull requests closed."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from runner.actions import preview
from runner.actions.journal import Journal
from runner.kube.namespaces import Namespaces
from runner.report.github.client import GitHubReport
from runner.report.github.deployments import PreviewDeployments
from testbed.github import TOKEN, FakeGitHub
from tests.e2e.release_helpers import config, ours
from tests.e2e.test_release_wait_and_test import HELD  # a ConfigMap nobody finalizes
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e
REPOSITORY = "Codertocat/Hello-World"


def make_preview(cluster: Any, chart: Path, number: int, deployed: datetime,
                 repository: str = REPOSITORY) -> str:
    name = f"gc-{uuid.uuid4().hex[:6]}-pr-{number}"
    preview.prepare(Namespaces(cluster.client()), name, repository=repository,
                    pull_number=number, head_sha="a" * 40, now=deployed,
                    environment=f"pr-{number}")
    assert ours(cluster, name, "install", "web", str(chart)).code == 0
    return name


def test_the_namespace_is_labelled_and_annotated(cluster: Any, tmp_path: Path) -> None:
    name = preview.namespace_name("Codertocat/Hello_World.git", 12)
    assert name == "hello-world-git-pr-12"
    space = Namespaces(cluster.client())
    preview.prepare(space, name, repository=REPOSITORY, pull_number=12, head_sha="b" * 40,
                    now=datetime(2026, 1, 2, tzinfo=UTC), environment="pr-12")
    info = space.get(name)
    assert info is not None
    assert info.labels[preview.PREVIEW_LABEL] == "true" and info.labels[preview.PR_LABEL] == "12"
    assert info.annotations[preview.REPOSITORY_ANNOTATION] == REPOSITORY
    assert info.annotations[preview.HEAD_SHA_ANNOTATION] == "b" * 40
    assert info.annotations[preview.ENVIRONMENTS_ANNOTATION] == '["pr-12"]'
    result = preview.teardown(config(cluster, name), Journal(), space, name, wait=60)
    assert result.remaining == () and space.get(name) is None


def test_gc_removes_closed_and_expired_previews_only(cluster: Any, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    chart = write_chart(tmp_path)
    now = datetime.now(UTC)
    closed = make_preview(cluster, chart, 41, now)
    still_open = make_preview(cluster, chart, 42, now)
    expired = make_preview(cluster, chart, 43, now - timedelta(days=4), "someone/else")
    space = Namespaces(cluster.client())
    with FakeGitHub(repository=REPOSITORY) as github:
        github.add_pull(41, state="closed")
        github.add_pull(42, state="open")
        deployments = PreviewDeployments(GitHubReport(github.url, TOKEN, REPOSITORY))
        for number in (41, 42):  # what the pull requests' runs left: "View deployment"
            deployments.deployed(f"pr-{number}", "a" * 40, succeeded=True,
                                 url=f"https://pr-{number}.example.com")
        monkeypatch.setenv("GITHUB_REPOSITORY", REPOSITORY)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        dry = ours(cluster, "default", "preview", "gc", "--ttl", "72h", "--dry-run")
        assert dry.code == 0, dry.err
        assert f"would remove {closed}: pull request #41 is closed" in dry.out
        assert f"would remove {expired}: last deployed" in dry.out
        assert still_open not in dry.out.split("to remove")[1]
        assert space.get(closed) is not None
        done = ours(cluster, "default", "preview", "gc", "--ttl", "72h", "--timeout", "60s")
        assert done.code == 0, done.err
        assert github.rejections == []
        states = {d["environment"]: github.deployment_statuses[d["id"]][-1]["state"]
                  for d in github.deployments.values()}
        assert states == {"pr-41": "inactive", "pr-42": "success"}
    assert space.get(closed) is None and space.get(expired) is None
    assert space.get(still_open) is not None
    assert config(cluster, still_open).storage.heads("web")
    preview.teardown(config(cluster, still_open), Journal(), space, still_open, wait=60)


CUSTOM_ENVIRONMENT_SPEC = """\
releases:
- name: web
  namespace: {namespace}
  chart: charts/web
  preview:
    enabled: true
    namespace: {preview}-pr-${{pr}}
    environment: review-${{pr}}
    url: https://web-pr-${{pr}}.example.com
"""


def test_gc_marks_the_deployments_of_a_custom_environment_inactive(
        cluster: Any, namespace: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        action_dir: Path, cache_store: Path) -> None:
    """A release with `preview.environment`: the pull request's run deploys to that
    environment; when the pull request closes without a run (the close event's workflow
    did not run), `preview gc`, which has no spec, marks that environment's deployment
    inactive, from what the namespace recorded."""
    from testbed import octokit
    from tests.e2e.github_action import run_step

    root = tmp_path / "workspace"
    write_chart(root / "charts", name="web").rename(root / "charts" / "web")
    prefix = f"gc-{uuid.uuid4().hex[:6]}"
    (root / "deploy-runner.yaml").write_text(CUSTOM_ENVIRONMENT_SPEC.format(
        namespace=namespace, preview=prefix))
    opened = octokit.event_payload("pull_request", "opened")
    number = opened["number"]
    name, environment = f"{prefix}-pr-{number}", f"review-{number}"
    space = Namespaces(cluster.client())
    with FakeGitHub() as github:
        deployed = run_step(github, root, "pull_request", opened,
                            {"kubeconfig": Path(cluster.kubeconfig).read_text()},
                            action_dir=action_dir, cache_store=cache_store)
        assert deployed.code == 0, deployed.log
        [deployment] = github.deployments.values()
        assert deployment["environment"] == environment
        assert github.deployment_statuses[deployment["id"]][-1]["state"] == "success"
        info = space.get(name)
        assert info is not None
        assert info.annotations[preview.ENVIRONMENTS_ANNOTATION] == f'["{environment}"]'

        github.add_pull(number, state="closed")
        monkeypatch.setenv("GITHUB_REPOSITORY", github.repository)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        done = ours(cluster, "default", "preview", "gc", "--timeout", "60s")
        assert done.code == 0, done.out + done.err
        assert f"removing {name}: pull request #{number} is closed" in done.out
        assert github.rejections == []
        assert github.deployment_statuses[deployment["id"]][-1]["state"] == "inactive"
    assert space.get(name) is None



def test_what_keeps_a_preview_is_named_and_gc_fails(cluster: Any, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A finalizer nobody removes keeps the namespace: teardown names it after its bounded
    wait, and a scheduled `preview gc` exits 1 (it is removed on the next one)."""
    from kubernetes import client

    chart = write_chart(tmp_path, templates={"held.yaml": HELD})
    name = make_preview(cluster, chart, 44, datetime.now(UTC) - timedelta(days=9))
    space = Namespaces(cluster.client())
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("INPUT_GITHUB_TOKEN", raising=False)
    try:
        done = ours(cluster, "default", "preview", "gc", "--ttl", "72h", "--timeout", "3s")
        assert done.code == 1, done.out + done.err
        assert f"removing {name}: last deployed" in done.out
        [kept] = [line.strip() for line in done.out.splitlines() if "still there" in line]
        assert kept.startswith("still there: ") and "1 preview(s) not removed" in done.out
        info = space.get(name)
        assert info is not None and info.phase == "Terminating"
    finally:
        client.CoreV1Api(cluster.api_client).patch_namespaced_config_map(
            "web-held", name, {"metadata": {"finalizers": None}})
    assert space.wait_gone(name, 60) is None
