"""Objects as diffs compare them: helm-diff's keys, server-owned fields out, Secret values
never in the output."""

from __future__ import annotations

import base64

from runner.diff.compute import changed_paths, manifest_view, ordered, stored_documents
from runner.diff.model import ADD, MODIFY, REMOVE, ObjectChange
from runner.diff.objects import hide_secrets, identity, prune
from runner.diff.text import added_lines, unified


def test_keys_are_helm_diffs():
    assert identity({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}},
                    "ns").key == "ns, web, Deployment (apps)"
    assert identity({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}},
                    "ns").key == "ns, x, Namespace (v1)"  # helm-diff gives cluster objects the default too
    assert identity({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                     "metadata": {"name": "r", "namespace": "other"}}, "ns").key == \
        "other, r, Role (rbac.authorization.k8s.io)"


def test_order_is_changes_then_removals_then_additions_each_by_key():
    def change(key, kind):
        return ObjectChange(key, "", "", "", "", kind)

    got = ordered([change("b", ADD), change("z", MODIFY), change("a", REMOVE), change("c", MODIFY),
                   change("a", ADD)])
    assert [(c.change, c.key) for c in got] == [(MODIFY, "c"), (MODIFY, "z"), (REMOVE, "a"), (ADD, "a"),
                                                (ADD, "b")]


def test_server_owned_fields_are_left_out():
    live = {"apiVersion": "v1", "kind": "ConfigMap", "status": {"x": 1},
            "metadata": {"name": "c", "uid": "u", "resourceVersion": "9", "generation": 2,
                         "creationTimestamp": "t", "managedFields": [{}],
                         "annotations": {"deployment.kubernetes.io/revision": "3"}}}
    assert prune(live) == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}


def test_secret_values_are_markers_and_only_keys_are_told():
    def secret(**data):
        return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": '{"data":{"a":"c2VjcmV0"}}'}},
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}

    old = secret(same="s3cret-same", changed="s3cret-old", gone="s3cret-gone")
    new = secret(same="s3cret-same", changed="s3cret-new", added="s3cret-added")
    new["stringData"] = {"plain": "s3cret-plain"}
    before, after, keys = hide_secrets(old, new)
    assert (keys.added, keys.changed, keys.removed) == (["added", "plain"], ["changed"], ["gone"])
    text = unified(str(before), str(after))
    for value in ("s3cret", "c2VjcmV0", base64.b64encode(b"s3cret-old").decode()):
        assert value not in str(before) + str(after) + text
    assert after["data"]["changed"] == "(hidden: new value)" and after["data"]["same"] == "(hidden)"
    assert "stringData" not in after


def test_a_secrets_manifest_diff_shows_keys_not_values():
    old = stored_documents("---\n# Source: c/templates/s.yaml\napiVersion: v1\nkind: Secret\n"
                           "metadata:\n  name: s\nstringData:\n  pw: canary-old\n", [], "ns")
    new = stored_documents("---\n# Source: c/templates/s.yaml\napiVersion: v1\nkind: Secret\n"
                           "metadata:\n  name: s\nstringData:\n  pw: canary-new\n", [], "ns")
    [change] = manifest_view(old, new)
    assert "canary" not in change.diff and change.secret_keys.changed == ["pw"]


def test_changed_paths_and_added_lines():
    assert changed_paths({"a": {"b": 1, "c": [1, 2]}, "d": 1}, {"a": {"b": 2, "c": [1, 3]}, "e": 1}) == [
        ("a", "b"), ("a", "c", 1), ("d",), ("e",)]
    assert added_lines("a\nb\nc\n", "a\nB\nc\nd\n") == [2, 4]
    assert unified("a\n", "a\n") == ""
