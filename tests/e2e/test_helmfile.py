"""helmfile v1.8.0 (built from its Go module) with deploy-runner as its helm binary, set up as
docs/cli.md tells a user: `--helm-binary` names a link called `helm` to the deploy-runner
program. One helmfile.yaml (two corpus charts; values from a file and from `set`) goes
through sync, sync again, list, template and destroy with Helm 4.1.4 and with deploy-runner,
each tool in its own namespace of the testbed. What helmfile prints must be the same (but
for times, durations, temporary paths and the namespace's name: helmfile runs the releases
concurrently, so lines are compared in sorted order), and what each step leaves is read back
with the real helm (`helm list`, `helm history`, `helm get manifest`) and the cluster.

What helmfile runs (its --debug log): `version --short` once (it refuses any major but 3
and 4); `dependency build CHART` for each local chart (sync, template, destroy); for sync
`upgrade --install NAME CHART --create-namespace --namespace NS --values FILE | --set K=V
--reset-values --history-max 10`, then `list --filter ^NAME$ --namespace NS --uninstalling
--deployed --failed --pending` to print the release; for template `template NAME CHART
--namespace NS ...`; for destroy that `list`, then `uninstall NAME --namespace NS`. `list`
reads the helmfile.yaml only.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import corpus_chart

pytestmark = pytest.mark.e2e

CHARTS = ("helm-examples-hello-world", "prometheus-blackbox-exporter")
RELEASES = ("hello", "blackbox")
HELMFILE_YAML = """releases:
- name: hello
  chart: ./charts/helm-examples-hello-world
  values:
  - hello-values.yaml
- name: blackbox
  chart: ./charts/prometheus-blackbox-exporter
  set:
  - name: podAnnotations.team
    value: platform
"""
HELLO_VALUES = "replicaCount: 2\nservice:\n  port: 8080\n"
TIMEOUT_SECONDS = 600
TOOLS = ("helm", "ours")
# Every state `helm list` knows (Helm 4 has no --all): nothing left behind is missed.
EVERY_STATE = ("--deployed", "--failed", "--pending", "--superseded", "--uninstalled", "--uninstalling")


@dataclass(frozen=True)
class Setup:
    """helmfile with each tool as its helm binary, the namespace each deploys to, and the
    real helm to check with."""

    helmfile: Path
    helm_binaries: dict[str, Path]  # tool -> what --helm-binary names
    namespaces: dict[str, str]  # tool -> its namespace
    project: Path
    env: dict[str, str]

    def helmfile_run(self, tool: str, *args: str, namespace: str = "") -> subprocess.CompletedProcess[str]:
        command = [str(self.helmfile), "--helm-binary", str(self.helm_binaries[tool]),
                   "--namespace", namespace or self.namespaces[tool], *args]
        return subprocess.run(command, cwd=self.project, env=self.env, capture_output=True, text=True,
                              timeout=TIMEOUT_SECONDS, check=False)

    def step(self, *args: str) -> dict[str, tuple[list[str], list[str]]]:
        """One helmfile command with each tool, which must succeed: its stdout and stderr
        lines, normalised and sorted."""
        seen = {}
        for tool in TOOLS:
            done = self.helmfile_run(tool, *args)
            assert done.returncode == 0, f"helmfile {' '.join(args)} with {tool}:\n{done.stdout}{done.stderr}"
            seen[tool] = (self._normalised(tool, done.stdout), self._normalised(tool, done.stderr))
        return seen

    def helm(self, *args: str) -> Any:
        """The real helm 4.1.4 (its JSON output decoded)."""
        done = subprocess.run([str(self.helm_binaries["helm"]), *args], env=self.env, capture_output=True,
                              text=True, timeout=TIMEOUT_SECONDS, check=False)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if "json" in args else done.stdout

    def _normalised(self, tool: str, text: str) -> list[str]:
        text = text.replace(str(self.helm_binaries[tool]), "HELM").replace(self.namespaces[tool], "NS")
        for pattern, replacement in _VOLATILE:
            text = pattern.sub(replacement, text)
        return sorted(text.splitlines())


_VOLATILE = (
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \+0000 UTC"), "TIME"),  # helm list's UPDATED
    (re.compile(r"(?m)^LAST DEPLOYED: .*$"), "LAST DEPLOYED: TIME"),
    (re.compile(r"/tmp/helmfile\d+"), "TMP"),  # helmfile's temporary values files
    (re.compile(r"-values-[0-9a-f]+"), "-values-HASH"),
    (re.compile(r"(?m)\s+\d[0-9.hm]*s$"), " DURATION"),  # helmfile's summary tables
)


@pytest.fixture(scope="module")
def helmfile_binary() -> Path:
    from runner.errors import RunnerError
    from testbed.helmfile import helmfile_binary

    try:
        return helmfile_binary(log=print)
    except RunnerError as error:
        pytest.fail(f"helmfile could not be built: {error}", pytrace=False)


@pytest.fixture
def setup(cluster: Any, helmfile_binary: Path, tmp_path: Path) -> Iterator[Setup]:
    """The project (helmfile.yaml, its values file, the charts copied: helmfile runs `helm
    dependency build` in each local chart, which may write there), a link named `helm` to
    deploy-runner, the real helm; the namespaces helmfile creates are deleted afterwards."""
    from testbed.helm import helm_binary

    project = tmp_path / "project"
    for name in CHARTS:
        shutil.copytree(corpus_chart(name), project / "charts" / name)
    (project / "helmfile.yaml").write_text(HELMFILE_YAML)
    (project / "hello-values.yaml").write_text(HELLO_VALUES)
    link = tmp_path / "bin" / "helm"  # what a user does (docs/cli.md)
    link.parent.mkdir()
    link.symlink_to(Path(sys.executable).with_name("deploy-runner"))
    home = tmp_path / "home"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TMPDIR": "/tmp",
           "KUBECONFIG": str(cluster.kubeconfig), "HELM_CONFIG_HOME": str(home / "helm-config"),
           "HELM_CACHE_HOME": str(home / "helm-cache"), "HELM_DATA_HOME": str(home / "helm-data")}
    suffix = uuid.uuid4().hex[:8]
    namespaces = {tool: f"helmfile-{tool}-{suffix}" for tool in TOOLS}
    try:
        yield Setup(helmfile_binary, {"helm": helm_binary(), "ours": link}, namespaces, project, env)
    finally:
        _delete_namespaces(cluster, list(namespaces.values()))


def _delete_namespaces(cluster: Any, names: list[str]) -> None:
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    core = client.CoreV1Api(cluster.api_client)
    for name in names:
        try:
            core.delete_namespace(name)  # not awaited: the namespace controller finishes it
        except ApiException as error:
            if error.status != 404:
                raise


def test_helmfile_sync_list_template_destroy_as_with_helm(setup: Setup, cluster: Any) -> None:
    ns = setup.namespaces

    # sync: the namespace created, both releases installed, as helm installs them
    first = setup.step("sync")
    assert first["ours"] == first["helm"]
    assert _releases(setup, ns["ours"]) == _releases(setup, ns["helm"])
    assert {r["name"]: (r["revision"], r["status"]) for r in _releases(setup, ns["ours"])} == {
        "hello": ("1", "deployed"), "blackbox": ("1", "deployed")}
    assert _manifests(setup, ns["ours"]) == _manifests(setup, ns["helm"])
    generations = {tool: _deployments(cluster, ns[tool]) for tool in TOOLS}
    assert generations["ours"] == generations["helm"] == {
        "hello-hello-world": 1, "blackbox-prometheus-blackbox-exporter": 1}

    # sync again: a second revision of each (sync always upgrades) in which nothing changed
    second = setup.step("sync")
    assert second["ours"] == second["helm"]
    for tool in TOOLS:
        for release in RELEASES:
            history = setup.helm("history", release, "-n", ns[tool], "-o", "json")
            assert [(h["revision"], h["status"]) for h in history] == [(1, "superseded"), (2, "deployed")]
            manifests = [setup.helm("get", "manifest", release, "-n", ns[tool], "--revision", str(revision))
                         for revision in (1, 2)]
            assert manifests[0] == manifests[1], (tool, release)
    assert _releases(setup, ns["ours"]) == _releases(setup, ns["helm"])
    assert {tool: _deployments(cluster, ns[tool]) for tool in TOOLS} == generations  # no pod rolled

    # list (helmfile's view of the helmfile.yaml) and template (every document, byte for
    # byte), both for one namespace
    for args in (("list",), ("template",)):
        done = {tool: setup.helmfile_run(tool, *args, namespace=ns["ours"]) for tool in TOOLS}
        assert done["ours"].returncode == done["helm"].returncode == 0, done["ours"].stderr
        assert done["ours"].stdout == done["helm"].stdout
        assert sorted(done["ours"].stderr.splitlines()) == sorted(done["helm"].stderr.splitlines())
    assert done["ours"].stdout.count("\nkind: Deployment\n") == 2

    # destroy: the releases, their records and their objects gone
    gone = setup.step("destroy")
    assert gone["ours"] == gone["helm"]
    for tool in TOOLS:
        assert setup.helm("list", "-n", ns[tool], *EVERY_STATE, "-o", "json") == []
        assert _chart_objects(cluster, ns[tool]) == []


def _releases(setup: Setup, namespace: str) -> list[dict[str, str]]:
    """`helm list` of a namespace, without what differs from run to run."""
    return [{k: v for k, v in r.items() if k not in ("namespace", "updated")}
            for r in setup.helm("list", "-n", namespace, *EVERY_STATE, "-o", "json")]


def _manifests(setup: Setup, namespace: str) -> dict[str, str]:
    """Each release's stored manifest, its namespace's name left out."""
    return {name: setup.helm("get", "manifest", name, "-n", namespace).replace(namespace, "NS")
            for name in RELEASES}


def _deployments(cluster: Any, namespace: str) -> dict[str, int]:
    """The Deployments of a namespace and their generation (raised by any change of the spec)."""
    from kubernetes import client

    apps = client.AppsV1Api(cluster.api_client)
    return {d.metadata.name: d.metadata.generation for d in apps.list_namespaced_deployment(namespace).items}


def _chart_objects(cluster: Any, namespace: str) -> list[str]:
    """What the charts create that is left in a namespace (not what Kubernetes puts in every one)."""
    from kubernetes import client

    core, apps = client.CoreV1Api(cluster.api_client), client.AppsV1Api(cluster.api_client)
    found = [*(f"Deployment/{d.metadata.name}" for d in apps.list_namespaced_deployment(namespace).items),
             *(f"Service/{s.metadata.name}" for s in core.list_namespaced_service(namespace).items),
             *(f"ConfigMap/{c.metadata.name}" for c in core.list_namespaced_config_map(namespace).items),
             *(f"ServiceAccount/{a.metadata.name}" for a in core.list_namespaced_service_account(namespace).items)]
    return [name for name in found if name not in ("ConfigMap/kube-root-ca.crt", "ServiceAccount/default")]
