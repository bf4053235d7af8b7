"""kstatus readers: Current / InProgress / Failed with kstatus's messages."""

from __future__ import annotations

from runner.kube.kstatus import compute


def _meta(generation: int = 1) -> dict:
    return {"name": "x", "namespace": "ns", "generation": generation}


def _deployment(**status: int) -> dict:
    conditions = [{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
                  {"type": "Available", "status": "True"}]
    return {"kind": "Deployment", "metadata": _meta(), "spec": {"replicas": 2},
            "status": {"observedGeneration": 1, "conditions": conditions, **status}}


def test_deployment_needs_updated_available_replicas() -> None:
    ready = _deployment(replicas=2, updatedReplicas=2, readyReplicas=2, availableReplicas=2)
    assert compute("Deployment", ready) == ("Current", "Deployment is available. Replicas: 2")
    short = _deployment(replicas=2, updatedReplicas=2, readyReplicas=1, availableReplicas=1)
    assert compute("Deployment", short) == ("InProgress", "Available: 1/2")
    stale = {**ready, "metadata": _meta(2)}
    assert compute("Deployment", stale) == (
        "InProgress", "Deployment generation is 2, but latest observed generation is 1")


def test_pvc_job_pod_service_crd() -> None:
    assert compute("PersistentVolumeClaim", {"metadata": _meta(), "status": {"phase": "Pending"}}) \
        == ("InProgress", "PVC is not Bound. phase: Pending")
    failed = {"metadata": _meta(), "spec": {}, "status": {"failed": 1, "conditions": [
        {"type": "Failed", "status": "True"}]}}
    assert compute("Job", failed) == ("Failed", "Job Failed. failed: 1/1")
    running = {"metadata": _meta(), "spec": {}, "status": {"startTime": "t", "active": 1}}
    assert compute("Job", running)[0] == "Current"
    assert compute("Job", running, jobs=True) == ("InProgress", "Job in progress")
    pod = {"metadata": _meta(), "status": {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True"}]}}
    assert compute("Pod", pod) == ("Current", "Pod is Ready")
    assert compute("Pod", pod, hooks=True) == ("InProgress", "Pod in progress")
    lb = {"metadata": _meta(), "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.1"}, "status": {}}
    assert compute("Service", lb) == ("Current", "Service is ready")
    assert compute("Service", {**lb, "spec": {"type": "LoadBalancer"}})[0] == "InProgress"
    crd = {"metadata": _meta(), "status": {"conditions": [{"type": "Established", "status": "True"}]}}
    assert compute("CustomResourceDefinition", crd) == ("Current", "CRD is established")


def test_generic_ready_condition_and_missing_objects() -> None:
    widget = {"metadata": _meta(), "status": {"conditions": [
        {"type": "Ready", "status": "False", "message": "waiting for backend"}]}}
    assert compute("Widget", widget) == ("InProgress", "waiting for backend")
    assert compute("Widget", {"metadata": _meta()}) == ("Current", "Resource is current")
    assert compute("Widget", None) == ("NotFound", "Resource not found")
