"""What the API server says back, as Helm 4.1.4 shows it: each scenario runs step by step
with helm and with us, each tool in a namespace (and a CRD group) of its own, and after
every step the exit code, stdout and stderr are the same once times, process ids, uids and
the names of the namespace and group are masked.

- server warnings: klog's `Warning: ...` lines, as many as Helm prints (one per answer
  that carries one: a deprecated CRD version's, an unknown field's under client-side
  apply), for install, upgrade either way, rollback, uninstall, and --wait;
- field validation: server-side apply is Strict (an unknown field fails the apply and the
  release, Helm's words and record), client-side create and patch warn and go on;
- apply errors: the server's text alone or wrapped as Helm wraps it (a create failure, a
  client-side patch failure, an immutable field, a failed create during an upgrade), the
  later objects of an install still written;
- Build: documents without a kind and kinds the cluster does not serve, for install,
  upgrade (--disable-openapi-validation too) and template --dry-run=server, aggregated;
- template --dry-run=server refuses an existing object the release does not own, unless
  --is-upgrade or --take-ownership.

A server-side apply conflict has Helm's error text and outcome too: the apply's own answer
(no preflight), the other objects written, the release recorded failed.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.release_helpers import Run, get_object, ours

pytestmark = pytest.mark.e2e

WIDGETS_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.GROUP
spec:
  group: GROUP
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: "GROUP/v1beta1 Widget is deprecated; use GROUP/v1"
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
"""

WIDGETS = """apiVersion: GROUP/v1
kind: Widget
metadata:
  name: w1
spec:
  size: 1
{{- if .Values.color }}
  color: red
{{- end }}
---
apiVersion: GROUP/v1beta1
kind: Widget
metadata:
  name: w2
spec:
  size: 2
"""

OBJECTS = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Values.name | default "c1" }}
data:
  a: {{ .Values.a | default "1" | quote }}
{{- if .Values.unknown }}
bogus: field
{{- end }}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-job
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: {{ .Values.image | default "busybox:1" }}
{{- if .Values.deep }}
        bogusField: 1
{{- end }}
"""

NOT_OBJECTS = """{{- if has "gv" .Values.modes }}
apiVersion: example.com/v9
kind: Gadget
metadata:
  name: g
  namespace: other
---
{{- end }}
{{- if has "kind" .Values.modes }}
apiVersion: v1
kind: Bogus
metadata:
  name: b
---
{{- end }}
{{- if has "nokind" .Values.modes }}
apiVersion: v1
metadata:
  name: nk
---
{{- end }}
{{- if has "namespace" .Values.modes }}
apiVersion: example.com/v9
kind: Namespace
metadata:
  name: first
---
{{- end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: fine
"""


def _chart(root: Path, name: str, templates: str, crds: str = "", group: str = "") -> str:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("modes: []\n")
    (chart / "templates" / "objects.yaml").write_text(templates.replace("GROUP", group))
    if crds:
        (chart / "crds").mkdir()
        (chart / "crds" / "crd.yaml").write_text(crds.replace("GROUP", group))
    return str(chart)


_MASKS = [
    (re.compile(r"^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", re.MULTILINE), "I<time> <pid> "),
    (re.compile(r"LAST DEPLOYED: .*"), "LAST DEPLOYED: <time>"),
    (re.compile(r"\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}"), "<time>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uid>"),
    (re.compile(r"[ \t]+$", re.MULTILINE), ""),  # history's column padding follows the names' lengths
]


def _masked(text: str, names: dict[str, str]) -> str:
    for real, mask in names.items():
        text = text.replace(real, mask)
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    return text


Tool = Callable[..., Run]


@contextmanager
def _tools(cluster: Any, helm: Any) -> Iterator[dict[str, tuple[Tool, str, str]]]:
    """helm and us, each with a namespace and a CRD group of its own: (run, namespace, group)."""
    client = cluster.client()
    spaces = {tool: f"test-{uuid.uuid4().hex[:10]}" for tool in ("helm", "ours")}
    groups = {tool: f"{tool[0]}{uuid.uuid4().hex[:8]}.fidelity.example.com" for tool in spaces}
    for namespace in spaces.values():
        assert client.request("POST", "/api/v1/namespaces", body={
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}).ok

    def theirs(*args: str) -> Run:
        done = helm(*args, "-n", spaces["helm"])
        return Run(done.returncode, done.stdout, done.stderr)

    def mine(*args: str) -> Run:
        return ours(cluster, spaces["ours"], *args)

    try:
        yield {"helm": (theirs, spaces["helm"], groups["helm"]), "ours": (mine, spaces["ours"], groups["ours"])}
    finally:
        for namespace in spaces.values():
            client.request("DELETE", f"/api/v1/namespaces/{namespace}")
        for group in groups.values():
            client.request("DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{group}")


def _run_steps(tools: dict[str, tuple[Tool, str, str]], steps: list[list[str]],
               charts: Callable[[str], dict[str, str]],
               before: Callable[[str, str], None] | None = None) -> dict[str, list[tuple[int, str, str]]]:
    """Every step with each tool: (exit code, stdout, stderr), masked. `charts(group)` gives
    what CHART names stand for; `before(namespace, group)` prepares a tool's namespace."""
    seen: dict[str, list[tuple[int, str, str]]] = {}
    for tool, (run, namespace, group) in tools.items():
        paths = charts(group)
        if before is not None:
            before(namespace, group)
        names = {namespace: "NS", group: "GROUP"}
        seen[tool] = []
        for step in steps:
            done = run(*[paths.get(arg, arg) for arg in step])
            seen[tool].append((done.code, _masked(done.out, names), _masked(done.err, names)))
    return seen


def _assert_same(seen: dict[str, list[tuple[int, str, str]]], steps: list[list[str]]) -> None:
    for step, theirs, mine in zip(steps, seen["helm"], seen["ours"], strict=True):
        assert mine == theirs, f"step {step}"


def test_server_warnings_are_printed_as_helm_prints_them(cluster, helm, tmp_path):
    steps = [
        ["install", "a", "WIDGETS"],                                            # SSA: GET + apply
        ["upgrade", "a", "WIDGETS", "--server-side=false", "--set", "color=1"],  # CSA: unknown field
        ["upgrade", "a", "WIDGETS", "--server-side=true"],      # Strict: the stored unknown field fails
        ["rollback", "a", "1"],
        ["history", "a"],
        ["install", "b", "WIDGETS", "--wait", "--take-ownership"],  # crds/ waited for; the wait reads v1
        ["uninstall", "a"],
    ]
    with _tools(cluster, helm) as tools:
        seen = _run_steps(tools, steps, lambda group: {
            "WIDGETS": _chart(tmp_path / group, "widgets", WIDGETS, WIDGETS_CRD, group)})
    _assert_same(seen, steps)
    # What Helm did, so that equal output cannot be equally wrong unnoticed.
    deprecated = 'I<time> <pid> warnings.go:107] "Warning: GROUP/v1beta1 Widget is deprecated; use GROUP/v1"'
    install_err = seen["helm"][0][2]
    assert install_err.splitlines() == [deprecated, deprecated]
    upgrade_err = seen["helm"][1][2]
    assert 'I<time> <pid> warnings.go:107] "Warning: unknown field \\"spec.color\\""' in upgrade_err.splitlines()
    assert seen["helm"][2][0] == 1 and ".spec.color: field not declared in schema" in seen["helm"][2][2]
    assert seen["helm"][6][2].splitlines() == [deprecated]


def test_server_side_apply_is_strict_and_client_side_apply_warns(cluster, helm, tmp_path):
    steps = [
        ["install", "strict", "OBJECTS", "--set", "unknown=1"],
        ["history", "strict"],
        ["install", "warned", "OBJECTS", "--server-side=false", "--set", "unknown=1,deep=1,name=c2"],
        ["upgrade", "warned", "OBJECTS", "--set", "unknown=1,deep=1,name=c2,a=3"],
        ["history", "warned"],
    ]
    with _tools(cluster, helm) as tools:
        seen = _run_steps(tools, steps, lambda group: {"OBJECTS": _chart(tmp_path / group, "objects", OBJECTS)})
    _assert_same(seen, steps)
    assert seen["helm"][0][2] == ("Error: INSTALLATION FAILED: failed to create typed patch object (NS/c1; /v1, "
                                  "Kind=ConfigMap): .bogus: field not declared in schema\n")
    assert seen["helm"][2][0] == 0
    assert 'I<time> <pid> warnings.go:107] "Warning: unknown field \\"bogus\\""' in seen["helm"][2][2].splitlines()


def test_apply_errors_read_as_helms(cluster, helm, tmp_path):
    steps = [
        ["install", "ssa", "OBJECTS", "--set", "name=Bad_Name"],                        # create failure
        ["install", "csa", "OBJECTS", "--set", "name=Bad_Name2", "--server-side=false"],
        ["history", "ssa"],
        ["install", "up", "OBJECTS", "--set", "name=c3", "--take-ownership"],
        ["upgrade", "up", "OBJECTS", "--set", "name=c3,image=busybox:2"],              # immutable (SSA)
        ["upgrade", "up", "OBJECTS", "--set", "name=Bad_Name3,image=busybox:2"],       # create fails first
        ["upgrade", "up", "OBJECTS", "--set", "name=c3,image=busybox:2,a=2", "--server-side=false"],  # CSA patch
        ["history", "up"],
    ]
    jobs = {}
    with _tools(cluster, helm) as tools:
        seen = _run_steps(tools, steps, lambda group: {"OBJECTS": _chart(tmp_path / group, "objects", OBJECTS)})
        for tool, (_, namespace, _) in tools.items():
            jobs[tool] = get_object(cluster, f"/apis/batch/v1/namespaces/{namespace}/jobs/ssa-job") is not None
    _assert_same(seen, steps)
    assert jobs == {"helm": True, "ours": True}  # the failed ConfigMap does not keep the Job from the cluster
    assert seen["helm"][0][2].startswith('Error: INSTALLATION FAILED: ConfigMap "Bad_Name" is invalid: ')
    assert seen["helm"][5][2].splitlines()[-1].startswith(
        'Error: UPGRADE FAILED: failed to create resource: ConfigMap "Bad_Name3" is invalid: ')
    assert seen["helm"][6][2].splitlines()[-1].startswith('Error: UPGRADE FAILED: cannot patch "up-job" with kind Job: ')


def test_documents_the_cluster_cannot_build_fail_as_helms_do(cluster, helm, tmp_path):
    steps = [
        ["install", "gv", "BAD", "--set", "modes={gv}"],
        ["install", "kind", "BAD", "--set", "modes={kind}"],
        ["install", "nokind", "BAD", "--set", "modes={nokind}"],
        ["template", "t", "BAD", "--dry-run=server", "--set", "modes={namespace,nokind,gv}"],
        ["template", "t", "BAD", "--dry-run=server", "--set", "modes={nokind,kind,gv}",
         "--disable-openapi-validation"],
        ["install", "up", "BAD"],
        ["upgrade", "up", "BAD", "--set", "modes={gv}"],
        ["upgrade", "up", "BAD", "--set", "modes={nokind}"],
        ["upgrade", "up", "BAD", "--set", "modes={nokind}", "--disable-openapi-validation"],
    ]
    with _tools(cluster, helm) as tools:
        seen = _run_steps(tools, steps, lambda group: {"BAD": _chart(tmp_path / group, "bad", NOT_OBJECTS)})
    _assert_same(seen, steps)
    assert seen["helm"][0][2] == (
        'Error: INSTALLATION FAILED: unable to build kubernetes objects from release manifest: resource mapping '
        'not found for name: "g" namespace: "other" from "": no matches for kind "Gadget" in version '
        '"example.com/v9"\nensure CRDs are installed first\n')
    assert seen["helm"][3][2].startswith("Error: unable to build kubernetes objects from release manifest: [")
    assert seen["helm"][7][2] == 'Error: UPGRADE FAILED: error validating "": error validating data: kind not set\n'


def test_template_dry_run_server_checks_ownership_as_install_does(cluster, helm, tmp_path):
    steps = [
        ["template", "r", "OBJECTS", "--dry-run=server"],
        ["template", "r", "OBJECTS", "--dry-run=server", "--is-upgrade"],
        ["template", "r", "OBJECTS", "--dry-run=server", "--take-ownership"],
        ["template", "OBJECTS", "--dry-run=server"],
        ["template", "r", "OBJECTS"],  # client-side: the cluster is not asked
    ]

    def unowned_config_map(namespace: str, _group: str) -> None:
        assert cluster.client().request("POST", f"/api/v1/namespaces/{namespace}/configmaps", body={
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}}).ok

    with _tools(cluster, helm) as tools:
        seen = _run_steps(tools, steps, lambda group: {"OBJECTS": _chart(tmp_path / group, "objects", OBJECTS)},
                          before=unowned_config_map)
    _assert_same(seen, steps)
    assert [code for code, _, _ in seen["helm"]] == [1, 0, 0, 1, 0]
    assert seen["helm"][0][2] == (
        'Error: unable to continue with install: ConfigMap "c1" in namespace "NS" exists and cannot be imported '
        'into the current release: invalid ownership metadata; label validation error: missing key '
        '"app.kubernetes.io/managed-by": must be set to "Helm"; annotation validation error: missing key '
        '"meta.helm.sh/release-name": must be set to "r"; annotation validation error: missing key '
        '"meta.helm.sh/release-namespace": must be set to "NS"\n')


def test_a_conflict_reads_as_helms_and_fails_the_release_as_helms_does(cluster, helm, tmp_path):
    steps = [["install", "r", "OBJECTS"], ["history", "r"]]

    def kubectl_owns_the_data(namespace: str, _group: str) -> None:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "c1", "labels": {"app.kubernetes.io/managed-by": "Helm"},
            "annotations": {"meta.helm.sh/release-name": "r", "meta.helm.sh/release-namespace": namespace}},
            "data": {"a": "theirs"}}
        assert cluster.client().request(
            "PATCH", f"/api/v1/namespaces/{namespace}/configmaps/c1", body=body,
            query=[("fieldManager", "kubectl"), ("force", "true")], content_type="application/apply-patch+yaml").ok

    jobs = {}
    with _tools(cluster, helm) as tools:
        seen = _run_steps(tools, steps, lambda group: {"OBJECTS": _chart(tmp_path / group, "objects", OBJECTS)},
                          before=kubectl_owns_the_data)
        for tool, (_, namespace, _) in tools.items():
            jobs[tool] = get_object(cluster, f"/apis/batch/v1/namespaces/{namespace}/jobs/r-job") is not None
    conflict = ('Error: INSTALLATION FAILED: conflict occurred while applying object NS/c1 /v1, Kind=ConfigMap: '
                'Apply failed with 1 conflict: conflict with "kubectl": .data.a\n')
    assert seen["ours"][0] == seen["helm"][0] == (1, "", conflict)
    # Both record the failed install (the same history) and wrote the other objects.
    assert seen["ours"][1] == seen["helm"][1] and "failed" in seen["helm"][1][1]
    assert jobs["helm"] and jobs["ours"]


def test_create_namespace_creates_or_labels_it_as_helm_does(cluster, helm, tmp_path):
    """Helm's Create of `name: NS`-labelled namespace: server-side apply labels an existing
    one too (field manager helm), a client-side create leaves an existing one as it is."""
    chart = _chart(tmp_path, "objects", OBJECTS)
    client = cluster.client()
    seen: dict[str, list[Any]] = {}
    made: list[str] = []
    try:
        for tool in ("helm", "ours"):
            spaces = {case: f"test-{uuid.uuid4().hex[:10]}" for case in ("new", "existing", "existing-csa")}
            made += spaces.values()
            for case in ("existing", "existing-csa"):
                assert client.request("POST", "/api/v1/namespaces", body={
                    "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": spaces[case]}}).ok
            seen[tool] = []
            for case, namespace in spaces.items():
                args = ["install", "r", chart, "--create-namespace"] + (["--server-side=false"] if "csa" in case else [])
                code = helm(*args, "-n", namespace).returncode if tool == "helm" else \
                    ours(cluster, namespace, *args).code
                body = get_object(cluster, f"/api/v1/namespaces/{namespace}") or {}
                labels = {k: v.replace(namespace, "NS") for k, v in body["metadata"].get("labels", {}).items()}
                managers = sorted({(m["manager"], m["operation"]) for m in body["metadata"]["managedFields"]})
                seen[tool].append((case, code, labels, managers))
    finally:
        for namespace in made:
            client.request("DELETE", f"/api/v1/namespaces/{namespace}")
    assert seen["ours"] == seen["helm"]
    assert [labels.get("name") for _, _, labels, _ in seen["helm"]] == ["NS", "NS", None]


def test_a_conflict_when_a_client_side_release_moves_to_server_side_reads_as_helms(cluster, helm, tmp_path):
    """Our own client-side entries are folded before the apply (Helm's upgrade does it), so
    only another manager's fields conflict, worded as the API server does."""
    seen: dict[str, list[tuple[int, str, str]]] = {}
    with _tools(cluster, helm) as tools:
        for tool, (run, namespace, _) in tools.items():
            chart = _chart(tmp_path / tool, "objects", OBJECTS)
            names = {namespace: "NS"}
            first = run("install", "m", chart, "--server-side=false", "--set", "name=m1")
            assert first.code == 0, first.err
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m1"}, "data": {"a": "theirs"}}
            assert cluster.client().request(
                "PATCH", f"/api/v1/namespaces/{namespace}/configmaps/m1", body=body,
                query=[("fieldManager", "kubectl"), ("force", "true")], content_type="application/apply-patch+yaml").ok
            done = run("upgrade", "m", chart, "--server-side=true", "--set", "name=m1,a=2")
            seen[tool] = [(done.code, _masked(done.out, names), _masked(done.err, names))]
    assert seen["ours"][0][2].splitlines()[-1] == seen["helm"][0][2].splitlines()[-1] == (
        'Error: UPGRADE FAILED: conflict occurred while applying object NS/m1 /v1, Kind=ConfigMap: '
        'Apply failed with 1 conflict: conflict with "kubectl": .data.a')
    assert seen["ours"][0][0] == seen["helm"][0][0] == 1
