from runner.kube.client import RestMapping
from runner.kube.ownership import ownership_problem, set_release_metadata
from runner.kube.resources import Resource, parse_documents, uninstall_sorted


def test_ownership_text_is_helms():
    live = {"metadata": {"labels": {}, "annotations": {"meta.helm.sh/release-name": "other"}}}
    assert ownership_problem(live, "mine", "ns") == (
        'invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": '
        'must be set to "Helm"; annotation validation error: key "meta.helm.sh/release-name" must equal '
        '"mine": current value is "other"; annotation validation error: missing key '
        '"meta.helm.sh/release-namespace": must be set to "ns"')


def test_owned_objects_have_no_problem():
    resource = Resource({"kind": "ConfigMap", "metadata": {"name": "a"}},
                        RestMapping("", "v1", "ConfigMap", "configmaps", True), "ns")
    set_release_metadata([resource], "mine", "ns")
    assert ownership_problem(resource.obj, "mine", "ns") == ""


def _res(kind: str, name: str) -> Resource:
    return Resource({"kind": kind, "metadata": {"name": name}}, RestMapping("", "v1", kind, kind.lower(), True))


def test_uninstall_order_is_helms_with_unknown_kinds_last_alphabetically():
    items = [_res(k, k.lower()) for k in ("Namespace", "Zeta", "ConfigMap", "Alpha", "Service", "Deployment")]
    assert [r.kind for r in uninstall_sorted(items)] == [
        "Service", "Deployment", "ConfigMap", "Namespace", "Alpha", "Zeta"]


def test_documents_keep_integers_and_skip_empty_ones():
    docs = parse_documents("---\n# only a comment\n---\nkind: A\nspec:\n  replicas: 3\n---\n")
    assert docs == [{"kind": "A", "spec": {"replicas": 3}}]
