"""A chart's crds/ on the testbed, step by step with helm 4.1.4 and with us: each tool runs
the same steps on a CRD group of its own, and after each step the exit code, what it
printed on stderr and the CRD (which chart version, which schema fields, which field
managers) are the same. Server-side apply (the default) brings an existing CRD to the
chart's version; client-side apply and upgrades leave it; --skip-crds skips it; a server
dry run only warns; fields another manager owns conflict unless --force-conflicts.

Then sealed-secrets from the corpus, over an older copy of its CRD that a previous
install left: with either tool, the install brings the CRD to the chart's."""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_chart
from tests.e2e.release_helpers import Run, ours

pytestmark = pytest.mark.e2e

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.GROUP
  annotations:
    probe.example.com/chart-version: "VERSION"
spec:
  group: GROUP
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
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
FIELDS"""

CRD_API = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

# (what the step does, the arguments after the tool's name; CHART_A / CHART_B stand for the charts)
STEPS = [
    ("install with server-side apply: creates it", ["install", "a", "CHART_A"]),
    ("client-side: an existing CRD is left", ["install", "b", "CHART_B", "--server-side=false"]),
    ("--skip-crds", ["install", "c", "CHART_B", "--skip-crds"]),
    ("an upgrade never touches crds/", ["upgrade", "a", "CHART_B"]),
    ("server-side apply updates it to the chart's", ["install", "d", "CHART_B"]),
    ("a server dry run warns and writes nothing", ["install", "e", "CHART_A", "--dry-run=server"]),
    ("upgrade --install of a new release, client-side", ["upgrade", "--install", "f", "CHART_A",
                                                         "--server-side=false"]),
    ("upgrade --install of a new release, server-side", ["upgrade", "--install", "g", "CHART_A"]),
    ("CONFLICT: fields kubectl created conflict", ["install", "h", "CHART_B"]),
    ("--force-conflicts takes them over", ["install", "i", "CHART_B", "--force-conflicts"]),
]


def _chart(root: Path, group: str, version: str) -> Path:
    chart = root / f"widgets-{version}"
    (chart / "crds").mkdir(parents=True)
    (chart / "templates").mkdir()
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: widgets\nversion: 0.1.{ord(version)}\n")
    fields = "              color: {type: string}\n" if version == "B" else ""
    (chart / "crds" / "widgets.yaml").write_text(
        CRD.replace("GROUP", group).replace("VERSION", version).replace("FIELDS", fields))
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-widgets\n")
    return chart


def _crd_state(cluster: Any, group: str) -> tuple[str, list[str], list[tuple[str, str]]] | None:
    reply = cluster.client().request("GET", f"{CRD_API}/widgets.{group}")
    if reply.status == 404:
        return None
    crd = reply.body
    properties = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    managers = sorted({(m["manager"], m["operation"]) for m in crd["metadata"]["managedFields"]})
    return crd["metadata"]["annotations"]["probe.example.com/chart-version"], sorted(properties), managers


def _kubectl_create(cluster: Any, chart: Path, group: str) -> None:
    """The CRD as `kubectl create` leaves it: its fields owned by another manager."""
    cluster.client().request("DELETE", f"{CRD_API}/widgets.{group}")
    crd = yaml.safe_load((chart / "crds" / "widgets.yaml").read_text())
    for _ in range(600):  # the deletion finishes once the API server has stopped serving it
        reply = cluster.client().request("POST", CRD_API, body=crd, query=[("fieldManager", "kubectl-create")])
        if reply.status != 409:
            break
        time.sleep(0.1)
    assert reply.ok, reply.body


def _steps(cluster: Any, run: Callable[..., Run], tag: str, root: Path) -> list[tuple[str, int, str, Any]]:
    group = f"{tag}{uuid.uuid4().hex[:8]}.crds.example.com"
    charts = {"CHART_A": str(_chart(root, group, "A")), "CHART_B": str(_chart(root, group, "B"))}
    seen = []
    try:
        for what, args in STEPS:
            if what.startswith("CONFLICT"):
                _kubectl_create(cluster, Path(charts["CHART_A"]), group)
            result = run(*[charts.get(arg, arg) for arg in args])
            err = result.err.replace(group, "GROUP")
            seen.append((what, result.code, err, _crd_state(cluster, group)))
    finally:
        cluster.client().request("DELETE", f"{CRD_API}/widgets.{group}")
    return seen


def test_crds_are_installed_and_updated_as_helm_does(cluster, helm, tmp_path):
    spaces = {}
    for tool in ("helm", "ours"):
        spaces[tool] = f"test-{uuid.uuid4().hex[:10]}"
        assert cluster.client().request("POST", "/api/v1/namespaces", body={
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": spaces[tool]}}).ok
    try:
        def theirs(*args: str) -> Run:
            done = helm(*args, "-n", spaces["helm"])
            return Run(done.returncode, done.stdout, done.stderr.replace(spaces["helm"], "NS"))

        def mine(*args: str) -> Run:
            done = ours(cluster, spaces["ours"], *args)
            return Run(done.code, done.out, done.err.replace(spaces["ours"], "NS"))

        helm_steps = _steps(cluster, theirs, "h", tmp_path / "helm")
        our_steps = _steps(cluster, mine, "o", tmp_path / "ours")
    finally:
        for namespace in spaces.values():
            cluster.client().request("DELETE", f"/api/v1/namespaces/{namespace}")
    for helm_step, our_step in zip(helm_steps, our_steps, strict=True):
        assert our_step == helm_step
    # What Helm did, so equal steps cannot both be wrong the same way unnoticed.
    versions = [state[0] if state else None for *_, state in helm_steps]
    assert versions == ["A", "A", "A", "A", "B", "B", "B", "A", "A", "B"]
    codes = [code for _, code, _, _ in helm_steps]
    assert codes == [0, 0, 0, 0, 0, 0, 0, 0, 1, 0]
    assert "failed to install CRD crds/widgets.yaml: conflict occurred while applying object " \
           "/widgets.GROUP apiextensions.k8s.io/v1, Kind=CustomResourceDefinition: Apply failed with" in helm_steps[8][2]
    assert "contains CRDs. Rendering may fail" in helm_steps[5][2]


def _sealed_secrets_crd(cluster: Any) -> dict[str, Any] | None:
    reply = cluster.client().request("GET", f"{CRD_API}/sealedsecrets.bitnami.com")
    return reply.body if reply.ok else None


def test_sealed_secrets_brings_an_older_copy_of_its_crd_to_the_charts_version(cluster, helm):
    """As after an earlier release of the chart (applied by Helm, field manager `helm`): an
    older controller-gen and no printer columns. Each tool's install updates it."""
    chart = corpus_chart("sealed-secrets")
    [crd_file] = sorted((chart / "crds").iterdir())
    wanted = yaml.safe_load(crd_file.read_text())
    older = copy.deepcopy(wanted)
    older["metadata"]["annotations"]["controller-gen.kubebuilder.io/version"] = "v0.14.0"
    for version in older["spec"]["versions"]:
        version.pop("additionalPrinterColumns", None)
    seen = {}
    for tool in ("helm", "ours"):
        namespace = f"test-{uuid.uuid4().hex[:10]}"
        client = cluster.client()
        assert client.request("POST", "/api/v1/namespaces", body={
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}).ok
        reply = client.request("PATCH", f"{CRD_API}/sealedsecrets.bitnami.com", body=older,
                               query=[("fieldManager", "helm"), ("force", "true")],
                               content_type="application/apply-patch+yaml")
        assert reply.ok, reply.body
        try:
            if tool == "helm":
                done = helm("install", "sealed", str(chart), "-n", namespace)
                code, err = done.returncode, done.stderr
            else:
                mine = ours(cluster, namespace, "install", "sealed", str(chart))
                code, err = mine.code, mine.err
            assert code == 0, err
            crd = _sealed_secrets_crd(cluster)
            assert crd is not None
            seen[tool] = (crd["metadata"]["annotations"], crd["spec"])
        finally:
            if tool == "helm":
                helm("uninstall", "sealed", "-n", namespace)
            else:
                ours(cluster, namespace, "uninstall", "sealed")
            client.request("DELETE", f"{CRD_API}/sealedsecrets.bitnami.com")
            client.request("DELETE", f"/api/v1/namespaces/{namespace}")
            for _ in range(600):  # gone before the next tool recreates it
                if _sealed_secrets_crd(cluster) is None:
                    break
                time.sleep(0.1)
    assert seen["ours"] == seen["helm"]
    annotations, spec = seen["ours"]
    assert annotations["controller-gen.kubebuilder.io/version"] == "v0.15.0"
    assert [v.get("additionalPrinterColumns") for v in spec["versions"]] == [
        v.get("additionalPrinterColumns") for v in wanted["spec"]["versions"]]
