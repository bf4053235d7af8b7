"""KubeClient over a fake transport: Helm's reachability check before the first
request, its wording, and a kubeconfig that cannot be used failing at first use."""

from __future__ import annotations

import json

import pytest

from runner.kube.client import ClusterUnreachable, KubeClient, KubeError
from runner.kube.kubeconfig import ClusterAccess
from runner.kube.transport import ConnectionFailed, Reply


class FakeTransport:
    def __init__(self, replies: dict[str, Reply | Exception]) -> None:
        self.replies = replies
        self.paths: list[str] = []

    def request(self, method, path, query, headers, body):
        self.paths.append(path)
        reply = self.replies.get(path, Reply(404, b"{}"))
        if isinstance(reply, Exception):
            raise reply
        return reply

    def close(self) -> None:
        pass


VERSION = Reply(200, json.dumps({"gitVersion": "v1.35.4"}).encode())


def test_the_first_request_checks_reachability_once():
    transport = FakeTransport({"/version": VERSION, "/api/v1/namespaces": Reply(200, b'{"items": []}')})
    client = KubeClient(transport)
    client.request("GET", "/api/v1/namespaces")
    client.request("GET", "/api/v1/namespaces")
    assert transport.paths == ["/version", "/api/v1/namespaces", "/api/v1/namespaces"]
    assert client.server_version() == "v1.35.4"
    assert transport.paths.count("/version") == 1


def test_an_unreachable_server_reads_as_helms_is_reachable():
    failure = ConnectionFailed('Get "https://k/version": dial tcp 10.0.0.1:443: i/o timeout')
    client = KubeClient(FakeTransport({"/version": failure}))
    with pytest.raises(ClusterUnreachable, match=r'^kubernetes cluster unreachable: Get "https://k/version": '):
        client.request("GET", "/api/v1/secrets")
    with pytest.raises(ClusterUnreachable, match="^cluster reachability check failed: kubernetes cluster unreachable"):
        client.server_version()


def test_unauthorized_reads_as_client_go_says_it():
    client = KubeClient(FakeTransport({"/version": Reply(401, b"")}))
    with pytest.raises(ClusterUnreachable, match="the server has asked for the client to provide credentials"):
        client.reachable()


def test_a_later_connection_failure_names_the_request():
    failure = ConnectionFailed('Patch "https://k/api/v1/x": EOF')
    client = KubeClient(FakeTransport({"/version": VERSION, "/api/v1/x": failure}))
    with pytest.raises(KubeError, match='^Patch "https://k/api/v1/x": EOF$'):
        client.request("PATCH", "/api/v1/x")


def test_an_unusable_kubeconfig_fails_at_the_first_request_with_its_reason():
    client = KubeClient.connect(ClusterAccess(kubeconfig="/nonexistent", namespace="apps"))
    assert client.default_namespace == "apps"
    with pytest.raises(ClusterUnreachable, match="^kubernetes cluster unreachable: stat /nonexistent: no such file"):
        client.request("GET", "/api")


def test_a_removed_auth_provider_fails_at_the_first_request(tmp_path):
    config = tmp_path / "config"
    config.write_text("current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
                      "clusters:\n- name: k\n  cluster: {server: 'https://k:6443'}\n"
                      "users:\n- name: u\n  user:\n    auth-provider: {name: gcp}\n")
    client = KubeClient.connect(ClusterAccess(kubeconfig=str(config)))
    with pytest.raises(ClusterUnreachable, match="^kubernetes cluster unreachable: The gcp auth plugin has been removed"):
        client.request("GET", "/api")
