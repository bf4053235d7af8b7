from runner.kube.apply import ApplyConflictError, conflicts_of
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


def test_the_error_lists_all_conflicts_and_suggests_force():
    resource = Resource({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}},
                        DEPLOY, "prod")
    text = str(ApplyConflictError(conflicts_of(resource, Response(409, STATUS_409))))
    assert "conflicts (2); nothing was written" in text
    assert ".spec.replicas is owned by 'kubectl'" in text
    assert "is owned by 'hpa-controller'" in text
    assert "--force-conflicts" in text
