"""--wait (kstatus watcher, legacy), `test RELEASE`, and the -o json|yaml / get all
views, each compared with Helm 4.1.4 on the testbed."""

from __future__ import annotations

import json
import re

import pytest

from runner.actions.evidence import HEADING
from tests.e2e.release_helpers import GADGET_CRD, helm_part, ours, record
from tests.fixtures import DEMO_TEMPLATES, write_chart

pytestmark = pytest.mark.e2e

PVC = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ .Release.Name }}-data
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: none
  resources: {requests: {storage: 1Gi}}
"""

TESTS = """apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-second
  annotations:
    "helm.sh/hook": test
    "helm.sh/hook-weight": "2"
spec:
  restartPolicy: Never
  containers:
  - name: t
    image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-first
  annotations:
    "helm.sh/hook": test
    "helm.sh/hook-weight": "1"
spec:
  restartPolicy: Never
  containers:
  - name: t
    image: busybox
"""

FAILING_TEST = """apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-broken
  labels: {testbed.deploy-runner/fail: "true"}
  annotations:
    "helm.sh/hook": test
spec:
  restartPolicy: Never
  containers:
  - name: t
    image: busybox
"""

_ANSIC = re.compile(r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}")


def _same(text: str, ours_name: str, helm_name: str) -> str:
    """Our release's output with its name swapped for Helm's and times blanked."""
    return _ANSIC.sub("<time>", text.replace(ours_name, helm_name))


LOAD_BALANCER = """apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-lb
spec:
  type: LoadBalancer
  ports: [{port: 80}]
  selector: {app: x}
"""

GADGET = """apiVersion: GROUP/v1
kind: Gadget
metadata:
  name: {{ .Release.Name }}-g
status:
  conditions:
  - {type: Ready, status: "False", reason: Down, message: backend down}
"""


# What deploy-runner says first after Helm's error: why each object is not ready.
OUR_ACCOUNT = {"pvc": f'{HEADING}\n  persistentvolumeclaim/hrel-data: Pending (storage class "none")\n',
               "custom-ready-false": f"{HEADING}\n  gadget/hrel-g: backend down\n", "load-balancer": ""}


@pytest.mark.parametrize("kind", ["pvc", "custom-ready-false", "load-balancer"])
def test_wait_watcher_reports_what_is_not_current_as_helm(cluster, namespace, helm, tmp_path, kind):
    import uuid

    group = f"g{uuid.uuid4().hex[:8]}.example.com"
    template = {"pvc": PVC, "custom-ready-false": GADGET.replace("GROUP", group),
                "load-balancer": LOAD_BALANCER}[kind]
    chart = write_chart(tmp_path, templates={"x.yaml": template})
    if kind == "custom-ready-false":
        (chart / "crds").mkdir()
        (chart / "crds" / "crd.yaml").write_text(GADGET_CRD.replace("GROUP", group))
    theirs = helm("install", "hrel", str(chart), "-n", namespace, "--wait", "--timeout", "2s")
    mine = ours(cluster, namespace, "install", "orel", str(chart), "--wait", "--timeout", "2s", "--no-progress")
    helm_text, evidence = helm_part(mine.err)
    assert helm_text.replace("orel", "hrel") == theirs.stderr
    assert evidence.replace("orel", "hrel").startswith(OUR_ACCOUNT[kind])  # our account first
    if kind == "load-balancer":  # kstatus wants only a cluster IP, not an ingress
        assert theirs.returncode == 0 and mine.code == 0
        return
    assert theirs.returncode == 1 and mine.code != 0
    assert "not ready. status: InProgress" in mine.err and "\ncontext deadline exceeded" in mine.err
    # Ours, after Helm's error: what was not ready, and why.
    assert {"pvc": "  PersistentVolumeClaim/orel-data (waited on): InProgress: PVC is not Bound",
            "custom-ready-false": "    condition Ready=False (Down): backend down"}[kind] in evidence
    assert record(cluster, namespace, "orel", 1)["info"]["status"] == "failed"


def test_wait_strategies_for_ready_workloads(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates={"deploy.yaml": DEMO_TEMPLATES["deploy.yaml"]})
    assert ours(cluster, namespace, "install", "w", str(chart), "--wait", "--timeout", "60s").code == 0
    assert ours(cluster, namespace, "upgrade", "w", str(chart), "--set", "replicas=2",
                "--wait=legacy", "--timeout", "60s").code == 0
    assert ours(cluster, namespace, "upgrade", "w", str(chart), "--wait=hookOnly").code == 0
    bad = ours(cluster, namespace, "upgrade", "w", str(chart), "--wait=sometimes")
    assert bad.code != 0 and "invalid wait input \"sometimes\"" in bad.err  # Helm's words


def test_test_command_runs_filters_and_logs_as_helm(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates={"cm.yaml": DEMO_TEMPLATES["cm.yaml"], "tests.yaml": TESTS})
    assert helm("install", "hrel", str(chart), "-n", namespace).returncode == 0
    assert ours(cluster, namespace, "install", "orel", str(chart)).code == 0
    for args in (["--filter", "name={}-second"], ["--filter", "!name={}-second"], ["--logs"]):
        theirs = helm("test", "hrel", "-n", namespace, "--timeout", "60s",
                      *[a.format("hrel") for a in args])
        mine = ours(cluster, namespace, "test", "orel", "--timeout", "60s", "--no-progress",
                    *[a.format("orel") for a in args])
        assert (mine.code, mine.err) == (0, "") and theirs.returncode == 0, (mine, theirs)
        assert _same(mine.out, "orel", "hrel") == _ANSIC.sub("<time>", theirs.stdout)
    assert "POD LOGS: orel-first\ndeploy-runner testbed: container started" in mine.out
    hooks = {h["name"]: h for h in record(cluster, namespace, "orel", 1)["hooks"]}
    assert [h["last_run"]["phase"] for h in hooks.values()] == ["Succeeded", "Succeeded"]
    # helm reads the phases we recorded
    status = helm("status", "orel", "-n", namespace)
    assert "TEST SUITE:     orel-first" in status.stdout and "Phase:          Succeeded" in status.stdout


def test_a_failing_test_fails_as_helm(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates={"cm.yaml": DEMO_TEMPLATES["cm.yaml"], "t.yaml": FAILING_TEST})
    assert helm("install", "hrel", str(chart), "-n", namespace).returncode == 0
    assert ours(cluster, namespace, "install", "orel", str(chart)).code == 0
    theirs = helm("test", "hrel", "-n", namespace, "--timeout", "60s")
    mine = ours(cluster, namespace, "test", "orel", "--timeout", "60s", "--no-progress")
    assert theirs.returncode == 1 and mine.code == 1
    helm_text, evidence = helm_part(mine.err)
    assert _same(helm_text, "orel", "hrel") == theirs.stderr
    assert evidence.startswith(f"{HEADING}\n  pod/orel-broken: Error (exit code 1)\n")  # our account first
    assert "  Pod/orel-broken (test hook demo/templates/t.yaml): Failed: pod orel-broken failed" in evidence
    assert _same(mine.out, "orel", "hrel") == _ANSIC.sub("<time>", theirs.stdout)
    assert record(cluster, namespace, "orel", 1)["hooks"][0]["last_run"]["phase"] == "Failed"


@pytest.mark.parametrize("args", [
    ["status", "-o", "json"], ["status", "-o", "yaml"], ["status"], ["history", "-o", "yaml"],
    ["history", "-o", "json"], ["get", "values", "-o", "json"], ["get", "values", "-o", "yaml"],
    ["get", "values", "--all", "-o", "yaml"], ["get", "all"],
    ["get", "all", "--template", "{{.Release.Name}} {{.Release.Info.Status}} {{.Release.Version}} "
     "{{.Release.Info.LastDeployed}} {{.Release.Chart.Metadata.Version}} {{.Release.Config.message}}"],
])
def test_views_of_a_helm_release_are_byte_identical(cluster, namespace, helm, tmp_path, args):
    chart = write_chart(tmp_path, templates={"cm.yaml": DEMO_TEMPLATES["cm.yaml"], "tests.yaml": TESTS,
                                             "NOTES.txt": DEMO_TEMPLATES["NOTES.txt"]})
    assert helm("install", "h", str(chart), "-n", namespace, "--set", "message=hi").returncode == 0
    assert helm("test", "h", "-n", namespace, "--timeout", "60s").returncode == 0
    command, rest = args[:-2] if "-o" in args else args, args[-2:] if "-o" in args else []
    theirs = helm(*command, "h", *rest, "-n", namespace)
    mine = ours(cluster, namespace, *command, "h", *rest)
    assert (mine.code, mine.err) == (0, ""), mine
    if args == ["status"]:  # ages in RESOURCES may tick between the two runs
        mine.out, theirs.stdout = (re.sub(r"\d+s\n", "<age>\n", t) for t in (mine.out, theirs.stdout))
    assert mine.out == theirs.stdout
    if args[-1] == "json" and args[0] == "status":
        assert "v1/ConfigMap" in json.loads(mine.out)["info"]["resources"]


def _flag_chart(root, name: str = "flags"):
    chart = write_chart(root, name=name, templates={"cm.yaml": DEMO_TEMPLATES["cm.yaml"],
                                                    "NOTES.txt": "top notes\n"})
    (chart / "values.schema.json").write_text(
        '{"type": "object", "properties": {"replicas": {"type": "integer"}}}')
    sub = chart / "charts" / "sub"
    (sub / "templates").mkdir(parents=True)
    (sub / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
    (sub / "templates" / "NOTES.txt").write_text("sub notes for {{ .Release.Name }}\n")
    (chart / "crds").mkdir()
    (chart / "crds" / "crd.yaml").write_text(f"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {name}s.example.com
spec:
  group: example.com
  names: {{kind: {name.capitalize()}, plural: {name}s, singular: {name}}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
""")
    return chart


def test_render_flags_match_helm(cluster, namespace, helm, tmp_path):
    import uuid

    chart = _flag_chart(tmp_path, f"fl{uuid.uuid4().hex[:8]}")
    flags = ["--set", "replicas=many", "--skip-schema-validation", "--render-subchart-notes",
             "--description", "by hand", "--disable-openapi-validation", "--skip-crds", "--no-hooks",
             "--timeout", "1m"]
    strict = ours(cluster, namespace, "install", "orel", str(chart), "--set", "replicas=many")
    assert strict.code != 0 and "replicas" in strict.err
    assert helm("install", "hrel", str(chart), "-n", namespace, *flags).returncode == 0
    mine = ours(cluster, namespace, "install", "orel", str(chart), *flags)
    assert mine.code == 0, mine
    theirs_rec, mine_rec = record(cluster, namespace, "hrel", 1), record(cluster, namespace, "orel", 1)
    # Helm joins the NOTES.txt files in Go map order (random): compare the parts.
    assert sorted(mine_rec["info"]["notes"].replace("orel", "hrel").splitlines()) \
        == sorted(theirs_rec["info"]["notes"].splitlines())
    assert "sub notes for orel" in mine_rec["info"]["notes"]
    assert mine_rec["info"]["description"] == theirs_rec["info"]["description"] == "by hand"
    crd = chart.name + "s.example.com"
    assert helm("get", "all", "hrel", "-n", namespace).returncode == 0
    from tests.e2e.release_helpers import get_object

    assert get_object(cluster, f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}") is None
    up = ours(cluster, namespace, "upgrade", "orel", str(chart), *flags)
    assert up.code == 0, up
    assert record(cluster, namespace, "orel", 2)["info"]["description"] == "by hand"


HELD = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-held
  finalizers: [example.com/hold]
data: {a: b}
"""


def test_uninstall_wait_reports_what_still_exists_as_helm(cluster, namespace, helm, tmp_path):
    from kubernetes import client

    chart = write_chart(tmp_path, templates={"held.yaml": HELD})
    assert helm("install", "hrel", str(chart), "-n", namespace).returncode == 0
    assert ours(cluster, namespace, "install", "orel", str(chart)).code == 0
    try:
        theirs = helm("uninstall", "hrel", "-n", namespace, "--wait", "--timeout", "2s")
        mine = ours(cluster, namespace, "uninstall", "orel", "--wait", "--timeout", "2s", "--no-progress")
        assert theirs.returncode == 1 and mine.code == 1
        assert "still exists. status: Terminating" in mine.err
        assert mine.err.replace("orel", "hrel") == theirs.stderr + f"{HEADING}\n" + (
            "  configmap/hrel-held: being deleted, waiting for finalizers example.com/hold\n")
        assert mine.out.replace("orel", "hrel") == theirs.stdout
    finally:
        core = client.CoreV1Api(cluster.api_client)
        for name in ("hrel-held", "orel-held"):
            core.patch_namespaced_config_map(name, namespace, {"metadata": {"finalizers": None}})
