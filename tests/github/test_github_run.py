"""`run` inside Actions (runner.report.github.entry.GitHubRun) over the fake cluster and the
local GitHub server: no secret in the log, a request, the summary, the outputs or the
result, whether it is in an error, learned while the run goes, or known from the start;
pull_request_target runs as pull_request does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from runner.actions.release_config import ActionConfig
from runner.actions.run import RunOptions, add_secret_values
from runner.errors import RunnerError
from runner.release.redact import MASK
from runner.release.storage import Storage
from runner.report.github.entry import GitHubRun
from runner.spec.context import RunContext
from runner.spec.load import parse_spec
from testbed import octokit
from testbed.github import TOKEN, FakeGitHub
from tests.unit.fakes.cluster import FakeCluster
from tests.unit.fakes.storage import RecordingDriver
from tests.workflows.executor import env_file as parse_outputs

CANARY = "canary-5e1f0c2b9a7d"
GENERATED = "generated-7c3d9e1f"  # a chart's own Secret: learned only while deploying
SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
stringData:
  password: {{ .Values.password | quote }}
"""
SPEC = """\
releases:
- name: web
  chart: ./chart
  secretValues: [secrets.yaml]
"""


class World:
    """A checkout (spec, chart, secret values), the fake cluster, GitHub's variables."""

    def __init__(self, root: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch,
                 template: str) -> None:
        self.root, self.github, self.monkeypatch = root, github, monkeypatch
        chart = root / "chart" / "templates"
        chart.mkdir(parents=True)
        (root / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 1.0.0\n")
        (root / "chart" / "values.yaml").write_text(f"token: none\npassword: {GENERATED}\n")
        (chart / "main.yaml").write_text(template)
        (root / "secrets.yaml").write_text(f"token: {CANARY}\n")
        self.cluster = FakeCluster()
        self.drivers: dict[str, RecordingDriver] = {}
        self.kube: Any = lambda: self.cluster

    def connect(self, namespace: str) -> ActionConfig:
        return ActionConfig(self.cluster, namespace,
                            Storage(self.drivers.setdefault(namespace, RecordingDriver())))

    def run(self, event: str, payload: dict[str, Any], spec: str = SPEC, *,
            sha: str = "f" * 40, detailed_exitcode: bool = False) -> int:
        files = self.root.parent / "files"
        files.mkdir(exist_ok=True)
        (files / "event.json").write_text(json.dumps(payload))
        for name in ("output", "summary"):
            (files / name).write_text("")
        for name, value in {
                "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(files / "event.json"),
                "GITHUB_SHA": sha, "GITHUB_REPOSITORY": self.github.repository,
                "GITHUB_WORKSPACE": str(self.root), "GITHUB_API_URL": self.github.url,
                "GITHUB_RUN_ID": "7", "INPUT_GITHUB_TOKEN": TOKEN, "RUNNER_TEMP": str(files),
                "GITHUB_OUTPUT": str(files / "output"),
                "GITHUB_STEP_SUMMARY": str(files / "summary")}.items():
            self.monkeypatch.setenv(name, value)
        context = RunContext()
        loaded = parse_spec(spec, "deploy-runner.yaml", str(self.root), context=context,
                            default_namespace="ns")
        options = RunOptions()
        add_secret_values(options.redactor, loaded.releases)
        base = SimpleNamespace(in_namespace=self.connect, kube=lambda: self.kube())
        return GitHubRun(loaded, context, base, options, on_message=lambda *_: None,
                         detailed_exitcode=detailed_exitcode).run()

    def outputs(self) -> dict[str, str]:
        return parse_outputs((self.root.parent / "files" / "output").read_text())

    def shown(self, log: str) -> str:
        """Everything the step showed or sent but its ::add-mask:: lines."""
        files = self.root.parent / "files"
        lines = [line for line in log.splitlines() if not line.startswith("::add-mask::")]
        named = self.outputs().get("result")
        result = Path(named) if named else None
        return "\n".join([*lines, (files / "output").read_text(), (files / "summary").read_text(),
                          result.read_text() if result else "",
                          *self.github.everything_sent()])


def masks(log: str) -> list[str]:
    return [line.removeprefix("::add-mask::") for line in log.splitlines()
            if line.startswith("::add-mask::")]


@pytest.fixture
def world(tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> World:
    return World(tmp_path / "workspace", github, monkeypatch, SECRET)


def test_a_secret_in_a_failing_releases_error_is_hidden(
        tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path / "workspace", github, monkeypatch,
                  'x: {{ fail (printf "token %s refused" .Values.token) }}\n')
    code = world.run("push", octokit.event_payload("push"))
    log = capsys.readouterr().out
    assert code == 1 and world.outputs()["web-status"] == "failed"
    assert f"token {MASK} refused" in log and CANARY in masks(log)
    assert CANARY not in world.shown(log)
    [run] = github.check_runs.values()
    assert run.fields["conclusion"] == "failure" and f"token {MASK} refused" in json.dumps(
        run.fields["output"])


def test_a_secret_in_the_error_that_stops_the_run_is_hidden(
        world: World, github: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    """The preview's namespace cannot be made: the run stops, its error quoting a secret
    (the CLI prints it as `Error: ...`); every check run is completed, none with the text."""
    spec = SPEC + "  preview: {enabled: true}\n"

    def unreachable() -> Any:
        raise RunnerError(f"cluster refused the credentials {CANARY}")

    world.kube = unreachable
    with pytest.raises(RunnerError) as stopped:
        world.run("pull_request", octokit.event_payload("pull_request", "opened"), spec)
    assert str(stopped.value) == f"cluster refused the credentials {MASK}"
    log = capsys.readouterr().out
    assert CANARY not in world.shown(log)
    assert [r.fields["conclusion"] for r in github.check_runs.values()] == ["failure"]


def test_secrets_learned_while_running_are_masked_as_they_are_learned(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """A chart's own Secret, and the previous revision's value of a secretValues leaf: the
    redactor learns them mid-run; GitHub masks only what ::add-mask:: named, so each is
    named there too (later steps may print it), and shown nowhere else."""
    assert world.run("push", octokit.event_payload("push")) == 0
    first = capsys.readouterr().out
    assert GENERATED in masks(first) and CANARY in masks(first)
    assert GENERATED not in world.shown(first)
    assert first.splitlines()[0] != f"::add-mask::{GENERATED}"  # learned after the start

    renewed = "canary-renewed-0d9e8f7a"
    (world.root / "secrets.yaml").write_text(f"token: {renewed}\n")
    assert world.run("push", octokit.event_payload("push")) == 0
    second = capsys.readouterr().out
    assert world.outputs()["web-revision"] == "2"
    assert {CANARY, renewed, GENERATED} <= set(masks(second))
    assert not any(s in world.shown(second) for s in (CANARY, renewed, GENERATED))


def test_pull_request_target_plans_and_reports_on_the_pull_requests_head(
        world: World, github: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    """GitHub's pull_request payload, GITHUB_SHA the base branch's commit: as pull_request,
    planned (nothing written) and reported on the head commit, where the pull request
    shows it."""
    payload = octokit.event_payload("pull_request", "synchronize")
    head, base = payload["pull_request"]["head"]["sha"], payload["pull_request"]["base"]["sha"]
    code = world.run("pull_request_target", payload, sha=base)
    log = capsys.readouterr().out
    assert code == 0 and world.outputs()["web-status"] == "planned"
    assert world.drivers.get("ns") is None or world.drivers["ns"].heads("web") == []
    assert [r.fields["head_sha"] for r in github.check_runs.values()] == [head]
    assert CANARY not in world.shown(log)
    assert "pull_request_target" not in log  # not a checkout: nothing to say about it


def test_pull_request_target_says_when_the_checkout_is_not_the_pull_request(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """GitHub's default checkout under pull_request_target is the base branch: what runs
    is then not the pull request's code, which the step says (log and summary)."""
    git = ["git", "-C", str(world.root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    payload = octokit.event_payload("pull_request", "synchronize")
    assert world.run("pull_request_target", payload) == 0
    head = payload["pull_request"]["head"]["sha"]
    [warning] = [line for line in capsys.readouterr().out.splitlines()
                 if line.startswith("::warning::pull_request_target")]
    assert f"holds commit {commit[:12]}, not the pull request's head {head[:12]}" in warning
    summary = (world.root.parent / "files" / "summary").read_text()
    assert f"holds commit {commit[:12]}" in summary


def test_the_result_goes_to_the_runners_temp_never_into_the_checkout(
        world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(p.relative_to(world.root) for p in world.root.rglob("*"))
    assert world.run("push", octokit.event_payload("push")) == 0
    first = Path(world.outputs()["result"])
    assert first.parent == world.root.parent / "files" and first.is_absolute()
    assert [r["name"] for r in json.loads(first.read_text())["releases"]] == ["web"]
    assert world.run("push", octokit.event_payload("push")) == 0
    assert Path(world.outputs()["result"]) != first and first.exists()  # a step's own file
    assert sorted(p.relative_to(world.root) for p in world.root.rglob("*")) == before
    # asked for (the action's result_file input): a path in the workspace
    monkeypatch.setenv("DEPLOY_RUNNER_RESULT", "out/result.json")
    monkeypatch.chdir(world.root)
    assert world.run("push", octokit.event_payload("push")) == 0
    assert world.outputs()["result"] == str(world.root / "out" / "result.json")
    assert json.loads((world.root / "out" / "result.json").read_text())["releases"]


def test_revisions_and_statuses_are_json_objects_by_release(world: World) -> None:
    spec = SPEC + "- name: api\n  chart: ./chart\n  installed: false\n"
    assert world.run("push", octokit.event_payload("push"), spec) == 0
    outputs = world.outputs()
    assert json.loads(outputs["revisions"]) == {"web": 1, "api": None}
    assert json.loads(outputs["statuses"]) == {"web": "deployed", "api": outputs["api-status"]}
    assert outputs["changed"] == "true"


def test_detailed_exitcode_is_2_when_a_plan_would_change_anything(
        world: World, github: FakeGitHub) -> None:
    payload = octokit.event_payload("pull_request", "synchronize")
    assert world.run("pull_request", payload, detailed_exitcode=True) == 2
    assert world.outputs()["changed"] == "true"
    assert world.run("push", octokit.event_payload("push")) == 0  # deployed
    assert world.run("pull_request", payload, detailed_exitcode=True) == 0  # nothing to change
    assert world.outputs()["changed"] == "false"
