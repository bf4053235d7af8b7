import pytest

from runner.kube.wait import WaitError, ready_state


def _meta(generation: int = 1) -> dict:
    return {"name": "x", "generation": generation}


def test_deployment_is_ready_once_the_new_generation_is_available():
    obj = {"metadata": _meta(2), "spec": {"replicas": 2},
           "status": {"observedGeneration": 1, "updatedReplicas": 2, "availableReplicas": 2}}
    assert ready_state("Deployment", obj)[0] is False
    obj["status"]["observedGeneration"] = 2
    assert ready_state("Deployment", obj) == (True, "")


def test_statefulset_and_daemonset_count_ready_pods():
    sts = {"metadata": _meta(), "spec": {"replicas": 3},
           "status": {"observedGeneration": 1, "readyReplicas": 2, "updatedReplicas": 3}}
    assert ready_state("StatefulSet", sts) == (False, "2/3 replicas ready")
    ds = {"metadata": _meta(), "status": {"observedGeneration": 1, "desiredNumberScheduled": 2,
                                          "numberReady": 2, "updatedNumberScheduled": 2}}
    assert ready_state("DaemonSet", ds) == (True, "")


def test_a_failed_job_is_an_error_and_other_kinds_are_ready_when_present():
    job = {"metadata": _meta(), "status": {"conditions": [{"type": "Failed", "status": "True",
                                                           "reason": "BackoffLimitExceeded"}]}}
    with pytest.raises(WaitError, match="job x failed: BackoffLimitExceeded"):
        ready_state("Job", job)
    assert ready_state("ConfigMap", {"metadata": _meta()}) == (True, "")
    assert ready_state("PersistentVolumeClaim", {"metadata": _meta(), "status": {"phase": "Bound"}})[0]
