"""Cluster.watch_pods over the fake watch API: the hook's pods are listed once, then
watched; each change is reported as it comes, with no further request."""

from __future__ import annotations

import queue
import threading

from runner.kube import observe
from tests.unit.fakes.watchapi import FakeApi, resource

PODS = "/api/v1/namespaces/ns/pods"


def _names(pods: list[dict]) -> list[str]:
    return [pod["metadata"]["name"] for pod in pods]


def _watching(api: FakeApi, **which: str) -> tuple[observe.PodWatch, queue.Queue[list[str]], threading.Thread]:
    """A PodWatch read on a thread: the pod names of each report, in `updates`."""
    watch = observe.PodWatch(api, "ns", **which)
    updates: queue.Queue[list[str]] = queue.Queue()
    thread = threading.Thread(target=lambda: [updates.put(_names(pods)) for pods in watch], daemon=True)
    thread.start()
    return watch, updates, thread


def test_pods_are_listed_once_then_watched_and_each_change_is_reported_at_once() -> None:
    api = FakeApi()
    first = resource("Pod", "migrate-1")
    api.put(first, {"phase": "Failed"}, labels={"job-name": "migrate"}, creationTimestamp="2026-01-01T00:00:01Z")
    api.put(resource("Pod", "other"), {"phase": "Running"}, labels={"job-name": "other"})
    watch, updates, thread = _watching(api, selector="job-name=migrate")

    assert updates.get(timeout=5) == ["migrate-1"]
    api.wait_for_watches(1)
    retry = resource("Pod", "migrate-2")
    api.send("ADDED", retry, {"phase": "Pending"}, labels={"job-name": "migrate"},
             creationTimestamp="2026-01-01T00:00:09Z")
    assert updates.get(timeout=5) == ["migrate-1", "migrate-2"]
    api.send("MODIFIED", retry, {"phase": "Running"}, labels={"job-name": "migrate"},
             creationTimestamp="2026-01-01T00:00:09Z")
    assert updates.get(timeout=5) == ["migrate-1", "migrate-2"]
    api.send("DELETED", first)
    assert updates.get(timeout=5) == ["migrate-2"]
    watch.close()
    thread.join(5)

    assert not thread.is_alive()
    assert api.requests == [f"LIST {PODS}", f"WATCH {PODS}"]
    assert api.watch_queries[0]["labelSelector"] == "job-name=migrate"
    assert api.open_watches() == []


def test_a_pod_by_name_is_watched_by_a_field_selector_and_close_ends_an_idle_watch() -> None:
    api = FakeApi()
    api.put(resource("Pod", "hook"), {"phase": "Running"})
    watch, updates, thread = _watching(api, name="hook")

    assert updates.get(timeout=5) == ["hook"]
    api.wait_for_watches(1)
    watch.close()
    thread.join(2)

    assert not thread.is_alive()
    assert api.watch_queries[0]["fieldSelector"] == "metadata.name=hook"
