"""Waits: they list then watch (a few requests, a reaction at the event), judge as
Helm 4.1.4's waiters do for each --wait strategy, and fail with Helm's text then ours."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from runner.kube import wait
from runner.kube.client import KubeError
from runner.kube.wait import WaitError, WaitProgress, ready_state
from tests.unit.fakes.watchapi import FakeApi, resource

AVAILABLE = {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
             "availableReplicas": 1, "conditions": [
                 {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
                 {"type": "Available", "status": "True"}]}
STARTING = {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1}
COMPLETE = {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]}
FAILED = {"failed": 1, "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]}


def _in_background(work: Callable[[], None]) -> tuple[threading.Thread, list[BaseException], list[float]]:
    """Run a wait on a thread; its error (if any) and the moment it ended."""
    errors: list[BaseException] = []
    ended: list[float] = []

    def run() -> None:
        try:
            work()
        except BaseException as err:  # noqa: BLE001 - handed to the test
            errors.append(err)
        ended.append(time.monotonic())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors, ended


def test_a_wait_lists_and_watches_each_kind_once_and_ends_at_the_ready_event() -> None:
    api = FakeApi()
    webs = [resource("Deployment", f"web-{i}", replicas=1) for i in range(3)]
    maps = [resource("ConfigMap", f"cm-{i}") for i in range(57)]
    for web in webs:
        api.put(web, STARTING, generation=1)
    for cm in maps:
        api.put(cm)
    thread, errors, ended = _in_background(lambda: wait.watch_ready(api, [*maps, *webs], 30))
    api.wait_for_watches(1)  # the ConfigMaps are all there: no watch needed for them
    for web in webs:
        api.send("MODIFIED", web, AVAILABLE, generation=1)
    sent = time.monotonic()
    thread.join(5)
    assert not thread.is_alive() and not errors
    assert ended[0] - sent < 0.5
    assert sorted(api.requests) == ["LIST /api/v1/namespaces/ns/configmaps",
                                    "LIST /apis/apps/v1/namespaces/ns/deployments",
                                    "WATCH /apis/apps/v1/namespaces/ns/deployments"]


def test_a_hook_job_deleted_as_it_completes_counts_as_complete() -> None:
    """ingress-nginx's hook Jobs (ttlSecondsAfterFinished: 0): a poll saw them NotFound."""
    api = FakeApi()
    job = resource("Job", "admission-create")
    api.put(job, {"active": 1})
    thread, errors, _ = _in_background(lambda: wait.watch_ready(api, [job], 5, hooks=True))
    api.wait_for_watches(1)
    api.send("MODIFIED", job, COMPLETE)
    api.send("DELETED", job)
    thread.join(5)
    assert not thread.is_alive() and not errors


def test_a_watch_that_ends_is_followed_by_a_new_list_which_sees_what_happened_meanwhile() -> None:
    api = FakeApi()
    web = resource("Deployment", "web", replicas=1)
    api.put(web, STARTING, generation=1)
    thread, errors, _ = _in_background(lambda: wait.watch_ready(api, [web], 5))
    api.wait_for_watches(1)
    api.put(web, AVAILABLE, generation=1)  # changed while no watch is open
    api.drop()
    thread.join(5)
    assert not thread.is_alive() and not errors
    assert api.requests.count("LIST /apis/apps/v1/namespaces/ns/deployments") == 2


def test_a_timeout_reads_as_helm_then_names_the_pods_and_their_reasons() -> None:
    api = FakeApi()
    web = resource("Deployment", "web", replicas=3, selector={"matchLabels": {"app": "web"}})
    api.put(web, {**STARTING, "replicas": 3, "updatedReplicas": 3, "availableReplicas": 1, "readyReplicas": 1},
            generation=1)
    pods = "/api/v1/namespaces/ns/pods"
    api.store(pods, {"metadata": {"name": "web-6c9-x", "labels": {"app": "web"}}, "status": {
        "phase": "Pending", "containerStatuses": [{"name": "web", "state": {"waiting": {"reason": "ImagePullBackOff"}}}]}})
    api.store(pods, {"metadata": {"name": "web-6c9-y", "labels": {"app": "web"}}, "status": {
        "phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
    api.store(pods, {"metadata": {"name": "other", "labels": {"app": "db"}}, "status": {"phase": "Pending"}})
    missing = resource("ConfigMap", "never")
    with pytest.raises(WaitError) as caught:
        wait.watch_ready(api, [web, missing], 0.3)
    assert str(caught.value) == (
        "resource Deployment/ns/web not ready. status: InProgress, message: Available: 1/3\n"
        "resource ConfigMap/ns/never not ready. status: Unknown, message: \n"
        "context deadline exceeded")  # Helm's words; then ours:
    assert caught.value.account == ["deployment/web: 1 of 3 replicas available; pod web-6c9-x: ImagePullBackOff",
                                    "configmap/never: not found"]
    assert [a.ref for a in caught.value.unready] == ["Deployment/web", "ConfigMap/never"]


def test_a_failed_object_ends_the_wait_without_waiting_for_the_deadline() -> None:
    api = FakeApi()
    job = resource("Job", "migrate")
    api.put(job, FAILED)
    begun = time.monotonic()
    with pytest.raises(WaitError, match=r"^resource Job/ns/migrate not ready. status: Failed, "
                                        r"message: Job Failed. failed: 1/1$") as caught:
        wait.watch_ready(api, [job], 30, hooks=True)
    assert caught.value.account == ["job/migrate: 0 of 1 completions, 1 failed"]
    assert time.monotonic() - begun < 1


def test_no_permission_to_list_ends_the_wait_with_the_servers_refusal() -> None:
    api = FakeApi(refuse={"/apis/apps/v1/namespaces/ns/deployments": 403})
    with pytest.raises(KubeError, match="forbidden"):
        wait.watch_ready(api, [resource("Deployment", "web")], 5)


@pytest.mark.parametrize(("status", "error"), [
    (COMPLETE, None),
    (FAILED, "job migrate failed: BackoffLimitExceeded"),
    (None, None),  # deleted: Helm's legacy waiter counts that as done
])
def test_legacy_hook_waiter_watches_jobs_as_helm_3(status: dict | None, error: str | None) -> None:
    api = FakeApi()
    job, cm = resource("Job", "migrate"), resource("ConfigMap", "settings")
    api.put(job, {"active": 1})
    thread, errors, _ = _in_background(lambda: wait.wait_hook("legacy", api, [cm, job], 5))
    api.wait_for_watches(1)
    api.send("DELETED" if status is None else "MODIFIED", job, status)
    thread.join(5)
    assert not thread.is_alive()
    assert [str(e).splitlines()[0] for e in errors] == ([error] if error else [])
    assert not any("configmaps" in r for r in api.requests)  # other kinds are not waited for


def test_legacy_hook_waiter_times_out_in_helm_3s_words() -> None:
    api = FakeApi()
    job = resource("Job", "migrate")
    api.put(job, {"active": 1})
    with pytest.raises(WaitError, match="^timed out waiting for the condition$") as caught:
        wait.wait_hook("legacy", api, [job], 0.2)
    assert caught.value.account == ["job/migrate: 0 of 1 completions"]


def test_deletion_waits_end_when_objects_are_gone_and_name_finalizers_otherwise() -> None:
    api = FakeApi()
    gone, going, stuck = resource("ConfigMap", "gone"), resource("ConfigMap", "going"), resource("Pod", "stuck")
    api.put(going, deletionTimestamp="2026-01-01T00:00:00Z")
    thread, errors, _ = _in_background(lambda: wait.wait_deleted("watcher", api, [gone, going], 5))
    api.wait_for_watches(1)
    api.send("DELETED", going)
    thread.join(5)
    assert not thread.is_alive() and not errors
    api.put(stuck, {"phase": "Running"}, deletionTimestamp="2026-01-01T00:00:00Z", finalizers=["example.com/x"])
    with pytest.raises(WaitError) as caught:
        wait.wait_deleted("watcher", api, [stuck], 0.2)
    assert str(caught.value) == (
        "resource Pod/ns/stuck still exists. status: Terminating, message: Resource scheduled for deletion\n"
        "context deadline exceeded")
    assert caught.value.account == ["pod/stuck: being deleted, waiting for finalizers example.com/x"]
    with pytest.raises(WaitError, match="^context deadline exceeded$") as caught:
        wait.wait_deleted("legacy", api, [stuck], 0.2)
    assert caught.value.account == ["pod/stuck: being deleted, waiting for finalizers example.com/x"]


def test_progress_is_told_at_the_start_at_each_change_and_at_the_end() -> None:
    api = FakeApi()
    web, cm = resource("Deployment", "web", replicas=1), resource("ConfigMap", "cm")
    api.put(web, STARTING, generation=1)
    api.put(cm)
    told: list[WaitProgress] = []
    thread, errors, _ = _in_background(lambda: wait.watch_ready(api, [cm, web], 5, progress=told.append))
    api.wait_for_watches(1)
    api.send("MODIFIED", web, AVAILABLE, generation=1)
    thread.join(5)
    assert not thread.is_alive() and not errors
    assert [(p.stage, [a.ref for a in p.pending]) for p in told if p.stage != "tick"] == [
        ("start", ["Deployment/web"]), ("change", []), ("end", [])]
    change = next(p for p in told if p.stage == "change")
    assert [(a.ref, a.status, a.settled) for a in change.changed] == [("Deployment/web", "Current", True)]
    assert change.purpose == "ready" and change.timeout == 5


def test_a_wait_where_all_is_ready_at_first_look_tells_nothing() -> None:
    api = FakeApi()
    cm = resource("ConfigMap", "cm")
    api.put(cm)
    told: list[WaitProgress] = []
    wait.watch_ready(api, [cm], 5, progress=told.append)
    assert told == [] and api.requests == ["LIST /api/v1/namespaces/ns/configmaps"]


@pytest.mark.parametrize(("strategy", "flags", "expected"), [
    ("watcher", (True, False), "watcher"), ("legacy", (True, False), "legacy"),
    ("watcher", (False, False), "hookOnly"), ("watcher", (False, True), "watcher"),
])
def test_the_strategy_in_effect(strategy: str, flags: tuple[bool, bool], expected: str) -> None:
    waiting, rollback_on_failure = flags
    assert wait.in_effect(waiting or rollback_on_failure, strategy) == expected


# -- Helm 3's ReadyChecker (the legacy waiter) ---------------------------------------------------


def _meta(generation: int = 1) -> dict:
    return {"name": "x", "namespace": "ns", "generation": generation}


def test_legacy_deployment_is_ready_once_the_new_generation_is_available() -> None:
    obj = {"metadata": _meta(2), "spec": {"replicas": 2},
           "status": {"observedGeneration": 1, "updatedReplicas": 2, "availableReplicas": 2}}
    assert ready_state("Deployment", obj)[0] is False
    obj["status"]["observedGeneration"] = 2
    assert ready_state("Deployment", obj) == (True, "")
    assert ready_state("Deployment", {"metadata": _meta(), "spec": {"paused": True}}) == (True, "")


def test_legacy_statefulset_and_daemonset() -> None:
    sts = {"metadata": _meta(), "spec": {"replicas": 3},
           "status": {"observedGeneration": 1, "readyReplicas": 2, "updatedReplicas": 3}}
    assert ready_state("StatefulSet", sts) == (False, "2/3 replicas ready")
    ds = {"metadata": _meta(), "spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": "50%"}}},
          "status": {"observedGeneration": 1, "desiredNumberScheduled": 4, "numberReady": 2,
                     "updatedNumberScheduled": 4}}
    assert ready_state("DaemonSet", ds) == (True, "")


def test_legacy_jobs_count_only_with_wait_for_jobs_and_fail_past_their_backoff_limit() -> None:
    job = {"metadata": _meta(), "spec": {"completions": 1, "backoffLimit": 1}, "status": {"failed": 2}}
    assert ready_state("Job", job) == (True, "")
    with pytest.raises(WaitError, match="^job is failed: ns/x$"):
        ready_state("Job", job, jobs=True)
    job["status"] = {"failed": 1}
    assert ready_state("Job", job, jobs=True) == (False, "0/1 completions")


def test_legacy_pods_services_and_other_kinds() -> None:
    succeeded = {"metadata": _meta(), "status": {"phase": "Succeeded"}}
    assert ready_state("Pod", succeeded)[0] is False  # Helm 3 asks for the Ready condition only
    assert ready_state("Service", {"metadata": _meta(), "spec": {"type": "ExternalName"}}) == (True, "")
    assert ready_state("Service", {"metadata": _meta(), "spec": {"type": "ClusterIP"}})[0] is False
    assert ready_state("ConfigMap", {"metadata": _meta()}) == (True, "")
    assert ready_state("PersistentVolumeClaim", {"metadata": _meta(), "status": {"phase": "Bound"}})[0]


def test_a_failed_hook_job_under_legacy_is_logged_as_helms_waiter_logs_it() -> None:
    api = FakeApi()
    job = resource("Job", "migrate")
    api.put(job, FAILED)
    logged: list[str] = []
    with pytest.raises(WaitError, match="^job migrate failed: BackoffLimitExceeded$"):
        wait.wait_hook("legacy", api, [job], 5, log=logged.append)
    assert logged == ['level=ERROR msg="job failed" job=migrate reason=BackoffLimitExceeded']


def test_a_watched_wait_logs_helms_debug_lines() -> None:
    """statusWaiter's lines: what is awaited, the first object not there (once per status),
    and the end; a 0 timeout is logged as the 30s it becomes."""
    api = FakeApi()
    web = resource("Deployment", "web", replicas=1)
    api.put(web, STARTING, generation=1)
    thread, errors, _ = _in_background(lambda: wait.watch_ready(api, [web], 0))
    api.wait_for_watches(1)
    api.send("MODIFIED", web, STARTING, generation=1)  # no change of status: not logged again
    api.send("MODIFIED", web, AVAILABLE, generation=1)
    thread.join(5)
    assert not errors
    assert api.debugged == [
        'level=DEBUG msg="waiting for resources" count=1 timeout=30s',
        'level=DEBUG msg="waiting for resource" namespace=ns name=web kind=Deployment expectedStatus=Current '
        'actualStatus=InProgress',
        'level=DEBUG msg="all resources achieved desired status" desiredStatus=Current resourceCount=1']


def test_an_interrupt_wakes_a_wait_at_once() -> None:
    """The wait blocks on its queue for up to a tick; an interrupt's waker ends that at once."""
    from runner import deepstack
    from runner.kube.watch import Observer, Target

    api = FakeApi()
    with Observer(api, [Target("/api/v1/namespaces/ns/pods")], time.monotonic() + 30) as observer:
        assert observer.next(5) is not None  # the list
        for wake in list(deepstack._wakers):
            wake()
        begun = time.monotonic()
        assert observer.next(5) is None
        assert time.monotonic() - begun < 0.5
    assert not deepstack._wakers
