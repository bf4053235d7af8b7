"""A release whose object the API server refuses, from its failed install through upgrade
and rollback, with Helm 4.1.4 and with us on the testbed: the same errors, the same records
(velero and helmtest-import-values-enabled in the release-corpus suite; how each error
reads: test_apply_fidelity.py)."""

from __future__ import annotations

import json

import pytest

from tests.e2e.release_helpers import get_object, helm_part, ours
from tests.fixtures import write_chart

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
