from runner.kube.client import RestMapping
from runner.kube.patch import three_way_patch
from runner.kube.resources import Resource

CM = RestMapping("", "v1", "ConfigMap", "configmaps", True)


def _patch(original, target, live):
    return three_way_patch(None, original, Resource(target, CM, "ns"), live)[0]


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
