"""The AWS Lambda front end: an event in, a run of the spec (runner.actions.run.run_spec, as
`deploy-runner run`), its JSON result out (docs/run-json.md). docs/lambda.md is the
user's page; lambda/handler.py only calls `handle`.

    event -> runner.aws.lambda_events (pushes, a direct run, skips, errors)
          -> the spec (runner.aws.lambda_config: S3, SSM, a file of the package, or the event's)
          -> a push: the releases whose chart it is (runner.awslambda.charts), the pushed
             chart fetched and checked once
          -> run_spec on the cluster (EKS, a kubeconfig from Secrets Manager, KUBECONFIG),
             within the invocation's time, never rolling back
          -> one log line per release (runner.awslambda.log), check runs on the chart's
             commit (runner.awslambda.github), the answer

The answer: one event, one run -> the run's JSON (with `trigger` and `error: null`); an
event with nothing to deploy -> `{"error": null, "skipped": why, "trigger", "releases": []}`;
one not understood -> `{"error": what, "releases": []}`; SQS -> `{"batchItemFailures":
[...], "runs": [one answer per message's event]}`; several S3 records -> `{"runs": [...]}`.
Nothing raises out of `handle`.

A warm container keeps the cluster connection, the content cache and AWS clients, and
nothing of an invocation's own: each run has its own redactor, messages and result; a
failure is never kept (the next invocation tries again).
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from typing import Any

from runner.aws import lambda_events
from runner.aws.lambda_events import DirectRun, Invalid, Push, Skipped
from runner.awslambda.log import Logger
from runner.errors import RunnerError

SPEC_VARIABLE = "DEPLOY_RUNNER_SPEC"
ENVIRONMENT_VARIABLE = "DEPLOY_RUNNER_ENVIRONMENT"
KUBECONFIG_SECRET_VARIABLE = "DEPLOY_RUNNER_KUBECONFIG_SECRET"
GITHUB_SECRET_VARIABLE = "DEPLOY_RUNNER_GITHUB_SECRET"
GITHUB_API_VARIABLE = "DEPLOY_RUNNER_GITHUB_API_URL"
DEFAULT_SPEC = "deploy-runner.yaml"
# Kept back from the function's remaining time: the larger of these, so a deploy stops
# (its revision recorded failed, its lock released, the answer returned) well before
# Lambda ends the invocation.
RESERVE_SECONDS = 15.0
RESERVE_SHARE = 0.10

_state = {"cold": True, "prepared": False}
_lock = threading.Lock()
_connections: dict[Any, Any] = {}  # ClusterAccess -> the connected ActionConfig


def handle(event: Any, context: Any = None) -> dict[str, Any]:
    """The answer to one invocation (see the module's docstring)."""
    with _lock:
        cold, _state["cold"] = _state["cold"], False
    log = Logger(context, cold)
    try:
        prepare()
        return Invocation(log, deadline(context)).answer(event)
    except Exception as err:  # noqa: BLE001 - never an exception out of the handler
        from runner.errors import internal_error

        message = str(err) if isinstance(err, RunnerError) else str(internal_error(err))
        log.line("ERROR", "invocation failed", error=message)
        return {"error": message, "releases": []}


def prepare() -> None:
    """Once per container: every cache and config of deploy-runner and Helm under the
    function's /tmp (the only writable path)."""
    with _lock:
        if _state["prepared"]:
            return
        root = os.path.join(tempfile.gettempdir(), "deploy-runner")
        home = os.environ.get("HOME", "")
        if not home or not os.access(home, os.W_OK):
            os.environ["HOME"] = os.path.join(root, "home")
        for variable, folder in (("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"),
                                 ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
            os.environ.setdefault(variable, os.path.join(root, folder))
        _state["prepared"] = True


def deadline(context: Any) -> float | None:
    """The time.monotonic() by which a run stops: the invocation's remaining time less the
    reserve (None outside Lambda, when the context cannot say)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is None:
        return None
    seconds = max(0.0, float(remaining()) / 1000.0)
    return time.monotonic() + seconds - max(RESERVE_SECONDS, RESERVE_SHARE * seconds)


class Invocation:
    """One event's work."""

    def __init__(self, log: Logger, stop_at: float | None) -> None:
        self.log = log
        self.stop_at = stop_at

    def answer(self, event: Any) -> dict[str, Any]:
        parsed = lambda_events.parse(event)
        answers, failed = [], []
        for item in parsed.items:
            answer, failure = self._item(item.what)
            answers.append(answer)
            if failure and item.message_id:
                failed.append(item.message_id)
        if parsed.sqs:
            return {"batchItemFailures": [{"itemIdentifier": m} for m in dict.fromkeys(failed)],
                    "runs": answers}
        return answers[0] if len(answers) == 1 else {"runs": answers, "error": None}

    def _item(self, what: Push | DirectRun | Skipped | Invalid) -> tuple[dict[str, Any], bool]:
        """(the answer, whether it failed: an SQS message to be delivered again)."""
        if isinstance(what, Invalid):
            self.log.line("WARN", "event not understood", error=what.error)
            return {"error": what.error, "releases": []}, True
        if isinstance(what, Skipped):
            return self._skipped(what.reason, what.trigger), False
        trigger = what.describe() if isinstance(what, Push) else {"kind": "invoke"}
        try:
            if isinstance(what, Push):
                return self._push(what)
            return self._direct(what)
        except Exception as err:  # noqa: BLE001 - one item's failure, never the batch's answer
            from runner.errors import internal_error

            message = str(err) if isinstance(err, RunnerError) else str(internal_error(err))
            self.log.line("ERROR", "run failed", error=message, trigger=trigger)
            return {"error": message, "trigger": trigger, "releases": []}, True

    def _skipped(self, reason: str, trigger: dict[str, Any] | None) -> dict[str, Any]:
        self.log.line("INFO", "event skipped", reason=reason, trigger=trigger)
        return {"error": None, "skipped": reason, "trigger": trigger, "releases": []}

    # -- a push -------------------------------------------------------------------------

    def _push(self, push: Push) -> tuple[dict[str, Any], bool]:
        from runner.awslambda import charts

        pushed = charts.pushed_chart(push)
        trigger = {**push.describe(), "version": pushed.version}
        spec, environment = self._spec(configured_spec(), environment="")
        reasons = {r.key: charts.matches(r, pushed) for r in spec.releases}
        if all(reasons.values()):
            why = "; ".join(f"{key}: {reason}" for key, reason in list(reasons.items())[:5])
            return self._skipped(f"no release of {spec.source} takes {pushed.location} {pushed.version}"
                                 + (f" ({why})" if why else ""), trigger), False
        fetched = charts.fetch(push, pushed)
        spec.releases = [charts.deploying(r, pushed, fetched) if not reasons[r.key] else r
                         for r in spec.releases]
        from runner.actions.run import RunOptions

        options = RunOptions(forward_only=True, not_selected={k: v for k, v in reasons.items() if v})
        data, failed = self._run(spec, environment, options, trigger)
        self._github(data, fetched, environment)
        return data, failed

    def _github(self, data: dict[str, Any], fetched: Any, environment: str) -> None:
        secret_id = os.environ.get(GITHUB_SECRET_VARIABLE, "")
        if not secret_id:
            return
        from runner.aws.lambda_config import github_credentials
        from runner.awslambda import github

        why = github.why_not(fetched.source, fetched.revision)
        if why:
            self.log.line("INFO", "no GitHub report", reason=why)
            return
        try:
            credentials = github_credentials(secret_id)
        except RunnerError as err:
            self.log.line("WARN", "no GitHub report", reason=str(err))
            return
        warnings = github.post(data, fetched.source, fetched.revision, credentials,
                               os.environ.get(GITHUB_API_VARIABLE) or github.DEFAULT_API_URL,
                               "" if environment == "default" else environment)
        self.log.line("WARN" if warnings else "INFO", "GitHub report", repository=github.repository_of(fetched.source),
                      revision=fetched.revision, warnings=warnings)

    # -- a direct run -------------------------------------------------------------------

    def _direct(self, run: DirectRun) -> tuple[dict[str, Any], bool]:
        from runner.actions.run import RunOptions

        if run.spec is not None:
            spec, environment = self._spec(None, run.environment, payload=run.spec)
        else:
            spec, environment = self._spec(run.spec_ref or configured_spec(), run.environment,
                                            from_event=bool(run.spec_ref))
        options = RunOptions(plan=run.plan, releases=list(run.releases))
        return self._run(spec, environment, options, {"kind": "invoke"})

    # -- the spec and the run -----------------------------------------------------------

    def _spec(self, where: str | None, environment: str, *, payload: Any = None,
              from_event: bool = False) -> tuple[Any, str]:
        """(the spec, where it is or the event's; the environment: the one asked, else the
        configured one), releases without a namespace in the cluster's default one."""
        from runner.aws.lambda_config import read_spec
        from runner.kube.kubeconfig import default_namespace
        from runner.spec.load import environment_access, parse_spec, spec_from_payload

        environment = environment or os.environ.get(ENVIRONMENT_VARIABLE) or "default"
        context = lambda_context(environment)
        access = cluster_access()

        def namespace(eks: Any) -> str:
            return default_namespace(environment_access(access, eks))

        if where is None:
            spec = spec_from_payload(payload, context=context, base_dir=task_root(), default_namespace=namespace)
        else:
            found = read_spec(where, task_root(), from_event=from_event)
            spec = parse_spec(found.text, found.source, found.base_dir, context=context,
                              default_namespace=namespace)
        return spec, environment

    def _run(self, spec: Any, environment: str, options: Any,
             trigger: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        from runner.actions.run import add_secret_values, run_spec

        options.deadline = self.stop_at
        if self.stop_at is not None:  # another deploy of the release (a retried event) may hold its lock
            options.wait_for_lock = max(0.0, self.stop_at - time.monotonic()) / 2
        add_secret_values(options.redactor, spec.releases)
        with options.redactor.hiding_errors():
            base = connection(spec.cluster_access(cluster_access()))
            result = run_spec(spec, lambda_context(environment), base.in_namespace, options)
        data = options.redactor.redact_data(result.to_json())
        data["trigger"], data["error"] = trigger, None
        for release in data["releases"]:
            if release["status"] != "not-selected":
                self._release_line(release, trigger)
        return data, result.failed

    def _release_line(self, release: dict[str, Any], trigger: dict[str, Any]) -> None:
        failed = release["status"] == "failed"
        self.log.line("ERROR" if failed else "INFO",
                      f"release {release['namespace']}/{release['name']} {release['status']}",
                      release=release["name"], namespace=release["namespace"], status=release["status"],
                      action=release["action"], chart=release["chart"], chart_version=release["chart_version"],
                      revision=release["revision"], previous_revision=release["previous_revision"],
                      reason=release["reason"], error=release["error"],
                      seconds=(release.get("timings") or {}).get("total_seconds"), trigger=trigger)


def configured_spec() -> str:
    return os.environ.get(SPEC_VARIABLE) or DEFAULT_SPEC


def task_root() -> str:
    """The function's package (where a spec file of the package and its charts are)."""
    return os.environ.get("LAMBDA_TASK_ROOT") or os.getcwd()


def lambda_context(environment: str) -> Any:
    """The run's context: no commit, no GitHub event (every release's `when` is moot)."""
    from runner.spec.context import NAMES, RunContext

    why = "a Lambda invocation has no commit or GitHub event"
    return RunContext(environment, event=None, reasons={name: why for name in NAMES})


def cluster_access() -> Any:
    """The cluster of the configuration: the DEPLOY_RUNNER_EKS_* variables, else a kubeconfig
    from Secrets Manager (DEPLOY_RUNNER_KUBECONFIG_SECRET), else KUBECONFIG; a spec
    environment's `eks` is added when none names a cluster."""
    from dataclasses import replace

    from runner.kube.kubeconfig import ClusterAccess

    access = ClusterAccess.from_env()
    secret_id = os.environ.get(KUBECONFIG_SECRET_VARIABLE, "")
    if secret_id and not access.eks_cluster:
        from runner.aws.lambda_config import kubeconfig_file

        directory = os.path.join(tempfile.gettempdir(), "deploy-runner", "kube")
        access = replace(access, kubeconfig=kubeconfig_file(secret_id, directory))
    return access


def connection(access: Any) -> Any:
    """The connected ActionConfig of `access`, made once per container (its clients, EKS
    token and discovery kept warm); a failed connection is not kept."""
    with _lock:
        found = _connections.get(access)
    if found is not None:
        return found
    from runner.actions.release_config import ActionConfig

    made = ActionConfig.connect(access=access)  # no journal: it outlives each run's
    with _lock:
        _connections[access] = made
    return made
