"""Helm's Build over a fake discovery: documents without a kind (validated, or only
decoded with --disable-openapi-validation) and kinds the cluster does not serve, in the
words kubectl's builder uses, aggregated as it aggregates them. tests/e2e/
test_apply_fidelity.py runs the same manifests through helm on the testbed."""

from __future__ import annotations

import json

import pytest

from runner.kube.client import KubeClient
from runner.kube.resources import ManifestBuildError, build
from runner.kube.transport import Reply

CORE = {"resources": [{"name": "configmaps", "kind": "ConfigMap", "namespaced": True}]}


class _Discovery:
    def request(self, method, path, query, headers, body):
        if path == "/version":
            return Reply(200, b'{"gitVersion": "v1.35.4"}')
        if path == "/api/v1":
            return Reply(200, json.dumps(CORE).encode())
        return Reply(404, b"404 page not found")

    def close(self) -> None:
        pass


def _build(manifest: str, validate: bool = True) -> str:
    with pytest.raises(ManifestBuildError) as raised:
        build(KubeClient(_Discovery()), manifest, "ns", validate=validate)
    return str(raised.value)


UNSERVED = "apiVersion: example.com/v9\nkind: Gadget\nmetadata:\n  name: g\n  namespace: other\n"
NO_KIND = "apiVersion: v1\nmetadata:\n  name: nk\n"


def test_a_kind_the_cluster_does_not_serve():
    assert _build(UNSERVED) == ('resource mapping not found for name: "g" namespace: "other" from "": '
                                'no matches for kind "Gadget" in version "example.com/v9"\n'
                                "ensure CRDs are installed first")


def test_validation_names_what_is_missing_and_stops_reading():
    assert _build(NO_KIND) == 'error validating "": error validating data: kind not set'
    assert _build("metadata:\n  name: x\n") == \
        'error validating "": error validating data: [apiVersion not set, kind not set]'
    # the builder goes on past an unserved kind, and stops at the document that fails validation
    assert _build(f"{UNSERVED}---\n{NO_KIND}---\n{UNSERVED.replace('Gadget', 'Zed')}") == (
        '[resource mapping not found for name: "g" namespace: "other" from "": no matches for kind "Gadget" '
        'in version "example.com/v9"\nensure CRDs are installed first, '
        'error validating "": error validating data: kind not set]')


def test_without_validation_a_document_without_kind_fails_to_decode_and_the_rest_is_read():
    assert _build(f"{NO_KIND}---\n{UNSERVED}", validate=False) == (
        "[unable to decode \"\": Object 'Kind' is missing in '{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"nk\"}}', "
        'resource mapping not found for name: "g" namespace: "other" from "": no matches for kind "Gadget" '
        'in version "example.com/v9"\nensure CRDs are installed first]')
