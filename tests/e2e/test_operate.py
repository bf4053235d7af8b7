"""Operating from GitHub (issue 27), as GitHub runs the Action (action.yml through the
tests' runner) against the local GitHub server and the testbed: a click on a release check
run's rollback button by a writer (rolled back, a new check run) and by a reader (refused,
nothing changed), a click on a commit no longer deployed, a reader in one of the spec's
github.deployTeams (allowed) and one in none (refused); "Deploy again" after a deploy of
Bitnami's nginx (a corpus chart) timed out on nodes nobody had labelled yet; a `kubectl edit` of a deployed
object, `command: drift` (issue opened, an annotation at the template line), a deploy
removing the drift, drift again (issue closed)."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from testbed import octokit
from testbed.github import FakeGitHub
from tests.corpus import corpus_chart
from tests.e2e.github_action import StepResult, run_step
from tests.e2e.release_helpers import get_object

pytestmark = pytest.mark.e2e

CONFIG = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  message: {{ .Values.message | quote }}
  colour: blue
"""
SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
stringData:
  token: {{ .Values.token | quote }}
"""
FIRST, SECOND = "a" * 40, "b" * 40


def write_repository(root: Path, namespace: str, message: str, canary: str,
                     github: str = "") -> None:
    chart = root / "charts" / "web"
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: web\nversion: 1.0.0\n")
    (chart / "values.yaml").write_text(f"message: {message}\ntoken: none\n")
    (chart / "templates" / "config.yaml").write_text(CONFIG)
    (chart / "templates" / "secret.yaml").write_text(SECRET)
    (root / "secrets.yaml").write_text(f"token: {canary}\n")
    (root / "deploy-runner.yaml").write_text(f"""\
releases:
- name: web
  namespace: {namespace}
  chart: charts/web
  secretValues: [secrets.yaml]
  historyMax: 5
  historyDepth: 2
  forceConflicts: true  # a deploy takes back what a kubectl edit took
""" + github)


@pytest.fixture
def step(action_dir: Path, cache_store: Path) -> Any:
    def run(github: FakeGitHub, cluster: Any, root: Path, event: str, payload: dict[str, Any],
            sha: str = FIRST, **inputs: str) -> StepResult:
        kubeconfig = Path(cluster.kubeconfig).read_text()
        return run_step(github, root, event, payload, {"kubeconfig": kubeconfig, **inputs},
                        sha=sha, action_dir=action_dir, cache_store=cache_store)

    return run


def helm_history(helm: Any, namespace: str) -> list[tuple[int, str, str]]:
    listed = helm("history", "web", "-n", namespace, "-o", "json")
    assert listed.returncode == 0, listed.stderr
    return [(int(r["revision"]), r["status"], r["description"]) for r in json.loads(listed.stdout)]


def message(cluster: Any, namespace: str) -> str:
    found = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/web-config")
    assert found is not None
    return str(found["data"]["message"])


def test_rollback_button(cluster: Any, namespace: str, helm: Any, tmp_path: Path,
                         step: Any) -> None:
    root = tmp_path / "workspace"
    canary = f"canary-{uuid.uuid4().hex}"
    with FakeGitHub() as github:
        github.permissions.update(writer="write", reader="read")
        write_repository(root, namespace, "first", canary)
        assert step(github, cluster, root, "push", octokit.event_payload("push")).code == 0
        [first] = github.runs_named("deploy-runner web")
        assert "actions" not in first.fields  # nothing to roll back to: no button
        write_repository(root, namespace, "second", canary)
        pushed = step(github, cluster, root, "push", octokit.event_payload("push"), sha=SECOND)
        assert pushed.code == 0, pushed.log
        second = next(r for r in github.runs_named("deploy-runner web")
                      if r.fields["head_sha"] == SECOND)
        assert second.fields["actions"] == [{"label": "Roll back to rev. 1",
                                             "description": "Roll back to revision 1",
                                             "identifier": "rollback"}]
        assert message(cluster, namespace) == "second"

        # a reader clicks: refused, said so in a check run, nothing changed
        refused = step(github, cluster, root, "check_run",
                       github.requested_action(second.id, "rollback", "reader"), sha=FIRST)
        assert refused.code == 1, refused.log
        [answer] = github.runs_named("deploy-runner rollback web")
        assert answer.fields["conclusion"] == "failure"
        assert answer.fields["head_sha"] == SECOND  # the clicked check run's commit
        summary = answer.fields["output"]["summary"]
        assert "@reader" in summary and "read" in summary and "may not deploy" in summary
        assert [r[0] for r in helm_history(helm, namespace)] == [1, 2]
        assert message(cluster, namespace) == "second"

        # a writer clicks: rolled back with the spec's history settings, a new check run
        # on the same commit that links back to the clicked one
        rolled = step(github, cluster, root, "check_run",
                      github.requested_action(second.id, "rollback", "writer"), sha=FIRST)
        assert rolled.code == 0, rolled.log
        history = helm_history(helm, namespace)
        assert [r[:2] for r in history] == [(1, "superseded"), (2, "superseded"), (3, "deployed")]
        assert history[-1][2].startswith("Rollback to 1")
        assert message(cluster, namespace) == "first"
        done = [r for r in github.runs_named("deploy-runner rollback web")
                if r.fields["conclusion"] == "success"]
        assert len(done) == 1 and done[0].fields["head_sha"] == SECOND
        assert f"https://github.com/{github.repository}/runs/{second.id}" in \
            done[0].fields["output"]["summary"]

        # the same click again: revision 3 is deployed now, not the check run's 2
        late = step(github, cluster, root, "check_run",
                    github.requested_action(second.id, "rollback", "writer"), sha=FIRST)
        assert late.code == 0, late.log
        stale = [r for r in github.runs_named("deploy-runner rollback web")
                 if r.fields["conclusion"] == "neutral"]
        assert len(stale) == 1 and "no longer the deployed one" in stale[0].fields["output"]["summary"]
        assert [r[0] for r in helm_history(helm, namespace)] == [1, 2, 3]
        assert github.rejections == []
        assert not any(canary in sent for sent in github.everything_sent())


def test_a_member_of_a_deploy_team_may_click_where_repository_readers_may_not(
        cluster: Any, namespace: str, helm: Any, tmp_path: Path, step: Any) -> None:
    root = tmp_path / "workspace"
    canary = f"canary-{uuid.uuid4().hex}"
    teams = "github:\n  deployTeams: [acme/deployers, acme/sre]\n"
    with FakeGitHub() as github:
        github.permissions.update(teammate="read", outsider="read")
        github.teams.update({"acme/deployers": {"someone-else"}, "acme/sre": {"teammate"}})
        write_repository(root, namespace, "first", canary, teams)
        assert step(github, cluster, root, "push", octokit.event_payload("push")).code == 0
        write_repository(root, namespace, "second", canary, teams)
        assert step(github, cluster, root, "push", octokit.event_payload("push"), sha=SECOND).code == 0
        second = next(r for r in github.runs_named("deploy-runner web")
                      if r.fields["head_sha"] == SECOND)

        refused = step(github, cluster, root, "check_run",
                       github.requested_action(second.id, "rollback", "outsider"), sha=SECOND)
        assert refused.code == 1, refused.log
        [answer] = github.runs_named("deploy-runner rollback web")
        summary = answer.fields["output"]["summary"]
        assert "@outsider may not deploy" in summary and "acme/deployers, acme/sre" in summary
        assert message(cluster, namespace) == "second"

        rolled = step(github, cluster, root, "check_run",
                      github.requested_action(second.id, "rollback", "teammate"), sha=SECOND)
        assert rolled.code == 0, rolled.log
        assert [r[:2] for r in helm_history(helm, namespace)][-1] == (3, "deployed")
        assert message(cluster, namespace) == "first"
        assert len(github.calls("teams/get-membership-for-user-in-org")) >= 3
        assert github.rejections == []


def test_redeploy_button_after_a_deploy_that_failed_for_a_reason_since_fixed(
        cluster: Any, namespace: str, helm: Any, tmp_path: Path, step: Any) -> None:
    """Bitnami's nginx (a corpus chart) asks for nodes labelled for it; none is until an
    operator labels one: the deploy times out waiting, then "Deploy again" succeeds."""
    root = tmp_path / "workspace"
    shutil.copytree(corpus_chart("bitnami-nginx"), root / "charts" / "nginx")
    label = f"deploy-runner.test/pool-{uuid.uuid4().hex[:8]}"
    (root / "deploy-runner.yaml").write_text(f"""\
releases:
- name: web
  namespace: {namespace}
  chart: charts/nginx
  values: [values.yaml]
  wait: watcher
  timeout: 15s
""")
    client = cluster.client()
    with FakeGitHub() as github:
        github.permissions["writer"] = "write"
        (root / "values.yaml").write_text("nodeSelector: {}\n")
        assert step(github, cluster, root, "push", octokit.event_payload("push")).code == 0
        (root / "values.yaml").write_text(f"nodeSelector:\n  {label}: \"yes\"\n")
        failed = step(github, cluster, root, "push", octokit.event_payload("push"), sha=SECOND)
        assert failed.code == 1, failed.log
        run = next(r for r in github.runs_named("deploy-runner web") if r.fields["head_sha"] == SECOND)
        assert run.fields["conclusion"] == "failure"
        assert [a["identifier"] for a in run.fields["actions"]] == ["rollback", "redeploy"]
        assert [r[:2] for r in helm_history(helm, namespace)] == [(1, "deployed"), (2, "failed")]

        [node, *_] = client.request("GET", "/api/v1/nodes").body["items"]
        path = f"/api/v1/nodes/{node['metadata']['name']}"
        reply = client.request("PATCH", path, body={"metadata": {"labels": {label: "yes"}}},
                               content_type="application/merge-patch+json")
        assert reply.ok, reply.message
        try:
            again = step(github, cluster, root, "check_run",
                         github.requested_action(run.id, "redeploy", "writer"), sha=SECOND)
        finally:
            client.request("PATCH", path, body={"metadata": {"labels": {label: None}}},
                           content_type="application/merge-patch+json")
        assert again.code == 0, again.log
        [answer] = github.runs_named("deploy-runner redeploy web")
        assert answer.fields["conclusion"] == "success" and answer.fields["head_sha"] == SECOND
        assert [r[:2] for r in helm_history(helm, namespace)][-1] == (3, "deployed")
        deployment = get_object(cluster, f"/apis/apps/v1/namespaces/{namespace}/deployments/web-nginx")
        assert deployment is not None
        assert deployment["spec"]["template"]["spec"]["nodeSelector"] == {label: "yes"}
        assert github.rejections == []


def kubectl_edit(cluster: Any, namespace: str) -> None:
    """What `kubectl edit` sends: a patch under its own field manager."""
    from kubernetes import client

    client.CoreV1Api(cluster.api_client).patch_namespaced_config_map(
        "web-config", namespace, {"data": {"colour": "red"}}, field_manager="kubectl-edit")


def test_drift_issue_lifecycle(cluster: Any, namespace: str, tmp_path: Path, step: Any) -> None:
    root = tmp_path / "workspace"
    canary = f"canary-{uuid.uuid4().hex}"
    write_repository(root, namespace, "hello", canary)
    nightly = {"schedule": "0 3 * * *"}
    with FakeGitHub() as github:
        assert step(github, cluster, root, "push", octokit.event_payload("push")).code == 0
        clean = step(github, cluster, root, "schedule", nightly, command="drift")
        assert clean.code == 0, clean.log
        assert clean.outputs["drift"] == "false" and github.issues == {}

        kubectl_edit(cluster, namespace)
        drifted = step(github, cluster, root, "schedule", nightly, command="drift")
        assert drifted.code == 2, drifted.log
        assert drifted.outputs["drift"] == "true"
        [issue] = github.issues_labelled("deploy-runner/drift")
        assert issue["state"] == "open" and issue["title"] == "deploy-runner drift (default)"
        assert "ConfigMap/web-config" in issue["body"]
        runs = github.runs_named("deploy-runner drift (default)")
        assert [r.fields["conclusion"] for r in runs] == ["success", "failure"]
        template = (root / "charts/web/templates/config.yaml").read_text().splitlines()
        colour_line = next(i for i, line in enumerate(template, 1) if "colour:" in line)
        assert [(a["path"], a["start_line"]) for a in runs[1].annotations] == \
            [("charts/web/templates/config.yaml", colour_line)]

        again = step(github, cluster, root, "schedule", nightly, command="drift")
        assert again.code == 2
        assert len(github.issues) == 1  # one issue, its body updated
        assert [c.body.keys() for c in github.calls("issues/update")] == [{"body"}]

        fixed = step(github, cluster, root, "push", octokit.event_payload("push"))
        assert fixed.code == 0, fixed.log
        assert get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/web-config"
                          )["data"]["colour"] == "blue"
        gone = step(github, cluster, root, "schedule", nightly, command="drift")
        assert gone.code == 0, gone.log
        assert issue["state"] == "closed" and len(github.issues) == 1, gone.log
        assert github.calls("issues/update")[-1].body == {"state": "closed",
                                                          "state_reason": "completed"}
        assert any(c["issue"] == issue["number"] and "No drift any more" in c["body"]
                   for c in github.comments.values())
        assert github.rejections == []
        assert not any(canary in sent for sent in github.everything_sent())
