"""Runs a workflow's job as the GitHub Actions runner does, far enough for this
repository's action.yml and examples/workflows: a test utility, not part of the package.

- Each step gets its contexts (github, env, inputs, steps, secrets, vars, runner, job),
  `${{ }}` substituted in `with`, `env`, `run` and `working-directory`, its `if:` decided
  with the status functions, and fresh env files: GITHUB_OUTPUT (-> steps.<id>.outputs),
  GITHUB_ENV (-> every later step's environment), GITHUB_PATH (-> PATH, first),
  GITHUB_STEP_SUMMARY (-> the job's summary). `::add-mask::` lines are consumed and their
  values shown as *** in the log, as are the secrets.
- `uses: ./...` and the action under test (by its published name) run the local
  action.yml: a composite action's steps in its own context (its inputs from `with` and
  the defaults, its own steps context, GITHUB_ACTION_PATH), its outputs evaluated from
  `outputs.<id>.value`. INPUT_* variables are not set for a composite's steps (GitHub
  sets none: action.yml passes them in `env`).
- Any other `uses:` must be pinned to a full commit SHA and have a stand-in
  (tests/workflows/stand_ins.py) doing its part on this machine: checkout, setup-python,
  the cache, configure-aws-credentials.
- A key, shell, expression or action it does not know about raises WorkflowError.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.workflows.expressions import Evaluator, Status, condition, substitute

STEP_TIMEOUT = 900
SHA = re.compile(r"^[0-9a-f]{40}$")
JOB_KEYS = {"runs-on", "steps", "env", "permissions", "environment", "name", "if",
            "timeout-minutes", "concurrency"}
STEP_KEYS = {"id", "name", "uses", "with", "run", "shell", "env", "if", "working-directory",
             "continue-on-error"}
SHELLS = {"bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"], "sh": ["sh", "-e"]}


class WorkflowError(Exception):
    pass


@dataclass
class StepResult:
    outcome: str  # success, failure, skipped
    outputs: dict[str, str] = field(default_factory=dict)
    code: int = 0


@dataclass
class Call:
    """What a stand-in for a remote action is given, and what it hands back."""

    inputs: dict[str, str]
    env: dict[str, str]  # the step's process environment
    job: Job
    outputs: dict[str, str] = field(default_factory=dict)

    def set_env(self, name: str, value: str) -> None:
        self.job.env[name] = value

    def mask(self, value: str) -> None:
        self.job.masks.add(value)


StandIn = Callable[[Call], None]


@dataclass
class Runner:
    """The machine and GitHub around a job: directories, the event, the token's server."""

    root: Path  # RUNNER_TEMP, RUNNER_TOOL_CACHE, the workspace, the event... live under it
    repository: str
    event_name: str
    payload: dict[str, Any]
    api_url: str
    token: str
    action_name: str  # `uses: <action_name>@<ref>` runs action_dir's action.yml
    action_dir: Path
    stand_ins: dict[str, StandIn]
    sha: str = "f" * 40
    ref: str = "refs/heads/main"
    secrets: dict[str, str] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)
    base_env: dict[str, str] = field(default_factory=dict)  # the machine's variables
    checkout: Path | None = None  # the workspace, when a test keeps its files there

    @property
    def workspace(self) -> Path:
        return self.checkout or self.root / "work" / self.repository.split("/")[1]

    def directories(self) -> None:
        for path in (self.workspace, self.root / "temp", self.root / "toolcache",
                     self.root / "home", self.root / "files"):
            path.mkdir(parents=True, exist_ok=True)
        (self.root / "files" / "event.json").write_text(json.dumps(self.payload))

    def github_env(self) -> dict[str, str]:
        return {
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_EVENT_PATH": str(self.root / "files" / "event.json"),
            "GITHUB_SHA": self.sha, "GITHUB_REF": self.ref,
            "GITHUB_REF_NAME": self.ref.rsplit("/", 1)[-1],
            "GITHUB_REPOSITORY": self.repository, "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_API_URL": self.api_url, "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "job",
            "RUNNER_TEMP": str(self.root / "temp"), "RUNNER_TOOL_CACHE": str(self.root / "toolcache"),
            "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "HOME": str(self.root / "home"),
        }

    def github_context(self) -> dict[str, Any]:
        return {"event_name": self.event_name, "event": self.payload, "sha": self.sha,
                "ref": self.ref, "ref_name": self.ref.rsplit("/", 1)[-1],
                "repository": self.repository,
                "repository_owner": self.repository.split("/")[0],
                "workspace": str(self.workspace), "token": self.token,
                "server_url": "https://github.com", "api_url": self.api_url,
                "run_id": "4242", "run_attempt": "1", "job": "job", "action_path": "",
                "actor": "octocat"}


@dataclass
class Job:
    runner: Runner
    name: str
    env: dict[str, str] = field(default_factory=dict)  # workflow and job env, then GITHUB_ENV
    path: list[str] = field(default_factory=list)  # GITHUB_PATH entries, newest first
    masks: set[str] = field(default_factory=set)
    log: list[str] = field(default_factory=list)  # as the runner shows it
    raw: list[str] = field(default_factory=list)  # as the steps printed it
    summary: str = ""
    steps: dict[str, StepResult] = field(default_factory=dict)
    failed: bool = False
    counter: int = 0

    def shown(self) -> str:
        return "\n".join(self.log)

    def hide(self, line: str) -> str:
        for value in sorted(self.masks, key=len, reverse=True):
            if value:
                line = line.replace(value, "***")
        return line


@dataclass
class Scope:
    """The steps of a workflow's job, or of a composite action, and their contexts."""

    contexts: dict[str, Any]
    steps: dict[str, StepResult]
    env: dict[str, str]  # the env context of this level (workflow + job, or the caller's)
    action_path: str = ""

    def evaluator(self, job: Job, status: Status | None = None) -> Evaluator:
        contexts = {**self.contexts, "env": {**job.env, **self.env},
                    "steps": {k: {"outputs": v.outputs, "outcome": v.outcome,
                                  "conclusion": v.outcome} for k, v in self.steps.items()}}
        return Evaluator(contexts, status or Status(job.failed))


def run_job(runner: Runner, workflow: Path, job_name: str | None = None,
            inputs: Mapping[str, Any] | None = None) -> Job:
    """Run one job of `workflow` (the only one when no name is given); the Job records
    every step's outcome and outputs, the log and the summary."""
    document = yaml.safe_load(workflow.read_text())
    jobs = document.get("jobs") or {}
    if job_name is None:
        if len(jobs) != 1:
            raise WorkflowError(f"{workflow}: name one of the jobs {sorted(jobs)}")
        job_name = next(iter(jobs))
    spec = jobs[job_name]
    unknown = set(spec) - JOB_KEYS
    if unknown:
        raise WorkflowError(f"{workflow}: job keys this executor does not run: {sorted(unknown)}")
    runner.directories()
    job = Job(runner, job_name)
    github = runner.github_context()
    contexts: dict[str, Any] = {
        "github": github, "inputs": dict(inputs or {}), "secrets": {
            "GITHUB_TOKEN": runner.token, **runner.secrets},
        "vars": runner.variables, "job": {"status": "success"},
        "runner": {"os": "Linux", "arch": "X64", "temp": str(runner.root / "temp"),
                   "tool_cache": str(runner.root / "toolcache")}}
    job.masks.update(v for v in contexts["secrets"].values() if v)
    scope = Scope(contexts, job.steps, {})
    for level in (document.get("env") or {}, spec.get("env") or {}):
        for name, value in level.items():
            job.env[name] = substitute(str(value), scope.evaluator(job))
    if "if" in spec and not condition(spec["if"], scope.evaluator(job)):
        return job
    for step in spec.get("steps") or []:
        run_step(job, scope, step)
    return job


def run_step(job: Job, scope: Scope, step: dict[str, Any]) -> None:
    unknown = set(step) - STEP_KEYS
    if unknown:
        raise WorkflowError(f"step keys this executor does not run: {sorted(unknown)}")
    job.counter += 1
    step_id = str(step.get("id") or f"__step{job.counter}")
    if not condition(step.get("if", "success()"), scope.evaluator(job)):
        scope.steps[step_id] = StepResult("skipped")
        return
    evaluate = scope.evaluator(job)
    step_env = {name: substitute(str(value), evaluate) for name, value in
                (step.get("env") or {}).items()}
    if "uses" in step:
        result = uses(job, scope, step, step_env)
    elif "run" in step:
        result = run_script(job, scope, step, step_env)
    else:
        raise WorkflowError(f"a step with neither run nor uses: {step}")
    if result.outcome == "failure" and not step.get("continue-on-error"):
        job.failed = True
    scope.steps[step_id] = result


def process_env(job: Job, scope: Scope, step_env: Mapping[str, str]) -> dict[str, str]:
    env = {**job.runner.base_env, **job.runner.github_env(), **scope.env, **job.env,
           **step_env}
    if scope.action_path:
        env["GITHUB_ACTION_PATH"] = scope.action_path
    env["PATH"] = os.pathsep.join([*job.path, env.get("PATH", os.defpath)])
    return env


def run_script(job: Job, scope: Scope, step: dict[str, Any], step_env: dict[str, str]) -> StepResult:
    evaluate = scope.evaluator(job)
    shell = step.get("shell", "bash")
    if shell not in SHELLS:
        raise WorkflowError(f"the shell {shell!r} is not one this executor runs")
    script = substitute(str(step["run"]), evaluate)
    temp = job.runner.root / "temp"
    files = {name: temp / f"{name.lower()}_{uuid.uuid4().hex}" for name in
             ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
    for file in files.values():
        file.write_text("")
    script_file = temp / f"{uuid.uuid4().hex}.sh"
    script_file.write_text(script)
    env = {**process_env(job, scope, step_env), **{k: str(v) for k, v in files.items()}}
    directory = job.runner.workspace / substitute(str(step.get("working-directory", ".")),
                                                  evaluate)
    done = subprocess.run([*SHELLS[shell], str(script_file)], cwd=directory, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=STEP_TIMEOUT, check=False)
    read_log(job, done.stdout)
    outputs = env_file(files["GITHUB_OUTPUT"].read_text())
    job.env.update(env_file(files["GITHUB_ENV"].read_text()))
    job.path[:0] = [line for line in reversed(files["GITHUB_PATH"].read_text().splitlines())
                    if line]
    job.summary += files["GITHUB_STEP_SUMMARY"].read_text()
    return StepResult("success" if done.returncode == 0 else "failure", outputs,
                      done.returncode)


def read_log(job: Job, output: str) -> None:
    """The runner's side of the workflow commands it consumes: `::add-mask::` hides its
    value from every later line (and is itself never shown)."""
    for line in output.splitlines():
        job.raw.append(line)
        if line.startswith("::add-mask::"):
            job.masks.add(line.removeprefix("::add-mask::"))
            continue
        job.log.append(job.hide(line))


def env_file(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT / GITHUB_ENV as the runner reads them: name=value, or name<<DELIM,
    lines, DELIM."""
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for item in lines:
                if item == delimiter:
                    break
                body.append(item)
            else:
                raise WorkflowError(f"{name}: no closing delimiter {delimiter!r}")
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        else:
            raise WorkflowError(f"an env file line the runner refuses: {line!r}")
    return values


def uses(job: Job, scope: Scope, step: dict[str, Any], step_env: dict[str, str]) -> StepResult:
    reference = str(step["uses"])
    evaluate = scope.evaluator(job)
    given = {name: substitute(str(value), evaluate) if isinstance(value, str) else
             _scalar(value) for name, value in (step.get("with") or {}).items()}
    if reference.startswith("./"):
        return composite(job, scope, job.runner.workspace / reference, given, step_env)
    name, _, version = reference.partition("@")
    if name == job.runner.action_name:
        return composite(job, scope, job.runner.action_dir, given, step_env)
    if not SHA.match(version):
        raise WorkflowError(f"{reference}: not pinned to a full commit SHA")
    if name not in job.runner.stand_ins:
        raise WorkflowError(f"{reference}: no stand-in for this action")
    call = Call(given, process_env(job, scope, step_env), job)
    try:
        job.runner.stand_ins[name](call)
    except subprocess.CalledProcessError as error:
        job.log.append(f"##[error]{name}: {error}")
        return StepResult("failure", call.outputs, 1)
    return StepResult("success", call.outputs)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def composite(job: Job, caller: Scope, directory: Path, given: dict[str, str],
              step_env: dict[str, str]) -> StepResult:
    metadata = yaml.safe_load((directory / "action.yml").read_text())
    runs = metadata.get("runs") or {}
    if runs.get("using") != "composite":
        raise WorkflowError(f"{directory}/action.yml: runs.using {runs.get('using')!r} is not "
                            "composite")
    declared = metadata.get("inputs") or {}
    unknown = set(given) - set(declared)
    if unknown:
        raise WorkflowError(f"inputs the action does not declare: {sorted(unknown)}")
    outer = caller.evaluator(job)
    inputs = {name: given[name] if name in given else substitute(
        str(spec.get("default", "")), outer) for name, spec in declared.items()}
    github = {**caller.contexts["github"], "action_path": str(directory)}
    contexts = {**{k: v for k, v in caller.contexts.items() if k not in ("secrets", "vars")},
                "github": github, "inputs": inputs}  # a composite sees no secrets or vars
    scope = Scope(contexts, {}, {**caller.env, **step_env}, action_path=str(directory))
    failed_before, job.failed = job.failed, False
    for step in runs.get("steps") or []:
        if "run" in step and "shell" not in step:
            raise WorkflowError("a composite action's run step needs a shell")
        run_step(job, scope, step)
    failed, job.failed = job.failed, failed_before
    evaluate = scope.evaluator(job, Status(failed))
    outputs = {name: substitute(str(spec.get("value", "")), evaluate)
               for name, spec in (metadata.get("outputs") or {}).items()}
    codes = [s.code for s in scope.steps.values() if s.outcome == "failure"]
    return StepResult("failure" if failed else "success", outputs, codes[-1] if codes else 0)
