from runner.kube.apply import ApplyConflictError, conflict_message, conflict_text, conflicts_of
from runner.kube.client import Response, RestMapping
from runner.kube.resources import Resource

DEPLOY = RestMapping("apps", "v1", "Deployment", "deployments", True)
STATUS_409 = {
    "kind": "Status", "status": "Failure", "reason": "Conflict", "code": 409,
    "message": "Apply failed with 2 conflicts: ...",
    "details": {"causes": [
        {"type": "FieldManagerConflict", "message": 'conflict with "kubectl" using apps/v1',
         "field": ".spec.replicas"},
        {"type": "FieldManagerConflict", "message": 'conflict with "hpa-controller"',
         "field": ".spec.template.spec.containers[name=\"web\"].image"},
    ]},
}


def test_every_cause_becomes_a_conflict_with_field_and_manager():
    resource = Resource({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}},
                        DEPLOY, "prod")
    conflicts = conflicts_of(resource, Response(409, STATUS_409))
    assert [(c.field, c.manager) for c in conflicts] == [
        (".spec.replicas", "kubectl"), ('.spec.template.spec.containers[name="web"].image', "hpa-controller")]
    assert conflicts[0].resource == 'Deployment "web" in namespace "prod"'


def test_the_servers_message_is_rebuilt_from_the_causes_left_grouped_by_manager():
    """apimachinery's getConflictMessage (managedfields/internal/conflict.go): one conflict
    inline, several under each manager (sorted); used when the preflight drops our own
    client-side entries' causes."""
    resource = Resource({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}},
                        DEPLOY, "prod")
    causes = conflicts_of(resource, Response(409, STATUS_409))
    assert conflict_message(causes[:1]) == 'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas'
    assert conflict_message(causes) == (
        'Apply failed with 2 conflicts: conflicts with "hpa-controller":\n'
        '- .spec.template.spec.containers[name="web"].image\n'
        'conflicts with "kubectl" using apps/v1:\n'
        '- .spec.replicas')


def test_the_error_names_each_object_as_helms_does_one_line_each():
    web = Resource({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}, DEPLOY, "prod")
    role = Resource({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}},
                    RestMapping("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", False))
    text = str(ApplyConflictError([conflict_text(web, "Apply failed with 1 conflict: x"),
                                   conflict_text(role, "Apply failed with 1 conflict: y")]))
    assert text == ("conflict occurred while applying object prod/web apps/v1, Kind=Deployment: "
                    "Apply failed with 1 conflict: x\n"
                    "conflict occurred while applying object /r rbac.authorization.k8s.io/v1, Kind=ClusterRole: "
                    "Apply failed with 1 conflict: y")
