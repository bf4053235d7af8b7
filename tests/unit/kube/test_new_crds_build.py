"""A chart's CRDs written without --wait are not waited for (Helm's hookOnly waiter waits
for nothing); if the chart's own objects cannot be mapped yet when they are built, those
CRDs are waited for until Established and the build is tried once more."""

from __future__ import annotations

import json

import pytest

from runner.kube import wait
from runner.kube.client import KubeClient, RestMapping
from runner.kube.cluster import KubeCluster
from runner.kube.resources import ManifestBuildError, Resource
from runner.kube.transport import Reply

GADGETS = {"resources": [{"name": "gadgets", "kind": "Gadget", "namespaced": True}]}
MANIFEST = "apiVersion: x.example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n"


class _API:
    """Serves x.example.com/v1 only once `served` is set (the CRD Established)."""

    def __init__(self) -> None:
        self.served = False

    def request(self, method, path, query, headers, body):
        if path == "/version":
            return Reply(200, b'{"gitVersion": "v1.35.4"}')
        if path == "/apis/x.example.com/v1" and self.served:
            return Reply(200, json.dumps(GADGETS).encode())
        return Reply(404, b"404 page not found")

    def close(self) -> None:
        pass


def _crd() -> Resource:
    mapping = RestMapping("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", False)
    return Resource({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                     "metadata": {"name": "gadgets.x.example.com"}}, mapping)


def test_a_build_too_early_for_a_new_crd_waits_for_it_and_maps_then(monkeypatch):
    api = _API()
    cluster = KubeCluster(KubeClient(api))
    waited: list[list[str]] = []

    def established(client, resources, timeout, **_):
        waited.append([r.name for r in resources])
        api.served = True

    monkeypatch.setattr(wait, "watch_ready", established)
    cluster._unwaited_crds = [_crd()]
    [gadget] = cluster.build(MANIFEST, "ns")
    assert gadget.mapping.resource == "gadgets"
    assert waited == [["gadgets.x.example.com"]]
    with pytest.raises(ManifestBuildError, match="no matches for kind"):  # once only: then as Helm's
        cluster.build(MANIFEST.replace("Gadget", "Gizmo"), "ns")
    assert len(waited) == 1


def test_without_new_crds_a_build_fails_at_once(monkeypatch):
    monkeypatch.setattr(wait, "watch_ready", lambda *a, **k: pytest.fail("nothing to wait for"))
    with pytest.raises(ManifestBuildError, match="ensure CRDs are installed first"):
        KubeCluster(KubeClient(_API())).build(MANIFEST, "ns")
