"""Our account of an object that is not ready: replicas, and the pods it selects with why."""

from __future__ import annotations

from runner.kube.unready import explain, matches, pod_trouble
from runner.kube.wait import Awaited
from tests.unit.fakes.watchapi import FakeApi, resource


def _pod(name: str, labels: dict | None = None, **status: object) -> dict:
    return {"metadata": {"name": name, "labels": labels or {}}, "status": status}


def test_pod_trouble_names_the_container_state_a_user_would_look_for() -> None:
    pulling = _pod("a", phase="Pending", containerStatuses=[
        {"name": "web", "state": {"waiting": {"reason": "ImagePullBackOff", "message": "back-off"}}}])
    assert pod_trouble(pulling) == "ImagePullBackOff"
    crashing = _pod("b", phase="Running", containerStatuses=[
        {"name": "web", "state": {"running": {}}},
        {"name": "sidecar", "state": {"waiting": {"reason": "CrashLoopBackOff"}},
         "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}])
    assert pod_trouble(crashing) == "container sidecar: CrashLoopBackOff (last exit code 137)"
    init_failed = _pod("c", phase="Pending", initContainerStatuses=[
        {"name": "migrate", "state": {"terminated": {"exitCode": 2, "reason": "Error"}}}],
        containerStatuses=[{"name": "web", "state": {"waiting": {"reason": "PodInitializing"}}}])
    assert pod_trouble(init_failed) == "container migrate: Error (exit code 2)"
    unscheduled = _pod("d", phase="Pending", conditions=[
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available"}])
    assert pod_trouble(unscheduled) == "Unschedulable: 0/3 nodes are available"
    probing = _pod("e", phase="Running", conditions=[
        {"type": "Ready", "status": "False", "message": "containers with unready status: [web]"}],
        containerStatuses=[{"name": "web", "state": {"running": {}}}])
    assert pod_trouble(probing) == "Running, not ready: containers with unready status: [web]"


def test_selectors_match_labels_and_expressions() -> None:
    selector = {"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["front", "edge"]},
        {"key": "canary", "operator": "DoesNotExist"}]}
    assert matches(selector, {"app": "web", "tier": "edge"})
    assert not matches(selector, {"app": "web", "tier": "back"})
    assert not matches(selector, {"app": "web", "tier": "front", "canary": "1"})
    assert matches({"matchExpressions": [{"key": "x", "operator": "NotIn", "values": ["1"]}]}, {})


def test_pods_with_the_same_reason_share_a_line_and_ready_or_other_pods_are_left_out() -> None:
    api = FakeApi()
    web = resource("Deployment", "web", replicas=5, selector={"matchLabels": {"app": "web"}})
    pods = "/api/v1/namespaces/ns/pods"
    for name in ("web-1", "web-2", "web-3", "web-4"):
        api.store(pods, _pod(name, {"app": "web"}, phase="Pending", containerStatuses=[
            {"name": "web", "state": {"waiting": {"reason": "ErrImagePull"}}}]))
    api.store(pods, _pod("web-5", {"app": "web"}, phase="Running", conditions=[{"type": "Ready", "status": "True"}]))
    api.store(pods, _pod("db-1", {"app": "db"}, phase="Pending"))
    obj = {**web.obj, "status": {"availableReplicas": 1}}
    state = Awaited("Deployment", "ns", "web", "InProgress", "Available: 1/5", False)
    assert explain(api, [web], {web.key: obj}, {web.key: state}) == [
        "deployment/web: 1 of 5 replicas available; pods web-1, web-2, web-3 and 1 more: ErrImagePull"]
    assert api.requests == ["LIST /api/v1/namespaces/ns/pods"]  # one list for the namespace


def test_claims_jobs_and_other_kinds() -> None:
    api = FakeApi()
    claim = resource("PersistentVolumeClaim", "data", storageClassName="fast")
    job = resource("Job", "migrate", completions=2)
    cm = resource("ConfigMap", "never")
    states = {claim.key: Awaited("PersistentVolumeClaim", "ns", "data", "InProgress", "", False),
              job.key: Awaited("Job", "ns", "migrate", "InProgress", "", False),
              cm.key: Awaited("ConfigMap", "ns", "never", "Unknown", "", False)}
    objects = {claim.key: {**claim.obj, "status": {"phase": "Pending"}},
               job.key: {**job.obj, "status": {"succeeded": 1, "failed": 2}}}
    assert explain(api, [claim, job, cm], objects, states) == [
        'persistentvolumeclaim/data: Pending (storage class "fast")',
        "job/migrate: 1 of 2 completions, 2 failed",
        "configmap/never: not found"]
