"""Capabilities.APIVersions from aggregated discovery: asked once per client (a spec run's
releases share one), asked again at every render once the client wrote a CRD or an
APIService (as Helm's install asks again after its CRDs), and after a REST mapping found
discovery stale. Over a fake API server; tests/e2e/test_spec_run.py and test_chart_crds.py
run the same against the real one."""

from __future__ import annotations

import json

from runner.kube.client import KubeClient
from runner.kube.transport import Reply


def _group_list(kinds: list[tuple[str, str, str]]) -> dict:
    """An APIGroupDiscoveryList of (group, version, kind) entries."""
    items: dict[str, dict] = {}
    for group, version, kind in kinds:
        item = items.setdefault(group, {"metadata": {"name": group}, "versions": []})
        item["versions"].append({"version": version, "resources": [
            {"resource": kind.lower() + "s", "responseKind": {"kind": kind}, "scope": "Namespaced"}]})
    return {"kind": "APIGroupDiscoveryList", "items": list(items.values())}


class FakeAPI:
    def __init__(self) -> None:
        self.kinds = {"/api": [("", "v1", "ConfigMap")], "/apis": [("apps", "v1", "Deployment")]}
        self.sent: list[tuple[str, str]] = []

    def request(self, method, path, query, headers, body):
        self.sent.append((method, path))
        if path == "/version":
            return Reply(200, json.dumps({"gitVersion": "v1.35.4"}).encode())
        if method == "GET" and path in self.kinds:
            return Reply(200, json.dumps(_group_list(self.kinds[path])).encode())
        if method == "GET" and path == "/apis/example.com/v1":
            return Reply(200, json.dumps({"resources": [
                {"name": "widgets", "kind": "Widget", "namespaced": True}]}).encode())
        return Reply(201, b"{}")

    def discoveries(self) -> int:
        return sum(1 for method, path in self.sent if method == "GET" and path == "/apis")

    def close(self) -> None:
        pass


def test_discovery_is_asked_once_for_every_render_of_a_run():
    api = FakeAPI()
    client = KubeClient(api)
    first = client.api_versions()
    assert "apps/v1/Deployment" in first and "v1/ConfigMap" in first
    assert client.api_versions() == first == client.api_versions()
    assert api.discoveries() == 1


def test_a_crd_written_by_the_client_is_seen_by_every_later_render():
    api = FakeAPI()
    client = KubeClient(api)
    client.api_versions()
    client.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body={})
    api.kinds["/apis"].append(("example.com", "v1", "Widget"))
    assert "example.com/v1/Widget" in client.api_versions()
    api.kinds["/apis"].append(("example.com", "v2", "Widget"))
    assert "example.com/v2/Widget" in client.api_versions()  # established later: asked again
    assert api.discoveries() == 3


def test_an_apiservice_write_counts_as_well_and_other_writes_do_not():
    api = FakeAPI()
    client = KubeClient(api)
    client.api_versions()
    client.request("PATCH", "/api/v1/namespaces/ns/configmaps/apiservices", body={})
    client.api_versions()
    assert api.discoveries() == 1
    client.request("PATCH", "/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com", body={})
    client.api_versions()
    assert api.discoveries() == 2


def test_a_mapping_that_found_discovery_stale_refreshes_the_api_versions():
    api = FakeAPI()
    client = KubeClient(api)
    client.api_versions()
    api.kinds["/apis"].append(("example.com", "v1", "Widget"))  # a CRD made by someone else
    assert client.mapping("example.com/v1", "Widget").resource == "widgets"
    assert "example.com/v1/Widget" in client.api_versions()
    assert api.discoveries() == 2
