"""three_way_patch: Helm's choice between strategic and JSON merge patches
(pkg/kube/client.go createPatch), and the shapes it sends for built-in kinds."""

from __future__ import annotations

from typing import Any

import pytest

from runner.kube.patch import (
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    GroupVersionKind,
    PatchError,
    is_strategic,
    three_way_patch,
)
from runner.kube.patch.openapi import Schema
from tests.unit.kube.patch.test_openapi import APPS_V1

_SCHEMAS = APPS_V1["components"]["schemas"]
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")


class Source:
    def schema_for(self, gvk: GroupVersionKind) -> Schema | None:
        assert gvk == DEPLOYMENT
        return Schema(_SCHEMAS, _SCHEMAS["io.k8s.api.apps.v1.Deployment"])


def _deploy(containers: list[dict[str, Any]], strategy: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"strategy": strategy, "template": {"spec": {"containers": containers}}}}


@pytest.mark.parametrize(("api_version", "kind", "strategic"), [
    ("v1", "ConfigMap", True),
    ("apps/v1", "Deployment", True),
    ("networking.k8s.io/v1", "Ingress", True),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition", True),  # Helm registers v1
    ("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", False),  # Helm's isCRD
    ("apiregistration.k8s.io/v1", "APIService", False),  # not in client-go's scheme
    ("monitoring.coreos.com/v1", "ServiceMonitor", False),
])
def test_strategic_only_for_kinds_helm_knows_as_typed(api_version: str, kind: str,
                                                      strategic: bool) -> None:
    assert is_strategic(GroupVersionKind.of(api_version, kind)) is strategic


def test_containers_merge_by_name_and_retain_keys_clears_the_old_strategy() -> None:
    original = _deploy([{"name": "app", "image": "a:1"}, {"name": "old", "image": "o:1"}],
                       {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}})
    modified = _deploy([{"name": "app", "image": "a:2"}], {"type": "Recreate"})
    current = _deploy([{"name": "app", "image": "a:1"}, {"name": "old", "image": "o:1"},
                       {"name": "sidecar", "image": "s:1"}],
                      {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}})

    content_type, patch = three_way_patch(original, modified, current, DEPLOYMENT, Source())

    assert content_type == STRATEGIC_MERGE_PATCH
    assert patch == {"spec": {
        "strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": None},
        "template": {"spec": {
            "$setElementOrder/containers": [{"name": "app"}],
            "containers": [{"name": "app", "image": "a:2"}, {"name": "old", "$patch": "delete"}],
        }},
    }}


def test_no_schema_means_no_metadata_and_lists_are_replaced() -> None:
    original = {"spec": {"items": ["a", "b"]}}
    modified = {"spec": {"items": ["a"]}}
    _, patch = three_way_patch(original, modified, original, DEPLOYMENT, None)
    assert patch == {"spec": {"items": ["a"]}}


def test_unchanged_objects_give_an_empty_patch_whatever_the_server_added() -> None:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "1"}}
    live = {**obj, "metadata": {"name": "x", "uid": "u", "resourceVersion": "7",
                                "managedFields": [{"manager": "helm"}]}}
    assert three_way_patch(obj, obj, live, GroupVersionKind("", "v1", "ConfigMap"), None) == \
        (STRATEGIC_MERGE_PATCH, {})


def test_custom_resources_get_a_two_way_merge_patch_unless_asked_for_three() -> None:
    gvk = GroupVersionKind("example.com", "v1", "Widget")
    original = {"spec": {"a": 1, "b": 2}}
    modified = {"spec": {"a": 1}}
    current = {"spec": {"a": 5, "b": 2, "c": 3}}
    assert three_way_patch(original, modified, current, gvk, None) == \
        (MERGE_PATCH, {"spec": {"b": None}})
    assert three_way_patch(original, modified, current, gvk, None, three_way_for_custom=True) == \
        (MERGE_PATCH, {"spec": {"a": 1, "b": None}})


def test_a_list_of_maps_without_its_merge_key_is_an_error() -> None:
    original = _deploy([{"name": "app"}], {})
    modified = _deploy([{"image": "x"}], {})
    with pytest.raises(PatchError, match="does not contain declared merge key: name"):
        three_way_patch(original, modified, original, DEPLOYMENT, Source())
