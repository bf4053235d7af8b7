"""`run` over the fake cluster: selection, needs order, concurrency, skipped dependants,
apply (no revision without a change) vs sync, plan writing nothing, uninstall order."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from runner.actions.release_config import ActionConfig
from runner.actions.run import RunOptions, run_spec
from runner.release.redact import MASK
from runner.release.storage import Storage
from runner.spec.context import RunContext
from runner.spec.load import parse_spec
from runner.spec.result import (
    DEPLOYED,
    FAILED,
    NOT_SELECTED,
    PLANNED,
    SKIPPED,
    UNCHANGED,
    UNINSTALLED,
)
from tests.unit.fakes.cluster import FakeCluster
from tests.unit.fakes.storage import RecordingDriver

CM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  message: {{ .Values.message | quote }}
"""
SPEC = """\
releases:
- name: db
  chart: ./chart
- name: cache
  chart: ./chart
  values: [{message: cache}]
- name: api
  chart: ./chart
  needs: [db, cache]
  set: [{name: message, value: api}]
"""


class OrderedCluster(FakeCluster):
    """Records when each release's objects are written, and who was writing at once."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.events: list[str] = []
        self.events_lock = threading.Lock()

    def create(self, resources, **kw):
        with self.events_lock:
            self.events += [f"write {r.name}" for r in resources]
        return super().create(resources, **kw)

    def update(self, current, target, **kw):
        with self.events_lock:
            self.events += [f"write {r.name}" for r in target]
        return super().update(current, target, **kw)


@pytest.fixture
def world(tmp_path: Path):
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 1.0.0\n")
    (chart / "values.yaml").write_text("message: hello\n")
    (chart / "templates" / "cm.yaml").write_text(CM)
    cluster = OrderedCluster()
    drivers: dict[str, RecordingDriver] = {}

    def connect(namespace: str) -> ActionConfig:
        return ActionConfig(cluster, namespace, Storage(drivers.setdefault(namespace, RecordingDriver())))

    return tmp_path, cluster, drivers, connect


def _run(world, text=SPEC, context=None, **options):
    root, _, _, connect = world
    (root / "deploy-runner.yaml").write_text(text)
    context = context or RunContext()
    spec = parse_spec(text, "deploy-runner.yaml", str(root), context=context, default_namespace="ns")
    return run_spec(spec, context, connect, RunOptions(**options))


def _states(result):
    return {r.name: (r.action, r.status, r.revision) for r in result.releases}


def test_releases_deploy_in_needs_order_and_a_second_run_changes_only_what_changed(world):
    _, cluster, drivers, _ = world
    result = _run(world)
    assert _states(result) == {"db": ("install", DEPLOYED, 1), "cache": ("install", DEPLOYED, 1),
                               "api": ("install", DEPLOYED, 1)}
    assert cluster.events[-1] == "write api-config"  # after both of its needs
    assert cluster.get("ConfigMap", "api-config")["data"]["message"] == "api"

    changed = SPEC.replace("{message: cache}", "{message: cache v2}")
    again = _run(world, changed)
    assert _states(again) == {"db": ("none", UNCHANGED, 1), "cache": ("upgrade", DEPLOYED, 2),
                              "api": ("none", UNCHANGED, 1)}
    [change] = next(r for r in again.releases if r.name == "cache").diff.changes
    assert (change.key, change.change) == ("ns, cache-config, ConfigMap (v1)", "modify")
    assert [h.version for h in drivers["ns"].heads("db")] == [1]


def test_sync_upgrades_every_release(world):
    _run(world)
    assert {r.status for r in _run(world, sync=True).releases} == {DEPLOYED}


def test_plan_writes_nothing_and_says_what_would_happen(world):
    _, cluster, drivers, _ = world
    result = _run(world, plan=True)
    assert _states(result) == {"db": ("install", PLANNED, 1), "cache": ("install", PLANNED, 1),
                               "api": ("install", PLANNED, 1)}
    assert cluster.objects == {} and all(not d.heads(n) for d in drivers.values() for n in ("db", "api"))
    assert result.changed and not result.failed


def test_a_failed_release_skips_what_needs_it_and_not_the_others(world):
    _, cluster, _, _ = world
    cluster.fail("apply", "ConfigMap/cache-config")
    result = _run(world)
    assert _states(result)["db"] == ("install", DEPLOYED, 1)
    cache, api = result.releases[1], result.releases[2]
    assert cache.status == FAILED and "the server said no" in cache.error
    assert cache.evidence and "failed" in cache.evidence[0]
    assert (api.status, api.reason) == (SKIPPED, "it needs ns/cache, which failed")
    assert cluster.get("ConfigMap", "api-config") is None


def test_independent_releases_run_at_once_within_the_bound(world):
    _, cluster, _, _ = world
    together = threading.Barrier(3, timeout=10)  # passes only when three write at once
    running, most = [0], [0]
    create = cluster.create

    def gated(resources, **kw):
        with cluster.events_lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        together.wait()
        try:
            return create(resources, **kw)
        finally:
            with cluster.events_lock:
                running[0] -= 1

    cluster.create = gated
    text = "releases:\n" + "".join(f"- {{name: r{i}, chart: ./chart}}\n" for i in range(6))
    result = _run(world, text, concurrency=3)
    assert {r.status for r in result.releases} == {DEPLOYED}
    assert most[0] == 3


def test_uninstalled_releases_go_after_those_that_need_them(world):
    _, cluster, _, _ = world
    _run(world)
    removing = SPEC.replace("- name: cache\n  chart: ./chart\n", "- name: cache\n  chart: ./chart\n"
                            "  installed: false\n").replace("needs: [db, cache]", "needs: [db, cache]\n"
                                                            "  installed: false")
    result = _run(world, removing)
    assert _states(result)["cache"][:2] == ("uninstall", UNINSTALLED)
    assert _states(result)["api"][:2] == ("uninstall", UNINSTALLED)
    assert cluster.get("ConfigMap", "cache-config") is None and cluster.get("ConfigMap", "db-config")
    assert _states(_run(world, removing))["cache"] == ("none", UNCHANGED, None)


def test_when_selects_by_branch_and_changed_paths_on_an_event_and_release_by_name(world):
    text = """\
releases:
- {name: a, chart: ./chart, when: {branches: [main]}}
- {name: b, chart: ./chart, when: {paths: ['charts/b/**']}}
- {name: c, chart: ./chart}
"""
    push = RunContext("default", "push", {"branch": lambda: "feature/x"}, {},
                      changed_paths=lambda: ["charts/b/values.yaml"])
    states = _states(_run(world, text, push, plan=True))
    assert states == {"a": ("none", NOT_SELECTED, None), "b": ("install", PLANNED, 1),
                      "c": ("install", PLANNED, 1)}
    local = _states(_run(world, text, plan=True, releases=["a"]))
    assert local == {"a": ("install", PLANNED, 1), "b": ("none", NOT_SELECTED, None),
                     "c": ("none", NOT_SELECTED, None)}


def test_an_unknown_release_name_is_refused(world):
    from runner.errors import RunnerError

    with pytest.raises(RunnerError, match="--release nope: no release of the spec"):
        _run(world, releases=["nope"])


def test_helms_debug_lines_are_not_a_releases_messages(world):
    """Install and upgrade log their steps at debug level (--debug shows them); the result's
    `messages` are warnings, so none of those lines."""
    result = _run(world, "releases:\n- name: db\n  chart: ./chart\n")
    [db] = result.releases
    assert db.status == DEPLOYED and not any("level=DEBUG" in m for m in db.messages)


def test_a_deploys_hook_logs_as_the_result_keeps_them():
    """One entry per container the deploy captured (its log policy kept it), failed or not:
    Kind/name, the phase, the lines under the spec's cap, and the template to annotate."""
    from types import SimpleNamespace

    from runner.actions.results import FAILED as HOOK_FAILED
    from runner.actions.results import SUCCEEDED as HOOK_SUCCEEDED
    from runner.actions.results import HookLog
    from runner.actions.run import _hook_logs

    captured = [HookLog("migrate", "pre-install", "web/templates/migrate.yaml", "Job", HOOK_FAILED,
                        pod="migrate-x", container="m", lines=["a", "b", "c"]),
                HookLog("seed", "post-install", "web/templates/seed.yaml", "Pod", HOOK_SUCCEEDED,
                        note="no pod to read")]
    release = SimpleNamespace(hook_logs_show=True, hook_logs_cap=2)
    failed, seeded = (log.__dict__ for log in _hook_logs(captured, release))
    assert failed == {"hook": "Job/migrate", "pod": "migrate-x", "phase": "Failed", "log": "b\nc",
                      "truncated": True, "container": "m",
                      "template": "web/templates/migrate.yaml"}
    assert (seeded["phase"], seeded["log"], seeded["truncated"]) == (
        "Succeeded", "no pod to read", False)
    assert _hook_logs(captured, SimpleNamespace(hook_logs_show=False, hook_logs_cap=2)) == []


def test_a_hook_log_cap_of_0_keeps_every_line():
    """`hookLogs.cap: 0` keeps them all, as `--hook-log-lines 0` does (not none)."""
    from types import SimpleNamespace

    from runner.actions.results import FAILED as HOOK_FAILED
    from runner.actions.results import HookLog
    from runner.actions.run import _hook_logs

    captured = [HookLog("migrate", "pre-install", "web/templates/migrate.yaml", "Job", HOOK_FAILED,
                        pod="migrate-x", container="m", lines=["a", "b", "c"])]
    [kept] = _hook_logs(captured, SimpleNamespace(hook_logs_show=True, hook_logs_cap=0))
    assert (kept.log, kept.truncated) == ("a\nb\nc", False)


def test_the_evidence_of_a_failure_as_the_result_keeps_it():
    from runner.actions.results import ContainerEvidence, Evidence
    from runner.actions.run import _not_ready

    hook = Evidence("Job/migrate", "ns", "pre-install hook web/templates/migrate.yaml",
                    status="Failed: Job Failed", conditions=["Failed=True BackoffLimitExceeded"],
                    containers=[ContainerEvidence("migrate-x", "m", state="terminated",
                                                  exit_code=1, log_tail=["no table"])])
    waited = Evidence("Deployment/web", "ns", "waited on", status="InProgress")
    first, second = (vars(item) for item in _not_ready([hook, waited]))
    assert first == {"resource": "Job/migrate", "namespace": "ns",
                     "context": "pre-install hook web/templates/migrate.yaml",
                     "reason": "Job/migrate (pre-install hook web/templates/migrate.yaml): "
                               "Failed: Job Failed\n  condition Failed=True BackoffLimitExceeded\n"
                               "  pod migrate-x, container m: terminated, exit code 1\n"
                               "    | no table",
                     "template": "web/templates/migrate.yaml"}
    assert (second["template"], second["reason"]) == ("", "Deployment/web (waited on): InProgress")


SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
stringData:
  token: {{ .Values.token | default "none" | quote }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-copy
data:
  token: {{ .Values.token | default "none" | quote }}  # a copy the diff shows
"""


def _secret_run(world, spec_text: str, **run_options):
    """A run as `deploy-runner run` makes it: one redactor, filled from the spec first."""
    from runner.actions.run import add_secret_values

    root, _, _, connect = world
    (root / "deploy-runner.yaml").write_text(spec_text)
    spec = parse_spec(spec_text, "deploy-runner.yaml", str(root), context=RunContext(), default_namespace="ns")
    options = RunOptions(**run_options)
    add_secret_values(options.redactor, spec.releases)
    result = run_spec(spec, RunContext(), connect, options)
    return json.dumps(options.redactor.redact_data(result.to_json()))


def test_one_redactor_hides_what_any_release_or_revision_holds_secret(world):
    """The run's redactor is each deploy's: a Secret's data one release deploys, the leaves
    of secretValues files, and what the last revision held there are hidden from the
    whole result (a diff's old side included)."""
    root, cluster, _, _ = world
    (root / "chart" / "templates" / "secret.yaml").write_text(SECRET)
    (root / "secrets.yaml").write_text("message: old-s3cret-message\n")
    spec_text = ("releases:\n- name: db\n  chart: ./chart\n  set: [{name: token, value: db-token-from-set}]\n"
                 "- name: api\n  chart: ./chart\n  secretValues: [secrets.yaml]\n")
    first = _secret_run(world, spec_text)
    (root / "secrets.yaml").write_text("message: new-s3cret-message\n")
    second = _secret_run(world, spec_text)

    assert cluster.get("ConfigMap", "api-config")["data"]["message"] == "new-s3cret-message"
    assert MASK in second
    for shown in (first, second):
        for secret in ("db-token-from-set", "old-s3cret-message", "new-s3cret-message"):
            assert secret not in shown


CREDENTIALS = """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-master-credentials
stringData:
  username: elastic
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  login: elastic
"""


def test_plan_and_run_name_objects_alike_though_a_secret_lies_inside_the_names(world):
    """elasticsearch's username `elastic`, a Secret's value the deploy learns (the plan
    reads none), is inside the release's and its objects' names: both keep them whole; the
    value itself stays hidden wherever else it shows."""
    root, _, _, _ = world
    (root / "chart" / "templates" / "secret.yaml").write_text(CREDENTIALS)
    spec_text = "releases:\n- name: elasticsearch\n  namespace: elastic-stack\n  chart: ./chart\n"
    names = {}
    for step, options in (("plan", {"plan": True}), ("run", {})):
        [release] = json.loads(_secret_run(world, spec_text, **options))["releases"]
        assert (release["name"], release["namespace"]) == ("elasticsearch", "elastic-stack")
        names[step] = sorted(f"{c['kind']}/{c['name']}" for c in release["diff"]["changes"])
        diff = "".join(c["diff"] for c in release["diff"]["changes"])
    assert names["plan"] == names["run"] == [
        "ConfigMap/elasticsearch-config", "ConfigMap/elasticsearch-settings", "Secret/elasticsearch-master-credentials"]
    assert "elastic\n" not in diff and f"login: {MASK}" in diff


def _chart_version(world, version: str) -> None:
    root = world[0]
    (root / "chart" / "Chart.yaml").write_text(f"apiVersion: v2\nname: chart\nversion: {version}\n")


def test_forward_only_never_deploys_an_older_chart_than_the_deployed_one(world):
    _, _, drivers, _ = world
    _chart_version(world, "1.1.0")
    _run(world, SPEC.replace("message: cache", "message: v1"))
    _chart_version(world, "1.0.0")
    older = _run(world, forward_only=True)
    db = older.releases[0]
    assert (db.status, db.revision) == (SKIPPED, 1)
    assert db.reason == ("chart version 1.0.0 is older than 1.1.0, deployed at revision 1: a push never "
                         "rolls a release back")
    assert [h.version for h in drivers["ns"].heads("db")] == [1]
    assert _states(_run(world))["db"] == ("upgrade", DEPLOYED, 2)  # without it: the usual upgrade


def test_releases_the_caller_leaves_out_are_not_selected_with_its_reason(world):
    result = _run(world, not_selected={"ns/db": "its chart is not s3://charts/db", "ns/api": "not it"})
    assert [(r.name, r.status, r.reason) for r in result.releases] == [
        ("db", NOT_SELECTED, "its chart is not s3://charts/db"), ("cache", DEPLOYED, ""),
        ("api", NOT_SELECTED, "not it")]


def test_a_deadline_already_passed_deploys_nothing_and_says_why(world):
    import time

    _, cluster, drivers, _ = world
    result = _run(world, deadline=time.monotonic() - 1)
    assert {r.status for r in result.releases} == {FAILED}
    assert result.releases[2].error == "not started: the run's deadline passed"  # api waited for db
    assert cluster.objects == {} and not drivers.get("ns", RecordingDriver()).heads("db")


class StuckWait(FakeCluster):
    """A wait that ignores its timeout (a server that never answers): only the run's
    deadline ends it. Records the timeout it was given."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.timeouts: list[float] = []

    def wait(self, resources, timeout, *, strategy="watcher", jobs=False):
        import time

        self.timeouts.append(timeout)
        for _ in range(600):
            time.sleep(0.05)


def test_the_deadline_cuts_the_wait_and_stops_what_still_runs_with_its_revision_failed(tmp_path, monkeypatch):
    import time

    from runner.actions import run

    monkeypatch.setattr(run, "FAILURE_SECONDS", 0.5)
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 1.0.0\n")
    (chart / "templates" / "cm.yaml").write_text(CM)
    cluster, driver = StuckWait(), RecordingDriver()
    text = "releases:\n- {name: web, chart: ./chart, wait: watcher, timeout: 5m}\n"
    spec = parse_spec(text, "deploy-runner.yaml", str(tmp_path), context=RunContext(), default_namespace="ns")
    started = time.monotonic()
    result = run_spec(spec, RunContext(), lambda ns: ActionConfig(cluster, ns, Storage(driver)),
                      RunOptions(deadline=started + 1.5))
    [web] = result.releases
    assert web.status == FAILED and web.error.startswith("context deadline exceeded"), web.error
    assert cluster.timeouts and cluster.timeouts[0] <= 1.0  # the wait was given what was left
    last = driver.heads("web")[0]
    assert (last.version, last.status) == (1, "failed")
    assert time.monotonic() - started < 10
