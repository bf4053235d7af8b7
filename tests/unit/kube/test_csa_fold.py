"""Folding a release's client-side `helm` entries into its Apply entry (Helm's csaupgrade)
over a fake API server: the JSON patch tests the resourceVersion read; when a controller
wrote the object meanwhile (a Job's status), it is read and folded again; a refusal for
another reason is Helm's error at once. The real API server and helm run it in
tests/e2e/test_apply_fidelity.py (a client-side release moved to server-side apply)."""

from __future__ import annotations

import json

import pytest

from runner.kube.client import KubeClient, KubeError
from runner.kube.operations import migrate_client_side_manager
from runner.kube.resources import build
from runner.kube.transport import Reply

CORE = {"resources": [{"name": "configmaps", "kind": "ConfigMap", "namespaced": True}]}
PATH = "/api/v1/namespaces/ns/configmaps/c"


def _live(version: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "c", "namespace": "ns", "resourceVersion": version, "managedFields": [
            {"manager": "helm", "operation": "Update", "fieldsV1": {"f:data": {"f:a": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status",
             "fieldsV1": {"f:status": {}}}]}}


class FakeAPI:
    """GETs answer the next of `versions` (the object as a controller keeps writing it);
    PATCHes answer the next of `patches` (a status code)."""

    def __init__(self, versions: list[str], patches: list[int]) -> None:
        self.versions, self.patches = list(versions), list(patches)
        self.tested: list[str] = []

    def request(self, method, path, query, headers, body):
        if path == "/version":
            return Reply(200, b'{"gitVersion": "v1.35.4"}')
        if path == "/api/v1":
            return Reply(200, json.dumps(CORE).encode())
        if method == "GET":
            return Reply(200, json.dumps(_live(self.versions.pop(0))).encode())
        self.tested.append(json.loads(body)[0]["value"])
        status = self.patches.pop(0)
        message = {"kind": "Status", "message": "the server rejected our request", "code": status}
        return Reply(status, json.dumps(message if status >= 400 else {}).encode())

    def close(self) -> None:
        pass


def _resource(client: KubeClient):
    return build(client, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", "ns")[0]


def test_a_fold_refused_because_the_object_moved_is_read_and_sent_again():
    api = FakeAPI(versions=["1", "2"], patches=[422, 200])
    client = KubeClient(api)
    assert migrate_client_side_manager(client, _resource(client)) is True
    assert api.tested == ["1", "2"]


def test_a_refusal_with_the_object_unmoved_is_helms_error_without_retrying_it():
    api = FakeAPI(versions=["1", "1"], patches=[422])
    client = KubeClient(api)
    with pytest.raises(KubeError) as raised:
        migrate_client_side_manager(client, _resource(client))
    assert str(raised.value) == ("failed to patch object to upgrade CSA field manager ns/c /v1, Kind=ConfigMap: "
                                 "the server rejected our request")
    assert api.tested == ["1"]


def test_another_refusal_is_final_and_a_moving_object_is_tried_three_times():
    api = FakeAPI(versions=["1"], patches=[403])
    client = KubeClient(api)
    with pytest.raises(KubeError):
        migrate_client_side_manager(client, _resource(client))
    assert api.tested == ["1"]

    api = FakeAPI(versions=["1", "2", "3"], patches=[422, 422, 422])
    client = KubeClient(api)
    with pytest.raises(KubeError):
        migrate_client_side_manager(client, _resource(client))
    assert api.tested == ["1", "2", "3"]
