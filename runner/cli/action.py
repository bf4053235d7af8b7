"""`action`: the GitHub Action's entry point (action.yml runs `deploy-runner action`).

action.yml's last step hands it the inputs as INPUT_<NAME> variables (as GitHub hands
them to a Docker or JavaScript action): this command turns them into `run`'s command line
(`--report github` included), masks the credentials among them before anything is
printed, writes a kubeconfig or CA given as content to a private file (in a temporary
directory removed after the run, never in the checkout), and runs. Users call it
through action.yml, not by hand.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from runner.cli.cobra import Command, no_args
from runner.errors import RunnerError

TRUE = ("true", "yes", "1", "on")


def build(_name: str) -> Command:
    return Command("action", "run as a GitHub Action step (inputs from INPUT_* variables)",
                   args=no_args, run=handle)


@dataclass
class Invocation:
    argv: list[str]
    secrets: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)  # written here, removed after the run
    env: dict[str, str] = field(default_factory=dict)  # set for the run


def invocation(env: Mapping[str, str], scratch: Path) -> Invocation:
    """`run`'s arguments for the action's inputs (as GitHub passes them in `env`)."""
    def given(name: str) -> str:
        return env.get(f"INPUT_{name.upper()}", "").strip()

    if given("command") == "preview-gc":
        result = Invocation(["preview", "gc"] + (["--ttl", given("ttl")] if given("ttl") else []))
    elif given("command") in ("", "run"):
        result = Invocation(["run", "--report", "github", "--output", "text"])
        _run_flags(result, given, env)
        if given("result_file"):
            result.env["DEPLOY_RUNNER_RESULT"] = given("result_file")
    elif given("command") == "drift":
        result = Invocation(["drift", "--report", "github", "--output", "text"])
        for name in ("spec", "environment", "concurrency"):
            if given(name):
                result.argv += [f"--{name}", given(name)]
        if given("result_file"):
            result.env["DEPLOY_RUNNER_RESULT"] = given("result_file")
    else:
        raise RunnerError(f"the action's command input is {given('command')!r}: "
                          "it must be run, drift or preview-gc")
    _cluster_flags(result, scratch, given)
    return result


def _run_flags(result: Invocation, given: Callable[[str], str], env: Mapping[str, str]) -> None:
    argv = result.argv
    if not given("environment") and env.get("GITHUB_EVENT_NAME") == "check_run":
        # a click acts on the environment its check run was deployed with
        environment = _clicked_environment(env.get("GITHUB_EVENT_PATH", ""))
        if environment:
            argv += ["--environment", environment]
    for name, flag in (("spec", "--spec"), ("environment", "--environment"),
                       ("concurrency", "--concurrency"), ("wait_for_lock", "--wait-for-lock")):
        if given(name):
            argv += [flag, given(name)]
    for release in re.split(r"[\s,]+", given("releases")):
        if release:
            argv += ["--release", release]
    for name in ("plan", "sync", "detailed_exitcode"):
        if given(name).lower() in TRUE:
            argv.append(f"--{name.replace('_', '-')}")
    if given("comment").lower() in TRUE:
        argv.append("--comment")


def _clicked_environment(path: str) -> str:
    import json

    from runner.report.github.clicks import environment_of

    try:
        with open(path, encoding="utf-8") as handle:
            payload = json.load(handle)
    except (OSError, ValueError):
        return ""  # `run` reads the payload again and says what is wrong with it
    return environment_of(payload) if isinstance(payload, dict) else ""


def _cluster_flags(result: Invocation, scratch: Path, given: Callable[[str], str]) -> None:
    argv = result.argv
    for name in ("namespace", "kube_context", "kube_apiserver", "eks_cluster", "eks_region",
                 "eks_role_arn"):
        if given(name):
            argv += [f"--{name.replace('_', '-')}", given(name)]
    if given("kube_token"):
        result.secrets.append(given("kube_token"))
        argv += ["--kube-token", given("kube_token")]
    if given("kube_ca"):
        argv += ["--kube-ca-file", str(_private_file(result, scratch, "ca.crt", given("kube_ca")))]
    kubeconfig = given("kubeconfig")
    if kubeconfig:
        if "\n" in kubeconfig or kubeconfig.lstrip().startswith(("apiVersion", "{")):
            result.secrets += kubeconfig_secrets(kubeconfig)
            kubeconfig = str(_private_file(result, scratch, "kubeconfig", kubeconfig))
        argv += ["--kubeconfig", kubeconfig]


def kubeconfig_secrets(text: str) -> list[str]:
    """The credentials in a kubeconfig (each user's token, password, keys and
    certificates): what must be masked, and nothing else, so that the log keeps its
    `apiVersion: v1` lines."""
    import yaml

    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError:
        return [text]  # unreadable: mask it whole rather than guess
    secrets = []
    for entry in (config or {}).get("users") or [] if isinstance(config, dict) else []:
        user = (entry or {}).get("user") or {}
        for key in ("token", "password", "client-key-data", "client-certificate-data"):
            if isinstance(user.get(key), str) and user[key]:
                secrets.append(user[key])
    return secrets


def _private_file(result: Invocation, scratch: Path, name: str, content: str) -> Path:
    path = scratch / name
    path.touch(mode=0o600)
    path.write_text(content if content.endswith("\n") else content + "\n")
    result.files.append(path)
    return path


def handle(args: object) -> int:
    from runner.cli import main
    from runner.report.workflow import Workflow

    # the credentials' files: in the runner's temporary directory, not the checkout
    with tempfile.TemporaryDirectory(prefix="deploy-runner-action-",
                                     dir=os.environ.get("RUNNER_TEMP") or None) as scratch:
        call = invocation(os.environ, Path(scratch))
        Workflow.from_environment().mask(call.secrets)
        os.environ.update(call.env)
        return main(call.argv)
