"""Objects the cluster refuses, does not serve or warns about, with Helm 4.1.4 and with us on
the testbed: the same errors and warnings, the same records (found by the release-corpus
suite on velero, cnpg-cluster, opentelemetry-operator, helmtest-issue-9027,
helmtest-import-values-enabled and longhorn)."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.release_helpers import get_object, helm_part, ours, write_chart

pytestmark = pytest.mark.e2e

# A Service the API server refuses (port 70000), before a Deployment in install order.
REFUSED = {
    "svc.yaml": """apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-svc
spec:
  ports:
  - port: {{ .Values.port }}
""",
    "deploy.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
""",
}
# A kind no cluster serves, twice, and a document that is no object.
NOT_SERVED = {
    "widgets.yaml": """apiVersion: example.com/v1
kind: Widget
metadata:
  name: {{ .Release.Name }}-one
  namespace: {{ .Release.Namespace }}
---
apiVersion: example.com/v1
kind: Gadget
metadata:
  name: {{ .Release.Name }}-two
""",
}
NO_KIND = {"plain.yaml": "answer: 42\n"}
# A CRD whose schema the API server warns about when it is created (not when unchanged).
WARNED = {
    "crd.yaml": """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {{ .Release.Name }}s.warned.example.com
spec:
  group: warned.example.com
  names: {kind: {{ .Release.Name | title }}, plural: {{ .Release.Name }}s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          size: {type: string, format: int64}
""",
}
KLOG_TIME_AND_PID = re.compile(r"^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", re.MULTILINE)


def both(cluster, namespace: str, helm, *args: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """(exit code, stderr) of helm on release `theirs` and of ours on `mine`, the release
    name in each replaced by NAME."""
    theirs = helm(*[a.replace("NAME", "theirs") for a in args], "-n", namespace)
    mine = ours(cluster, namespace, *[a.replace("NAME", "mine") for a in args])
    return ((theirs.returncode, theirs.stderr.replace("theirs", "NAME")),
            (mine.code, helm_part(mine.err)[0].replace("mine", "NAME")))


def history(helm, namespace: str, name: str) -> list[tuple[int, str, str]]:
    rows = json.loads(helm("history", name, "-n", namespace, "-o", "json").stdout)
    return [(r["revision"], r["status"], r["description"].replace(name, "NAME")) for r in rows]


def test_a_refused_object_fails_install_upgrade_and_rollback_as_with_helm(cluster, namespace, helm, tmp_path):
    chart = str(write_chart(tmp_path, templates=REFUSED, values="port: 70000\n"))
    for args in (("install", "NAME", chart), ("upgrade", "NAME", chart), ("rollback", "NAME")):
        theirs, mine = both(cluster, namespace, helm, *args)
        assert mine == theirs, args
        assert theirs[0] == 1 and "is invalid" in theirs[1], args
    assert history(helm, namespace, "mine") == history(helm, namespace, "theirs")
    assert [status for _, status, _ in history(helm, namespace, "mine")] == ["failed", "superseded", "failed"]
    # Helm's Create tries every object: the Deployment after the refused Service exists.
    for name in ("theirs", "mine"):
        assert get_object(cluster, f"/apis/apps/v1/namespaces/{namespace}/deployments/{name}-web") is not None


@pytest.mark.parametrize("templates", [NOT_SERVED, NO_KIND], ids=["not-served", "no-kind"])
def test_a_manifest_the_cluster_cannot_map_fails_as_with_helm(cluster, namespace, helm, tmp_path, templates):
    chart = str(write_chart(tmp_path, name="unmapped", templates=templates))
    theirs, mine = both(cluster, namespace, helm, "install", "NAME", chart)
    assert mine == theirs
    assert "unable to build kubernetes objects from release manifest" in theirs[1]
    good = str(write_chart(tmp_path, name="good"))
    theirs, mine = both(cluster, namespace, helm, "install", "NAME", good)
    assert theirs[0] == mine[0] == 0
    theirs, mine = both(cluster, namespace, helm, "upgrade", "NAME", chart)
    assert mine == theirs
    assert theirs[1].startswith("Error: UPGRADE FAILED: ") and theirs[0] == 1
    assert history(helm, namespace, "mine") == history(helm, namespace, "theirs") == [(1, "deployed", "Install complete")]


def test_the_api_servers_warnings_are_logged_as_helms_client_go_logs_them(cluster, namespace, helm, tmp_path):
    chart = str(write_chart(tmp_path, name="warned", templates=WARNED))
    for args in (("install", "NAME", chart), ("upgrade", "NAME", chart)):
        theirs, mine = both(cluster, namespace, helm, *args)
        assert (mine[0], KLOG_TIME_AND_PID.sub("", mine[1])) == (theirs[0], KLOG_TIME_AND_PID.sub("", theirs[1])), args
    theirs, mine = both(cluster, namespace, helm, "uninstall", "NAME")
    assert mine == theirs
    first = both(cluster, namespace, helm, "install", "NAME", chart)[1][1]
    assert re.fullmatch(r'I\d{4} [\d:.]{15}  *\d+ warnings.go:107\] "Warning: unrecognized format \\"int64\\""\n', first)
