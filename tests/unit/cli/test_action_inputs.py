"""The GitHub Action's inputs (INPUT_* variables) as `run`'s command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.cli.action import invocation
from runner.errors import RunnerError

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://10.0.0.1"}}]
users: [{name: u, user: {token: tok-123456, client-key-data: S0VZ}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
"""


def test_inputs_become_runs_flags(tmp_path: Path) -> None:
    call = invocation({"INPUT_SPEC": "deploy/spec.yaml", "INPUT_ENVIRONMENT": "prod",
                       "INPUT_RELEASES": "web, api\ndb", "INPUT_PLAN": "true",
                       "INPUT_SYNC": "false", "INPUT_CONCURRENCY": "", "INPUT_GITHUB_TOKEN": "x",
                       "INPUT_WAIT_FOR_LOCK": "5m",
                       "INPUT_KUBE_TOKEN": "sekret", "INPUT_KUBE_APISERVER": "https://k"},
                      tmp_path)
    assert call.argv == ["run", "--report", "github", "--output", "text",
                         "--spec", "deploy/spec.yaml", "--environment", "prod",
                         "--wait-for-lock", "5m",
                         "--release", "web", "--release", "api", "--release", "db", "--plan",
                         "--kube-apiserver", "https://k", "--kube-token", "sekret"]
    assert call.secrets == ["sekret"]


def test_a_kubeconfig_given_as_content_is_a_private_file_and_its_credentials_masked(
        tmp_path: Path) -> None:
    call = invocation({"INPUT_KUBECONFIG": KUBECONFIG, "INPUT_KUBE_CA": "-----BEGIN"}, tmp_path)
    kubeconfig = Path(call.argv[call.argv.index("--kubeconfig") + 1])
    assert kubeconfig.read_text() == KUBECONFIG and kubeconfig.stat().st_mode & 0o077 == 0
    assert call.secrets == ["tok-123456", "S0VZ"]
    assert Path(call.argv[call.argv.index("--kube-ca-file") + 1]).read_text() == "-----BEGIN\n"


def test_a_kubeconfig_path_is_passed_as_it_is(tmp_path: Path) -> None:
    call = invocation({"INPUT_KUBECONFIG": ".kube/config"}, tmp_path)
    assert call.argv[-2:] == ["--kubeconfig", ".kube/config"] and call.secrets == []


def test_the_preview_gc_command(tmp_path: Path) -> None:
    call = invocation({"INPUT_COMMAND": "preview-gc", "INPUT_TTL": "72h",
                       "INPUT_KUBECONFIG": "k"}, tmp_path)
    assert call.argv == ["preview", "gc", "--ttl", "72h", "--kubeconfig", "k"]
    with pytest.raises(RunnerError, match="must be run, drift or preview-gc"):
        invocation({"INPUT_COMMAND": "deploy"}, tmp_path)


def test_the_drift_command(tmp_path: Path) -> None:
    call = invocation({"INPUT_COMMAND": "drift", "INPUT_ENVIRONMENT": "production",
                       "INPUT_SPEC": "ops/deploy-runner.yaml", "INPUT_KUBECONFIG": "k"}, tmp_path)
    assert call.argv == ["drift", "--report", "github", "--output", "text", "--spec",
                         "ops/deploy-runner.yaml", "--environment", "production",
                         "--kubeconfig", "k"]


def test_a_click_runs_the_environment_of_its_check_run(tmp_path: Path) -> None:
    import json

    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "requested_action", "check_run": {
        "external_id": "deploy-runner/1?release=web&namespace=prod&environment=staging"}}))
    env = {"GITHUB_EVENT_NAME": "check_run", "GITHUB_EVENT_PATH": str(event)}
    call = invocation(env, tmp_path)
    assert call.argv[call.argv.index("--environment") + 1] == "staging"
    named = invocation({**env, "INPUT_ENVIRONMENT": "production"}, tmp_path)
    assert named.argv.count("--environment") == 1
    assert named.argv[named.argv.index("--environment") + 1] == "production"


def test_every_input_of_action_yml_is_used(tmp_path: Path) -> None:
    """Each input reaches the run step as INPUT_<NAME> (but working_directory, the step's
    directory) and changes the command line (but those read elsewhere)."""
    import yaml

    metadata = yaml.safe_load((Path(__file__).parents[3] / "action.yml").read_text())
    assert metadata["runs"]["using"] == "composite"
    [run] = [s for s in metadata["runs"]["steps"] if s.get("id") == "run"]
    assert run["working-directory"] == "${{ inputs.working_directory }}"
    values = {"command": "run", "plan": "true", "sync": "true", "comment": "true",
              "detailed_exitcode": "true"}
    baseline = invocation({}, tmp_path)
    for name, spec in metadata["inputs"].items():
        assert spec["description"] and name.replace("_", "").isalnum() and name.islower()
        if name == "working_directory":
            continue
        assert run["env"][f"INPUT_{name.upper()}"] == f"${{{{ inputs.{name} }}}}", name
        if name in ("github_token", "command"):  # read by the report / choosing the command
            continue
        env = {f"INPUT_{name.upper()}": values.get(name, "x")}
        if name == "ttl":
            env["INPUT_COMMAND"] = "preview-gc"
        call = invocation(env, tmp_path)
        assert (call.argv, call.env) != (baseline.argv, baseline.env), name


def test_new_inputs_become_flags(tmp_path: Path) -> None:
    call = invocation({"INPUT_NAMESPACE": "shop", "INPUT_DETAILED_EXITCODE": "true",
                       "INPUT_EKS_CLUSTER": "prod", "INPUT_EKS_REGION": "eu-west-1",
                       "INPUT_EKS_ROLE_ARN": "arn:aws:iam::1:role/d",
                       "INPUT_RESULT_FILE": "out/r.json"}, tmp_path)
    assert call.argv == ["run", "--report", "github", "--output", "text", "--detailed-exitcode",
                         "--namespace", "shop", "--eks-cluster", "prod", "--eks-region",
                         "eu-west-1", "--eks-role-arn", "arn:aws:iam::1:role/d"]
    assert call.env == {"DEPLOY_RUNNER_RESULT": "out/r.json"}
