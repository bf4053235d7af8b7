"""The testbed is a real Kubernetes: the behaviours later features rely on."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.testbed.kwok_config import FAIL_LABEL, POD_LOG_LINES
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

    from runner.testbed.cluster import Testbed
    from runner.testbed.errors import TestbedError

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

    from runner.testbed.build import pinned_versions

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
    proc = subprocess.Popen([sys.executable, "-m", "runner.testbed", "up"], cwd=REPO,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 240)
        assert ready, "no export line within 240 s"
        line = proc.stdout.readline()
        assert line.startswith("export KUBECONFIG=") and line.endswith("/kubeconfig\n"), line
        kubeconfig = Path(line.strip().split("=", 1)[1])
        nodes = subprocess.run(["sh", "-c", f"{line.strip()} && exec \"$0\" get nodes -o name",
                                str(_kubectl())], capture_output=True, text=True, timeout=60,
                               check=False)
        assert nodes.stdout.split() == ["node/kwok-node-0", "node/kwok-node-1"], nodes.stderr
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
    from runner.testbed.helm import kubectl_binary

    return kubectl_binary()
