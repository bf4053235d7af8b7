"""Patch metadata lookup from OpenAPI v3 documents shaped like the API server's."""

from __future__ import annotations

from typing import Any

from runner.kube.patch.openapi import GroupVersionKind, OpenAPIPatchMetadata, PatchMeta

_REF = "#/components/schemas/"
APPS_V1 = {"components": {"schemas": {
    "io.k8s.api.apps.v1.Deployment": {
        "type": "object",
        "properties": {"spec": {"allOf": [{"$ref": _REF + "io.k8s.api.apps.v1.DeploymentSpec"}]}},
        "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
    },
    "io.k8s.api.apps.v1.DeploymentSpec": {"properties": {
        "strategy": {"allOf": [{"$ref": _REF + "io.k8s.api.apps.v1.DeploymentStrategy"}],
                     "x-kubernetes-patch-strategy": "retainKeys"},
        "template": {"$ref": _REF + "io.k8s.api.core.v1.PodTemplateSpec"},
    }},
    "io.k8s.api.apps.v1.DeploymentStrategy": {"properties": {"type": {"type": "string"}}},
    "io.k8s.api.core.v1.PodTemplateSpec": {"properties": {
        "spec": {"allOf": [{"$ref": _REF + "io.k8s.api.core.v1.PodSpec"}]}}},
    "io.k8s.api.core.v1.PodSpec": {"properties": {
        "containers": {"type": "array", "items": {"allOf": [{"$ref": _REF + "Container"}]},
                       "x-kubernetes-patch-merge-key": "name",
                       "x-kubernetes-patch-strategy": "merge"},
        "volumes": {"type": "array", "items": {"type": "object"},
                    "x-kubernetes-patch-merge-key": "name",
                    "x-kubernetes-patch-strategy": "merge,retainKeys"},
        "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
    }},
    "Container": {"properties": {"env": {"type": "array", "x-kubernetes-patch-strategy": "merge",
                                         "x-kubernetes-patch-merge-key": "name"}}},
}}}
INDEX = {"paths": {"apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=AB"}}}


class Server:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def get_json(self, path: str) -> dict[str, Any]:
        self.asked.append(path)
        return {"/openapi/v3": INDEX, "/openapi/v3/apis/apps/v1?hash=AB": APPS_V1}[path]


def test_patch_metadata_is_found_through_refs_items_and_all_of() -> None:
    source = OpenAPIPatchMetadata(Server().get_json)
    deployment = source.schema_for(GroupVersionKind("apps", "v1", "Deployment"))
    assert deployment is not None
    spec, _ = deployment.field("spec")
    assert spec is not None
    strategy, meta = spec.field("strategy")
    assert meta == PatchMeta(("retainKeys",), "") and strategy is not None
    template, _ = spec.field("template")
    pod, _ = template.field("spec")  # type: ignore[union-attr]
    containers, meta = pod.field("containers")  # type: ignore[union-attr]
    assert meta == PatchMeta(("merge",), "name")
    container = containers.items()  # type: ignore[union-attr]
    assert container is not None
    assert container.field("env")[1] == PatchMeta(("merge",), "name")
    assert pod.field("volumes")[1] == PatchMeta(("merge", "retainKeys"), "name")  # type: ignore[union-attr]


def test_map_values_and_unknown_fields_have_no_metadata() -> None:
    source = OpenAPIPatchMetadata(Server().get_json)
    deployment = source.schema_for(GroupVersionKind("apps", "v1", "Deployment"))
    assert deployment is not None
    assert deployment.field("nonsense") == (None, PatchMeta())
    spec = deployment.field("spec")[0]
    pod = spec.field("template")[0].field("spec")[0]  # type: ignore[union-attr]
    selector, meta = pod.field("nodeSelector")  # type: ignore[union-attr]
    assert meta == PatchMeta() and selector is not None
    assert selector.field("disktype")[1] == PatchMeta()


def test_documents_are_fetched_once_per_group_version() -> None:
    server = Server()
    source = OpenAPIPatchMetadata(server.get_json)
    for _ in range(3):
        source.schema_for(GroupVersionKind("apps", "v1", "Deployment"))
    assert source.schema_for(GroupVersionKind("apps", "v1", "StatefulSet")) is None
    assert server.asked == ["/openapi/v3", "/openapi/v3/apis/apps/v1?hash=AB"]


def test_a_group_version_the_server_does_not_publish_has_no_schema() -> None:
    server = Server()
    source = OpenAPIPatchMetadata(server.get_json)
    assert source.schema_for(GroupVersionKind("batch", "v1", "Job")) is None
    assert server.asked == ["/openapi/v3"]


def test_group_version_kind_of_objects() -> None:
    assert GroupVersionKind.of_object({"apiVersion": "v1", "kind": "Service"}) == \
        GroupVersionKind("", "v1", "Service")
    gvk = GroupVersionKind.of("example.com/v1alpha1", "Widget")
    assert gvk == GroupVersionKind("example.com", "v1alpha1", "Widget")
    assert gvk.api_version == "example.com/v1alpha1"
