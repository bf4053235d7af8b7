from runner.kube.client import RestMapping
from runner.kube.openapi import SchemaNode
from runner.kube.patch import three_way_patch
from runner.kube.resources import Resource
from runner.kube.strategic import three_way

WIDGET = RestMapping("example.com", "v1", "Widget", "widgets", True)


def _patch(original, target, live):
    return three_way_patch(None, original, Resource(target, WIDGET, "ns"), live)[0]


def test_fields_dropped_from_the_chart_are_deleted():
    original = {"data": {"a": "1", "b": "2"}}
    target = {"data": {"a": "1"}}
    live = {"data": {"a": "1", "b": "2"}, "metadata": {"resourceVersion": "5"}}
    assert _patch(original, target, live) == {"data": {"b": None}}


def test_fields_added_by_others_are_left_alone():
    original = {"data": {"a": "1"}}
    target = {"data": {"a": "2"}}
    live = {"data": {"a": "1", "extra": "x"}}
    assert _patch(original, target, live) == {"data": {"a": "2"}}


def test_live_drift_on_chart_fields_is_corrected():
    original = {"spec": {"replicas": 1}}
    target = {"spec": {"replicas": 1}}
    live = {"spec": {"replicas": 5}, "status": {"ready": 1}}
    assert _patch(original, target, live) == {"spec": {"replicas": 1}}


def test_nothing_to_do_gives_an_empty_patch():
    obj = {"metadata": {"name": "x"}, "data": {"a": "1"}}
    live = {"metadata": {"name": "x", "uid": "u", "managedFields": []}, "data": {"a": "1"}}
    assert _patch(obj, obj, live) == {}


# A slice of the PodSpec schema as the API server publishes it in OpenAPI v3.
SCHEMAS = {
    "PodSpec": {"properties": {
        "containers": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/Container"}]},
                       "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
        "finalizers": {"type": "array", "items": {"type": "string"},
                       "x-kubernetes-patch-strategy": "merge"},
        "args": {"type": "array", "items": {"type": "string"}},
    }},
    "Container": {"properties": {"name": {"type": "string"}, "image": {"type": "string"}}},
}
POD = SchemaNode(SCHEMAS, {"$ref": "#/components/schemas/PodSpec"})


def test_containers_merge_by_name_keeping_an_injected_sidecar():
    original = {"containers": [{"name": "web", "image": "nginx:1"}]}
    target = {"containers": [{"name": "web", "image": "nginx:2"}]}
    live = {"containers": [{"name": "web", "image": "nginx:1"}, {"name": "sidecar", "image": "envoy"}]}
    assert three_way(original, target, live, POD) == {
        "containers": [{"name": "web", "image": "nginx:2"}],
        "$setElementOrder/containers": [{"name": "web"}],
    }


def test_a_container_dropped_from_the_chart_is_deleted_by_key():
    original = {"containers": [{"name": "web", "image": "a"}, {"name": "old", "image": "b"}]}
    target = {"containers": [{"name": "web", "image": "a"}]}
    live = {"containers": [{"name": "web", "image": "a"}, {"name": "old", "image": "b"}]}
    assert three_way(original, target, live, POD) == {
        "containers": [{"name": "old", "$patch": "delete"}],
        "$setElementOrder/containers": [{"name": "web"}],
    }


def test_primitive_merge_lists_and_replace_lists():
    original = {"finalizers": ["a", "b"], "args": ["x"]}
    target = {"finalizers": ["a", "c"], "args": ["y"]}
    live = {"finalizers": ["a", "b", "other"], "args": ["x"]}
    assert three_way(original, target, live, POD) == {
        "finalizers": ["c"], "$deleteFromPrimitiveList/finalizers": ["b"],
        "$setElementOrder/finalizers": ["a", "c"], "args": ["y"],
    }
