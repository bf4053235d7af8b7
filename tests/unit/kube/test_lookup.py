"""Helm's lookup over a fake API server: which requests it sends (discovery once per
group/version for a whole run), what templates get back (Go's number types, a list's
items with their kind), and Helm's words when it fails. The same cases run against the
real API server and helm 4.1.4 in tests/e2e/test_lookup.py."""

from __future__ import annotations

import json

import pytest

from runner.golang.types import Int64, go_type_name
from runner.kube.client import KubeClient
from runner.kube.lookup import LookupRefused, lookup
from runner.kube.transport import Reply

VERSION = Reply(200, json.dumps({"gitVersion": "v1.35.4"}).encode())
CORE = {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
    {"name": "configmaps", "kind": "ConfigMap", "namespaced": True},
    {"name": "namespaces", "kind": "Namespace", "namespaced": False},
    {"name": "namespaces/status", "kind": "Namespace", "namespaced": False},
    {"name": "pods/log", "kind": "Pod", "namespaced": True},
]}
NOT_FOUND = Reply(404, b"404 page not found")


def _json(body: dict) -> Reply:
    return Reply(200, json.dumps(body).encode())


class FakeAPI:
    """Answers by path; anything else is a 404 text page, as the API server's mux."""

    def __init__(self, replies: dict[str, Reply]) -> None:
        self.replies = {"/version": VERSION, **replies}
        self.paths: list[str] = []

    def request(self, method, path, query, headers, body):
        self.paths.append(path)
        return self.replies.get(path, NOT_FOUND)

    def close(self) -> None:
        pass


def _client(replies: dict[str, Reply]) -> tuple[KubeClient, FakeAPI]:
    api = FakeAPI(replies)
    return KubeClient(api), api


def test_a_run_discovers_each_group_version_once_whatever_it_looks_up():
    client, api = _client({"/api/v1": _json(CORE)})
    for name in ("a", "b", "a"):
        lookup(client, "v1", "ConfigMap", "ns", name)
    lookup(client, "v1", "Namespace", "", "kube-system")
    lookup(client, "v1", "Nope", "ns", "")
    assert api.paths.count("/api/v1") == 1
    assert api.paths == ["/version", "/api/v1", "/api/v1/namespaces/ns/configmaps/a",
                         "/api/v1/namespaces/ns/configmaps/b", "/api/v1/namespaces/ns/configmaps/a",
                         "/api/v1/namespaces/kube-system", "/api"]


def test_a_group_version_the_server_lacks_is_asked_once_and_fails_in_helms_words():
    client, api = _client({})
    logged: list[str] = []
    for _ in range(2):
        with pytest.raises(LookupRefused) as failure:
            lookup(client, "example.com/v1", "Widget", "ns", "w", log=logged.append)
    assert str(failure.value) == ("unable to get apiresource from unstructured: example.com/v1, "
                                  "Kind=Widget: the server could not find the requested resource")
    assert api.paths.count("/apis/example.com/v1") == 1
    assert logged[:2] == [
        'level=ERROR msg="unable to retrieve resource list" GroupVersion=example.com/v1 '
        'error="the server could not find the requested resource"',
        'level=ERROR msg="unable to get apiresource" groupVersionKind="example.com/v1, Kind=Widget" '
        'error="the server could not find the requested resource"']


def test_namespaced_kinds_are_read_in_the_namespace_others_cluster_wide():
    client, api = _client({"/api/v1": _json(CORE)})
    lookup(client, "v1", "Namespace", "ignored", "kube-system")
    lookup(client, "v1", "ConfigMap", "", "x")
    lookup(client, "v1", "ConfigMap", "", "")
    assert api.paths[-3:] == ["/api/v1/namespaces/kube-system", "/api/v1/configmaps/x", "/api/v1/configmaps"]


def test_subresources_are_skipped_so_a_kind_only_they_serve_is_unknown():
    client, api = _client({"/api/v1": _json(CORE)})
    assert lookup(client, "v1", "Pod", "ns", "p") == {}  # pods/log is not the Pod resource
    assert api.paths[-1] == "/api/p"  # client-go's path for an empty resource


def test_missing_objects_are_an_empty_map():
    client, _ = _client({"/api/v1": _json(CORE),
                         "/api/v1/namespaces/ns/configmaps/gone": Reply(404, json.dumps(
                             {"kind": "Status", "reason": "NotFound", "message": "nope"}).encode())})
    assert lookup(client, "v1", "ConfigMap", "ns", "gone") == {}


def test_numbers_are_int64_when_integral_and_float64_otherwise():
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generation": 3},
           "spec": {"half": 1.5, "big": 12345678901234567890, "list": [1, 2.0], "flag": True}}
    client, _ = _client({"/api/v1": _json(CORE), "/api/v1/namespaces/ns/configmaps/c": _json(obj)})
    found = lookup(client, "v1", "ConfigMap", "ns", "c")
    assert type(found["metadata"]["generation"]) is Int64
    assert go_type_name(found["metadata"]["generation"]) == "int64"
    assert [go_type_name(v) for v in (found["spec"]["half"], found["spec"]["big"], *found["spec"]["list"])] == [
        "float64", "float64", "int64", "float64"]
    assert found["spec"]["flag"] is True


def test_a_list_is_client_gos_unstructured_list_content():
    body = {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"},
            "items": [{"metadata": {"name": "a"}}, {"kind": "Other", "metadata": {"name": "b"}}]}
    client, _ = _client({"/api/v1": _json(CORE), "/api/v1/namespaces/ns/configmaps": _json(body)})
    assert lookup(client, "v1", "ConfigMap", "ns", "") == {
        "kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"},
        "items": [{"metadata": {"name": "a"}, "kind": "ConfigMap", "apiVersion": "v1"},
                  {"kind": "Other", "metadata": {"name": "b"}}]}


def test_an_unknown_kinds_list_is_the_api_roots_versions_with_no_items():
    versions = {"kind": "APIVersions", "versions": ["v1"]}
    client, _ = _client({"/apis/apps/v1": _json({"resources": []}), "/api": _json(versions)})
    assert lookup(client, "apps/v1", "Nope", "ns", "") == {"kind": "APIVersions", "versions": ["v1"], "items": []}


def test_forbidden_is_the_servers_message():
    message = 'secrets is forbidden: User "nobody" cannot list resource "secrets" in API group ""'
    client, _ = _client({"/api/v1": _json(CORE),
                         "/api/v1/namespaces/ns/configmaps": Reply(403, json.dumps(
                             {"kind": "Status", "reason": "Forbidden", "message": message}).encode())})
    with pytest.raises(LookupRefused, match=f"^{message}$"):
        lookup(client, "v1", "ConfigMap", "ns", "")


@pytest.mark.parametrize(("api_version", "namespace", "name", "error"), [
    ("", "ns", "x", "unable to get apiresource from unstructured: /, Kind=ConfigMap: "
                    "groupVersion shouldn't be empty"),
    ("a/b/c", "ns", "x", "unable to get apiresource from unstructured: /, Kind=ConfigMap: "
                         "groupVersion shouldn't be empty"),
    ("v1", "a/b", "x", "invalid namespace \"a/b\": [may not contain '/']"),
    ("v1", "ns", "..", "invalid resource name \"..\": [may not be '..']"),
    ("v1", "ns", "a%b/c", "invalid resource name \"a%b/c\": [may not contain '/' may not contain '%']"),
])
def test_malformed_arguments_fail_as_client_go_does(api_version, namespace, name, error):
    client, _ = _client({"/api/v1": _json(CORE)})
    with pytest.raises(LookupRefused) as failure:
        lookup(client, api_version, "ConfigMap", namespace, name)
    assert str(failure.value) == error


def test_after_capabilities_lookups_need_no_discovery_of_their_own():
    """A release's render reads the capabilities first (aggregated discovery, two requests);
    what lookup needs of served group/versions is known from them."""
    aggregated = {"items": [{"metadata": {"name": ""}, "versions": [{"version": "v1", "resources": [
        {"resource": "configmaps", "responseKind": {"kind": "ConfigMap"}, "scope": "Namespaced"}]}]}]}
    client, api = _client({"/api": _json(aggregated), "/apis": _json({"items": []})})
    client.api_versions()
    lookup(client, "v1", "ConfigMap", "ns", "a")
    lookup(client, "v1", "ConfigMap", "ns", "")
    assert api.paths == ["/version", "/api", "/apis", "/api/v1/namespaces/ns/configmaps/a",
                         "/api/v1/namespaces/ns/configmaps"]
