"""A chart's crds/ written as Helm 4.1.4's installCRDs writes them, over a fake API server:
server-side apply updates an existing CRD, client-side create leaves it, and failures
read as Helm's. tests/e2e/test_chart_crds.py runs the same against helm on the testbed."""

from __future__ import annotations

import json

import pytest

from runner.kube.client import KubeClient
from runner.kube.crds import CRDInstallError, install_crds
from runner.kube.transport import Reply

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
DISCOVERY = {"resources": [{"name": "customresourcedefinitions", "kind": "CustomResourceDefinition",
                            "namespaced": False}]}


def _crd(name: str) -> str:
    return (f"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            f"  name: {name}\nspec:\n  group: example.com\n")


def _status(code: int, reason: str, message: str) -> Reply:
    return Reply(code, json.dumps({"kind": "Status", "reason": reason, "message": message}).encode())


class FakeAPI:
    def __init__(self, replies: dict[tuple[str, str], Reply]) -> None:
        self.replies = {("GET", "/version"): Reply(200, b'{"gitVersion": "v1.35.4"}'),
                        ("GET", "/apis/apiextensions.k8s.io/v1"): Reply(200, json.dumps(DISCOVERY).encode()),
                        **replies}
        self.sent: list[tuple[str, str, dict]] = []

    def request(self, method, path, query, headers, body):
        self.sent.append((method, path, dict(query)))
        return self.replies.get((method, path), Reply(201 if method == "POST" else 200, b"{}"))

    def close(self) -> None:
        pass


def _writes(api: FakeAPI) -> list[tuple[str, str, dict]]:
    return [sent for sent in api.sent if sent[0] != "GET"]


def test_server_side_apply_writes_every_crd_existing_or_not_with_helms_manager():
    api = FakeAPI({})
    written = install_crds(KubeClient(api), [("crds/a.yaml", _crd("as.example.com") + "---\n" + _crd("bs.example.com"))],
                           server_side=True, force=True)
    assert [crd.name for crd in written] == ["as.example.com", "bs.example.com"]
    assert _writes(api) == [("PATCH", f"{CRD_PATH}/{name}", {"fieldManager": "helm", "fieldValidation": "Strict", "force": "true"})
                            for name in ("as.example.com", "bs.example.com")]


def test_client_side_create_skips_a_file_whose_crd_exists():
    api = FakeAPI({("POST", CRD_PATH): _status(409, "AlreadyExists", "already exists")})
    logged: list[tuple[str, dict]] = []
    client = KubeClient(api, on_debug=lambda message, **attrs: logged.append((message, attrs)))
    assert install_crds(client, [("crds/a.yaml", _crd("as.example.com"))], server_side=False) == []
    assert _writes(api) == [("POST", CRD_PATH, {"fieldManager": "helm"})]
    assert ("CRD is already present. Skipping", {"crd": "crds/a.yaml"}) in logged


def test_fields_another_manager_owns_are_helms_conflict_error():
    message = 'Apply failed with 1 conflict: conflict with "kubectl-create": .spec.versions'
    api = FakeAPI({("PATCH", f"{CRD_PATH}/as.example.com"): _status(409, "Conflict", message)})
    with pytest.raises(CRDInstallError) as failure:
        install_crds(KubeClient(api), [("crds/a.yaml", _crd("as.example.com"))], server_side=True)
    assert str(failure.value) == (
        "failed to install CRD crds/a.yaml: conflict occurred while applying object /as.example.com "
        f"apiextensions.k8s.io/v1, Kind=CustomResourceDefinition: {message}")


def test_other_failures_name_the_file():
    api = FakeAPI({("POST", CRD_PATH): _status(422, "Invalid", "spec.names.plural: Required value")})
    with pytest.raises(CRDInstallError, match="^failed to install CRD crds/a.yaml: spec.names.plural: Required value$"):
        install_crds(KubeClient(api), [("crds/a.yaml", _crd("as.example.com"))], server_side=False)
    with pytest.raises(CRDInstallError, match="^failed to install CRD crds/empty.yaml: resources are empty$"):
        install_crds(KubeClient(api), [("crds/empty.yaml", "# nothing\n")], server_side=True)
