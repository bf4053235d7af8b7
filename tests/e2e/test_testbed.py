"""The testbed is a real Kubernetes: the behaviours later features rely on."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from testbed.kwok_config import (
    EXIT_CODE_ENV,
    FAIL_LABEL,
    LOG_ENV,
    POD_LOG_LINES,
    RUNTIME_ANNOTATION,
)
from tests.conftest import Cluster
from tests.corpus import corpus_chart

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 90
HELLO_WORLD_CHART = corpus_chart("helm-examples-hello-world")
APPLY_YAML = "application/apply-patch+yaml"
REPO = Path(__file__).resolve().parents[2]


def wait_for(what: str, probe: Callable[[], Any], timeout: float = WAIT_SECONDS) -> Any:
    """Poll probe() until it returns something truthy; fail with what was awaited and the last value."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout}s waiting for {what}; last observed: {last!r}", pytrace=False)


def core(cluster: Cluster) -> Any:
    from kubernetes import client

    return client.CoreV1Api(cluster.api_client)


def config_map(name: str, namespace: str, value: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        "data": {"greeting": value},
    }


def apply_config_map(cluster: Cluster, namespace: str, value: str, manager: str, force: bool) -> Any:
    return core(cluster).patch_namespaced_config_map(
        "shared", namespace, config_map("shared", namespace, value),
        field_manager=manager, force=force, _content_type=APPLY_YAML,
    )


def test_server_side_apply_conflict_names_field_and_manager_and_force_wins(
    cluster: Cluster, namespace: str
) -> None:
    from kubernetes.client.rest import ApiException

    apply_config_map(cluster, namespace, "hello", manager="alice", force=False)

    with pytest.raises(ApiException) as conflict:
        apply_config_map(cluster, namespace, "bonjour", manager="bob", force=False)

    assert conflict.value.status == 409
    status = json.loads(conflict.value.body)
    assert status["reason"] == "Conflict"
    causes = status["details"]["causes"]
    assert [cause["field"] for cause in causes] == [".data.greeting"]
    assert '"alice"' in causes[0]["message"]

    forced = apply_config_map(cluster, namespace, "bonjour", manager="bob", force=True)
    assert forced.data == {"greeting": "bonjour"}
    owners = {entry.manager for entry in forced.metadata.managed_fields if "f:greeting" in json.dumps(entry.fields_v1)}
    assert owners == {"bob"}


def test_deployment_pods_become_ready(cluster: Cluster, namespace: str) -> None:
    from kubernetes import client

    apps = client.AppsV1Api(cluster.api_client)
    labels = {"app": "web"}
    apps.create_namespaced_deployment(namespace, {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    })

    def ready_replicas() -> int:
        return apps.read_namespaced_deployment("web", namespace).status.ready_replicas or 0

    wait_for("Deployment web to have 2 ready replicas", lambda: ready_replicas() == 2)
    pods = core(cluster).list_namespaced_pod(namespace, label_selector="app=web").items
    assert len(pods) == 2
    for pod in pods:
        assert pod.status.phase == "Running"
        assert {c.type: c.status for c in pod.status.conditions}["Ready"] == "True"
        assert pod.spec.node_name, "the scheduler bound the pod to a kwok node"


def job(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "metadata": {"labels": labels},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "work", "image": "busybox:1.36"}]},
            },
        },
    }


def job_condition(cluster: Cluster, namespace: str, name: str) -> str | None:
    """The type of the Job's terminal condition (Complete or Failed) once it is True."""
    from kubernetes import client

    status = client.BatchV1Api(cluster.api_client).read_namespaced_job(name, namespace).status
    for condition in status.conditions or []:
        if condition.type in ("Complete", "Failed") and condition.status == "True":
            return condition.type
    return None


def test_job_completes(cluster: Cluster, namespace: str) -> None:
    from kubernetes import client

    client.BatchV1Api(cluster.api_client).create_namespaced_job(namespace, job("ok", {}))

    outcome = wait_for("Job ok to finish", lambda: job_condition(cluster, namespace, "ok"))
    assert outcome == "Complete"


def test_job_whose_pod_is_labelled_to_fail_fails(cluster: Cluster, namespace: str) -> None:
    from kubernetes import client

    client.BatchV1Api(cluster.api_client).create_namespaced_job(namespace, job("broken", {FAIL_LABEL: "true"}))

    outcome = wait_for("Job broken to finish", lambda: job_condition(cluster, namespace, "broken"))
    assert outcome == "Failed"
    pods = core(cluster).list_namespaced_pod(namespace, label_selector="job-name=broken").items
    assert [pod.status.phase for pod in pods] == ["Failed"]


def test_pod_log_api_returns_configured_lines(cluster: Cluster, namespace: str) -> None:
    api = core(cluster)
    api.create_namespaced_pod(namespace, {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "talker"},
        "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
    })
    wait_for("pod talker to run", lambda: api.read_namespaced_pod("talker", namespace).status.phase == "Running")

    # Raw body: kubernetes 36.x would hand back the repr of the bytes otherwise.
    response = api.read_namespaced_pod_log("talker", namespace, container="main", _preload_content=False)

    assert response.data.decode().splitlines() == list(POD_LOG_LINES)


def env(log: str | None = None, exit_code: int | None = None) -> list[dict[str, str]]:
    """A test container's environment: its log lines and its exit code."""
    found = [] if log is None else [{"name": LOG_ENV, "value": log}]
    return found + ([] if exit_code is None else [{"name": EXIT_CODE_ENV, "value": str(exit_code)}])


def pod_log(cluster: Cluster, namespace: str, pod: str, container: str, **options: Any) -> str:
    # Raw body: kubernetes 36.x would hand back the repr of the bytes otherwise.
    return core(cluster).read_namespaced_pod_log(pod, namespace, container=container, _preload_content=False,
                                                 **options).data.decode()


def job_pods(cluster: Cluster, namespace: str, name: str) -> list[Any]:
    pods = core(cluster).list_namespaced_pod(namespace, label_selector=f"job-name={name}").items
    return sorted(pods, key=lambda pod: pod.metadata.creation_timestamp)


def test_each_container_logs_the_lines_its_test_chose(cluster: Cluster, namespace: str) -> None:
    core(cluster).create_namespaced_pod(namespace, {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "chatty"},
        "spec": {"initContainers": [{"name": "setup", "image": "busybox", "env": env("setting up\nset")}],
                 "containers": [{"name": "main", "image": "busybox", "env": env("canary-1234")},
                                {"name": "side", "image": "busybox"}]}})
    wait_for("pod chatty to run", lambda: core(cluster).read_namespaced_pod("chatty", namespace).status.phase
             == "Running")

    assert pod_log(cluster, namespace, "chatty", "setup") == "setting up\nset\n"
    assert pod_log(cluster, namespace, "chatty", "main") == "canary-1234\n"
    assert pod_log(cluster, namespace, "chatty", "side").splitlines() == list(POD_LOG_LINES)
    assert pod_log(cluster, namespace, "chatty", "setup", tail_lines=1) == "set\n"


def test_a_failing_init_container_fails_the_pod_and_the_job_retries(cluster: Cluster, namespace: str) -> None:
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    spec = job("migrate", {})
    spec["spec"]["backoffLimit"] = 2
    pod_spec = spec["spec"]["template"]["spec"]
    pod_spec["initContainers"] = [{"name": "wait-db", "image": "busybox", "env": env("db down", exit_code=3)}]
    client.BatchV1Api(cluster.api_client).create_namespaced_job(namespace, spec)

    started = time.monotonic()
    assert wait_for("Job migrate to fail", lambda: job_condition(cluster, namespace, "migrate")) == "Failed"
    # The Job controller waits 10 s, then 20 s, before a retry; the testbed dates failures back.
    assert time.monotonic() - started < 15
    pods = job_pods(cluster, namespace, "migrate")
    assert [pod.status.phase for pod in pods] == ["Failed"] * 3
    init = pods[0].status.init_container_statuses[0]
    assert (init.state.terminated.exit_code, init.state.terminated.reason) == (3, "Error")
    assert pods[0].status.container_statuses[0].state.waiting.reason == "PodInitializing"
    assert pod_log(cluster, namespace, pods[0].metadata.name, "wait-db") == "db down\n"
    with pytest.raises(ApiException) as refused:
        pod_log(cluster, namespace, pods[0].metadata.name, "work")
    assert refused.value.status == 400
    assert json.loads(refused.value.body)["message"] == (
        f'container "work" in pod "{pods[0].metadata.name}" is waiting to start: PodInitializing')


def test_a_container_exit_code_fails_a_job_and_crash_loops_a_deployment(cluster: Cluster, namespace: str) -> None:
    from kubernetes import client

    spec = job("exits", {})
    spec["spec"]["template"]["spec"]["containers"][0]["env"] = env(exit_code=7)
    client.BatchV1Api(cluster.api_client).create_namespaced_job(namespace, spec)
    labels = {"app": "crash"}
    client.AppsV1Api(cluster.api_client).create_namespaced_deployment(namespace, {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "crash"},
        "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
            "containers": [{"name": "web", "image": "busybox", "env": env("panic: boom", exit_code=1)}]}}}})

    assert wait_for("Job exits to fail", lambda: job_condition(cluster, namespace, "exits")) == "Failed"
    terminated = job_pods(cluster, namespace, "exits")[0].status.container_statuses[0].state.terminated
    assert (terminated.exit_code, terminated.reason) == (7, "Error")
    pod = wait_for("the crashing pod", lambda: core(cluster).list_namespaced_pod(
        namespace, label_selector="app=crash").items)[0]
    name = pod.metadata.name
    status = wait_for("it to start", lambda: (read := core(cluster).read_namespaced_pod(name, namespace).status)
                      .container_statuses and read)
    assert status.container_statuses[0].state.waiting.reason == "CrashLoopBackOff"
    assert status.container_statuses[0].last_state.terminated.exit_code == 1
    assert pod_log(cluster, namespace, name, "web") == "panic: boom\n"


def test_a_running_container_writes_its_lines_over_its_runtime(cluster: Cluster, namespace: str) -> None:
    core(cluster).create_namespaced_pod(namespace, {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "slow", "annotations": {RUNTIME_ANNOTATION: "4s", "helm.sh/hook": "pre-install"}},
        "spec": {"restartPolicy": "Never",
                 "containers": [{"name": "main", "image": "busybox", "env": env("1\n2\n3\n4")}]}})
    wait_for("pod slow to run", lambda: core(cluster).read_namespaced_pod("slow", namespace).status.phase
             == "Running")

    arrivals = []
    begun = time.monotonic()
    response = core(cluster).read_namespaced_pod_log("slow", namespace, container="main", follow=True,
                                                     _preload_content=False)
    for line in response.stream(amt=None):
        arrivals.extend((time.monotonic() - begun, text) for text in line.decode().splitlines())
    assert [text for _, text in arrivals] == ["1", "2", "3", "4"]
    assert arrivals[-1][0] - arrivals[0][0] >= 1.5, arrivals  # written over the run, not at once
    phase = wait_for("pod slow to end", lambda: core(cluster).read_namespaced_pod("slow", namespace).status.phase
                     in ("Succeeded", "Failed") and core(cluster).read_namespaced_pod("slow", namespace).status.phase)
    assert phase == "Succeeded"


def test_helm_install_status_uninstall(
    cluster: Cluster, namespace: str, helm: Callable[..., Any]
) -> None:
    assert HELLO_WORLD_CHART.is_dir(), f"chart missing: {HELLO_WORLD_CHART}"

    installed = helm("install", "hello", str(HELLO_WORLD_CHART), "-n", namespace, "--wait", "--timeout", "90s")
    assert installed.returncode == 0, installed.stderr

    status = helm("status", "hello", "-n", namespace, "-o", "json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["info"]["status"] == "deployed"

    uninstalled = helm("uninstall", "hello", "-n", namespace, "--wait")
    assert uninstalled.returncode == 0, uninstalled.stderr
    gone = helm("status", "hello", "-n", namespace)
    assert gone.returncode != 0
    assert "not found" in gone.stderr
    releases = core(cluster).list_namespaced_secret(namespace, label_selector="owner=helm").items
    assert releases == []


def test_a_component_that_cannot_start_is_reported_with_its_log(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tempfile

    from testbed.cluster import Testbed
    from testbed.errors import TestbedError

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the kept logs land in tmp_path
    with_bad_flag = Testbed._apiserver_args
    monkeypatch.setattr(Testbed, "_apiserver_args", lambda self: [*with_bad_flag(self), "--no-such-flag"])

    with pytest.raises(TestbedError) as failure:
        Testbed.start(log=lambda message: None)

    message = str(failure.value)
    assert "kube-apiserver exited with code" in message
    assert "unknown flag: --no-such-flag" in message
    [workdir] = tmp_path.glob("deploy-runner-testbed-*")
    assert f"component logs kept in {workdir}" in message
    assert (workdir / "kube-apiserver.log").is_file()


def test_the_components_report_their_release_version(cluster: Cluster) -> None:
    # Unstamped builds report v0.0.0-master+$Format:%H$: charts with a kubeVersion
    # constraint refuse to install and kubectl cannot parse the server's version.
    from kubernetes import client

    from testbed.build import pinned_versions

    release = pinned_versions()["k8s.io/kubernetes"]
    major, minor = release.removeprefix("v").split(".")[:2]
    info = client.VersionApi(cluster.api_client).get_code()
    assert (info.git_version, info.major, info.minor) == (release, major, minor)
    assert info.build_date != "1970-01-01T00:00:00Z"

    proc = subprocess.run([str(_kubectl()), "version", "-o", "json"], capture_output=True,
                          text=True, env={**os.environ, "KUBECONFIG": str(cluster.kubeconfig)},
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["serverVersion"]["gitVersion"] == release


def test_up_prints_the_export_line_and_stops_on_sigterm_as_its_input_closes() -> None:
    # As a script uses it: no terminal, stdout read for the export line, then SIGTERM
    # while the script's end closes the pipe to our stdin.
    proc = subprocess.Popen([sys.executable, "-m", "testbed", "up"], cwd=REPO,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        # a selector, not select(): the whole suite's process may hold descriptors past 1024
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            assert selector.select(240), "no export line within 240 s"
        line = proc.stdout.readline()
        assert line.startswith("export KUBECONFIG=") and line.endswith("/kubeconfig\n"), line
        kubeconfig = Path(line.strip().split("=", 1)[1])
        nodes = subprocess.run(["sh", "-c", f"{line.strip()} && exec \"$0\" get nodes -o name",
                                str(_kubectl())], capture_output=True, text=True, timeout=60,
                               check=False)
        assert nodes.stdout.split() == ["node/kwok-node-0", "node/kwok-node-1", "node/kwok-node-2"], nodes.stderr
        proc.stdin.close()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0
    assert proc.stdout.read() == ""  # stdout holds the export line only
    assert not kubeconfig.parent.exists(), "the testbed's directory outlived it"


def _kubectl() -> Path:
    from testbed.helm import kubectl_binary

    return kubectl_binary()
