"""The testbed runs real charts: its nodes have a cloud worker's capacity (ephemeral
storage included, which Bitnami's resourcesPreset requests), and a dynamic provisioner
binds claims, so `--wait` on StatefulSets with volumes finishes (issue 22).

What is checked is what a user of a cluster checks: the nodes' capacity, a claim Bound to
a provisioned volume, charts installed with `--wait` by Helm 4.1.4 and by deploy-runner,
their pods scheduled and Ready, a hook Job completed.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cluster
from tests.corpus import corpus_chart, corpus_values_args
from tests.e2e.release_helpers import ours
from tests.e2e.test_testbed import core, wait_for
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

GiB = 2**30
Helm = Callable[..., subprocess.CompletedProcess[str]]
TOOLS = ("deploy-runner", "helm")

STATEFULSET = """apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ .Release.Name }}-db
spec:
  replicas: 2
  serviceName: {{ .Release.Name }}-db
  selector:
    matchLabels: {app: {{ .Release.Name }}-db}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}-db}
    spec:
      containers:
      - name: db
        image: postgres:17
        resources:
          requests: {cpu: 250m, memory: 256Mi, ephemeral-storage: 1Gi}
        volumeMounts:
        - {name: data, mountPath: /var/lib/postgresql/data}
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests: {storage: 2Gi}
"""


def quantity(value: str) -> float:
    from kubernetes.utils import parse_quantity

    return float(parse_quantity(value))


def install(tool: str, cluster: Cluster, namespace: str, helm: Helm, *args: str) -> tuple[int, str]:
    """`install ... --wait` by deploy-runner (in-process) or by Helm 4.1.4; (exit code, stderr)."""
    if tool == "helm":
        proc = helm("install", *args, "-n", namespace, "--wait")
        return proc.returncode, proc.stderr
    run = ours(cluster, namespace, "install", *args, "--wait")
    return run.code, run.err


def release_status(helm: Helm, namespace: str, name: str) -> dict[str, Any]:
    """The release as Helm reads its record (also the one deploy-runner wrote)."""
    status = helm("status", name, "-n", namespace, "-o", "json")
    assert status.returncode == 0, status.stderr
    return json.loads(status.stdout)


def default_storage_class(cluster: Cluster) -> Any:
    from kubernetes import client

    classes = client.StorageV1Api(cluster.api_client).list_storage_class().items
    defaults = [c for c in classes
                if (c.metadata.annotations or {}).get("storageclass.kubernetes.io/is-default-class") == "true"]
    assert len(defaults) == 1, [c.metadata.name for c in classes]
    return defaults[0]


def claims(cluster: Cluster, namespace: str) -> list[Any]:
    return core(cluster).list_namespaced_persistent_volume_claim(namespace).items


def assert_pods_scheduled_and_ready(cluster: Cluster, namespace: str) -> list[Any]:
    pods = core(cluster).list_namespaced_pod(namespace).items
    assert pods
    for pod in pods:
        if pod.status.phase == "Succeeded":
            continue  # a Job's pod that has finished
        conditions = {c.type: c for c in pod.status.conditions or []}
        scheduled = conditions.get("PodScheduled")
        assert pod.spec.node_name and scheduled and scheduled.status == "True", (
            pod.metadata.name, scheduled and scheduled.message)
        assert conditions["Ready"].status == "True", pod.metadata.name
    return pods


def test_every_node_advertises_a_cloud_workers_capacity_in_a_zone_of_its_own(cluster: Cluster) -> None:
    nodes = core(cluster).list_node().items
    assert len(nodes) == 3
    for node in nodes:
        capacity, allocatable = node.status.capacity, node.status.allocatable
        assert set(capacity) >= {"cpu", "memory", "pods", "ephemeral-storage"}, capacity
        assert quantity(allocatable["cpu"]) >= 4, allocatable
        assert quantity(allocatable["memory"]) >= 16 * GiB, allocatable
        assert quantity(allocatable["ephemeral-storage"]) >= 50 * GiB, allocatable
        assert quantity(allocatable["pods"]) >= 110, allocatable
        # as on a real node, the kubelet keeps some back for the system
        for resource in ("cpu", "memory", "ephemeral-storage"):
            assert quantity(allocatable[resource]) < quantity(capacity[resource]), resource
    zones = {node.metadata.labels.get("topology.kubernetes.io/zone") for node in nodes}
    assert len(zones) == 3 and None not in zones


def test_a_claim_is_bound_to_a_volume_the_provisioner_makes_for_its_pods_node(
        cluster: Cluster, namespace: str) -> None:
    from kubernetes import client

    api = core(cluster)
    storage_class = default_storage_class(cluster)
    assert storage_class.volume_binding_mode == "WaitForFirstConsumer"
    claim = api.create_namespaced_persistent_volume_claim(namespace, {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "3Gi"}}},
    })
    assert claim.spec.storage_class_name == storage_class.metadata.name  # the default class
    assert claim.status.phase == "Pending"  # no consumer yet
    api.create_namespaced_pod(namespace, {
        "metadata": {"name": "user"},
        "spec": {
            "containers": [{"name": "app", "image": "busybox",
                            "resources": {"requests": {"ephemeral-storage": "2Gi"}},
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
        },
    })

    pod = wait_for("the pod to run", lambda: (p := api.read_namespaced_pod("user", namespace))
                   .status.phase == "Running" and p)
    claim = wait_for("the claim to be Bound", lambda: (c := api.read_namespaced_persistent_volume_claim(
        "data", namespace)).status.phase == "Bound" and c)
    volume = api.read_persistent_volume(claim.spec.volume_name)
    assert volume.metadata.annotations["pv.kubernetes.io/provisioned-by"] == storage_class.provisioner
    assert (volume.spec.claim_ref.namespace, volume.spec.claim_ref.name) == (namespace, "data")
    assert volume.spec.capacity["storage"] == "3Gi"
    [term] = volume.spec.node_affinity.required.node_selector_terms
    assert [e.values for e in term.match_expressions] == [[pod.spec.node_name]]
    directory = Path(volume.spec.host_path.path)
    assert directory.is_dir() and cluster.testbed.workdir in directory.parents

    # Reclaim policy Delete: the released volume and its directory go.
    api.delete_namespaced_pod("user", namespace, grace_period_seconds=0)
    api.delete_namespaced_persistent_volume_claim("data", namespace)

    def volume_gone() -> bool:
        try:
            api.read_persistent_volume(volume.metadata.name)
        except client.ApiException as error:
            return error.status == 404
        return False

    wait_for("the released volume to be deleted", volume_gone)
    assert not directory.exists()


@pytest.mark.parametrize("tool", TOOLS)
def test_a_statefulset_with_claim_templates_installs_with_wait(
        tool: str, cluster: Cluster, namespace: str, helm: Helm, tmp_path: Path) -> None:
    from kubernetes import client

    chart = write_chart(tmp_path, "db", templates={"statefulset.yaml": STATEFULSET})

    code, err = install(tool, cluster, namespace, helm, "store", str(chart), "--timeout", "2m")

    assert code == 0, err
    assert release_status(helm, namespace, "store")["info"]["status"] == "deployed"
    statefulset = client.AppsV1Api(cluster.api_client).read_namespaced_stateful_set("store-db", namespace)
    assert statefulset.status.ready_replicas == 2
    assert sorted((c.metadata.name, c.status.phase) for c in claims(cluster, namespace)) == [
        ("data-store-db-0", "Bound"), ("data-store-db-1", "Bound")]
    assert_pods_scheduled_and_ready(cluster, namespace)


@pytest.mark.parametrize("tool", TOOLS)
def test_a_bitnami_chart_with_ephemeral_storage_requests_installs_with_wait(
        tool: str, cluster: Cluster, namespace: str, helm: Helm) -> None:
    chart = "bitnami-postgresql"

    code, err = install(tool, cluster, namespace, helm, "pg", str(corpus_chart(chart)),
                        *corpus_values_args(chart), "--timeout", "3m")

    assert code == 0, err
    assert release_status(helm, namespace, "pg")["info"]["status"] == "deployed"
    pods = assert_pods_scheduled_and_ready(cluster, namespace)
    requests = [c.resources.requests or {} for p in pods for c in p.spec.containers]
    assert any("ephemeral-storage" in r for r in requests), requests  # resourcesPreset's
    assert [c.status.phase for c in claims(cluster, namespace)] == ["Bound"]


@pytest.mark.parametrize("tool", TOOLS)
def test_bitnami_airflows_setup_db_hook_job_completes(
        tool: str, cluster: Cluster, namespace: str, helm: Helm) -> None:
    chart = "bitnami-airflow"

    code, err = install(tool, cluster, namespace, helm, "af", str(corpus_chart(chart)),
                        *corpus_values_args(chart), "--timeout", "4m")

    assert code == 0, err
    release = release_status(helm, namespace, "af")
    assert release["info"]["status"] == "deployed"
    hooks = {hook["name"]: hook for hook in release["hooks"]}
    assert hooks["af-airflow-setup-db"]["kind"] == "Job"
    assert hooks["af-airflow-setup-db"]["last_run"]["phase"] == "Succeeded"
    assert_pods_scheduled_and_ready(cluster, namespace)
    assert {c.status.phase for c in claims(cluster, namespace)} == {"Bound"}
