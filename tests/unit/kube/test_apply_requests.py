"""Helm 4.1.4's Create and Update over a fake API server: the requests each sends (so the
server's warnings come as often as Helm prints them), fieldValidation=Strict with
server-side apply only, and how failures stop, continue and join. The same runs against
helm on the testbed in tests/e2e/test_apply_fidelity.py."""

from __future__ import annotations

import json

import pytest

from runner.kube.client import KubeClient, KubeError
from runner.kube.operations import create_all, update_all
from runner.kube.resources import build
from runner.kube.transport import Reply

CORE = {"resources": [{"name": "configmaps", "kind": "ConfigMap", "namespaced": True},
                      {"name": "secrets", "kind": "Secret", "namespaced": True}]}
CM = "/api/v1/namespaces/ns/configmaps"
SECRET = "/api/v1/namespaces/ns/secrets"


def _status(code: int, reason: str, message: str) -> Reply:
    return Reply(code, json.dumps({"kind": "Status", "reason": reason, "message": message}).encode())


class FakeAPI:
    """Answers by (method, path); objects in `live` exist (GET 200), others are 404."""

    def __init__(self, replies: dict[tuple[str, str], Reply] | None = None, live: tuple[str, ...] = ()) -> None:
        self.replies = {("GET", "/version"): Reply(200, b'{"gitVersion": "v1.35.4"}'),
                        ("GET", "/api/v1"): Reply(200, json.dumps(CORE).encode()),
                        # no schemas: client-side patches are JSON merge patches here
                        ("GET", "/openapi/v3"): Reply(200, b'{"paths": {}}'), **(replies or {})}
        self.live = set(live)
        self.sent: list[tuple[str, str, dict]] = []

    def request(self, method, path, query, headers, body):
        if path not in ("/version", "/api/v1", "/openapi/v3"):
            self.sent.append((method, path, dict(query)))
        if (method, path) in self.replies:
            return self.replies[(method, path)]
        if method == "GET":
            return Reply(200, json.dumps(_as_rendered(path)).encode()) if path in self.live else \
                _status(404, "NotFound", "not found")
        return Reply(201 if method == "POST" else 200, b"{}")

    def close(self) -> None:
        pass


def _as_rendered(path: str) -> dict:
    """A live object just as the chart renders it (so a client-side patch finds nothing to do)."""
    kind = "ConfigMap" if "/configmaps/" in path else "Secret"
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": path.rsplit("/", 1)[1], "namespace": "ns"}}


def _objects(client: KubeClient, *docs: tuple[str, str]) -> list:
    manifest = "".join(f"---\napiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n" for kind, name in docs)
    return build(client, manifest, "ns")


def test_server_side_apply_is_strict_and_client_side_create_leaves_validation_to_the_server():
    api = FakeAPI()
    client = KubeClient(api)
    create_all(client, _objects(client, ("ConfigMap", "a")), server_side=True)
    create_all(client, _objects(client, ("ConfigMap", "b")), server_side=False)
    assert api.sent == [("PATCH", f"{CM}/a", {"fieldManager": "helm", "fieldValidation": "Strict", "force": "false"}),
                        ("POST", CM, {"fieldManager": "helm"})]


def test_create_writes_every_object_and_joins_the_servers_failures_with_newlines():
    api = FakeAPI({("PATCH", f"{CM}/a"): _status(422, "Invalid", 'ConfigMap "a" is invalid: x'),
                   ("PATCH", f"{SECRET}/s"): _status(422, "Invalid", 'Secret "s" is invalid: y')})
    client = KubeClient(api)
    with pytest.raises(KubeError) as raised:
        create_all(client, _objects(client, ("ConfigMap", "a"), ("ConfigMap", "b"), ("Secret", "s")),
                   server_side=True)
    assert str(raised.value) == 'ConfigMap "a" is invalid: x\nSecret "s" is invalid: y'
    assert [path for _, path, _ in api.sent] == [f"{CM}/a", f"{CM}/b", f"{SECRET}/s"]


def test_a_conflict_names_the_object_as_helm_does():
    api = FakeAPI({("PATCH", f"{CM}/a"): _status(409, "Conflict", 'Apply failed with 1 conflict: conflict with "kubectl": .data.x')})
    client = KubeClient(api)
    with pytest.raises(KubeError, match=r'^conflict occurred while applying object ns/a /v1, Kind=ConfigMap: '
                                        r'Apply failed with 1 conflict: conflict with "kubectl": \.data\.x$'):
        create_all(client, _objects(client, ("ConfigMap", "a")), server_side=True)


def test_update_reads_each_object_then_applies_it_and_deletes_what_the_release_dropped():
    api = FakeAPI(live=(f"{CM}/a", f"{CM}/gone"))
    client = KubeClient(api)
    current = _objects(client, ("ConfigMap", "a"), ("ConfigMap", "gone"))
    update_all(client, current, _objects(client, ("ConfigMap", "a"), ("ConfigMap", "new")), server_side=True)
    sent = [(method, path) for method, path, _ in api.sent]
    # Helm's requests, one for one; the objects of a kind are read, then written, at once
    assert sorted(sent[:4]) == sorted([("GET", f"{CM}/a"), ("PATCH", f"{CM}/a"),      # exists: applied
                                       ("GET", f"{CM}/new"), ("PATCH", f"{CM}/new")])  # missing: created
    for name in ("a", "new"):
        assert sent.index(("GET", f"{CM}/{name}")) < sent.index(("PATCH", f"{CM}/{name}"))
    assert sent[4:] == [("GET", f"{CM}/gone"), ("DELETE", f"{CM}/gone")]  # dropped: read, then deleted


def test_concurrent_updates_tell_warnings_and_debug_lines_in_helms_order():
    names = [f"c{i:02}" for i in range(20)]
    warned = {("PATCH", f"{CM}/{name}"): Reply(200, b"{}", warnings=(f'299 - "patched {name}"',))
              for name in names}
    api = FakeAPI(warned, live=tuple(f"{CM}/{name}" for name in names))
    told: list[str] = []
    client = KubeClient(api, on_warning=told.append,
                        on_debug=lambda message, **attrs: told.append(f"{message} {attrs.get('name', '')}"))
    objects = _objects(client, *(("ConfigMap", name) for name in names))
    update_all(client, objects, objects, server_side=True)
    assert [line for line in told if line.startswith(("patched", "Patched"))] == [
        line for name in names for line in (f"patched {name}", f"Patched resource {name}")]


def test_a_stop_in_the_middle_of_a_kind_writes_nothing_after_it():
    api = FakeAPI({("PATCH", f"{CM}/new"): _status(422, "Invalid", "new is invalid")},
                  live=(f"{CM}/a", f"{CM}/b"))
    client = KubeClient(api)
    current = _objects(client, ("ConfigMap", "a"), ("ConfigMap", "b"))
    with pytest.raises(KubeError, match=r"^failed to create resource: new is invalid$"):
        update_all(client, current, _objects(client, ("ConfigMap", "a"), ("ConfigMap", "new"), ("ConfigMap", "b")),
                   server_side=True)
    writes = [(method, path) for method, path, _ in api.sent if method != "GET"]
    assert writes == [("PATCH", f"{CM}/a"), ("PATCH", f"{CM}/new")]  # b, after the stop, untouched


def test_client_side_update_reads_again_for_the_patch_and_once_more_when_nothing_changed():
    api = FakeAPI(live=(f"{CM}/a",))
    client = KubeClient(api)
    objects = _objects(client, ("ConfigMap", "a"))
    update_all(client, objects, _objects(client, ("ConfigMap", "a")), server_side=False)
    assert [(method, path) for method, path, _ in api.sent] == [("GET", f"{CM}/a")] * 3


def test_update_gathers_failed_updates_and_deletes_nothing_then():
    api = FakeAPI({("PATCH", f"{CM}/a"): _status(422, "Invalid", "a is invalid"),
                   ("PATCH", f"{CM}/b"): _status(422, "Invalid", "b is invalid")},
                  live=(f"{CM}/a", f"{CM}/b", f"{CM}/gone"))
    client = KubeClient(api)
    current = _objects(client, ("ConfigMap", "a"), ("ConfigMap", "b"), ("ConfigMap", "gone"))
    with pytest.raises(KubeError, match=r"^a is invalid && b is invalid$"):
        update_all(client, current, _objects(client, ("ConfigMap", "a"), ("ConfigMap", "b")), server_side=True)
    assert ("DELETE", f"{CM}/gone") not in [(m, p) for m, p, _ in api.sent]


def test_a_failed_create_stops_the_update_there():
    api = FakeAPI({("PATCH", f"{CM}/a"): _status(422, "Invalid", "a is invalid"),
                   ("POST", f"{CM}"): _status(422, "Invalid", "new is invalid")},
                  live=(f"{CM}/a",))
    client = KubeClient(api)
    current = _objects(client, ("ConfigMap", "a"))
    with pytest.raises(KubeError, match=r"^failed to create resource: new is invalid$"):
        update_all(client, current, _objects(client, ("ConfigMap", "a"), ("ConfigMap", "new"), ("Secret", "s")),
                   server_side=False)
    assert f"{SECRET}/s" not in [path for _, path, _ in api.sent]


def test_a_client_side_patch_failure_names_the_object_and_kind():
    api = FakeAPI({("PATCH", f"{CM}/a"): _status(422, "Invalid", "immutable")}, live=(f"{CM}/a",))
    client = KubeClient(api)
    current = _objects(client, ("ConfigMap", "a"))
    target = _objects(client, ("ConfigMap", "a"))
    target[0].obj["data"] = {"k": "v"}
    with pytest.raises(KubeError, match=r'^cannot patch "a" with kind ConfigMap: immutable$'):
        update_all(client, current, target, server_side=False)


def test_an_object_kept_by_its_live_annotation_is_not_deleted():
    kept = json.dumps({"metadata": {"annotations": {"helm.sh/resource-policy": "keep"}}}).encode()
    api = FakeAPI({("GET", f"{CM}/gone"): Reply(200, kept)})
    client = KubeClient(api)
    result = update_all(client, _objects(client, ("ConfigMap", "gone")), [], server_side=True)
    assert [r.name for r in result.kept] == ["gone"]
    assert [m for m, _, _ in api.sent] == ["GET"]
