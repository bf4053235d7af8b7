"""Shared fixtures. The testbed ones start a real control plane on first use.

- ``cluster`` (session): the running testbed: ``kubeconfig`` path, ``api_client``
  (a kubernetes.client.ApiClient, to check our work with another client),
  ``client()`` (our own KubeClient), ``server`` URL and the ``testbed`` itself.
- ``namespace`` (function): a fresh namespace, deleted afterwards.
- ``helm`` (function): ``helm("status", "x", "-n", ns)`` runs Helm 4.1.4
  against the testbed and returns the CompletedProcess (text, not checked).

Heavy imports (kubernetes, the harness) happen inside the fixtures, so unit
tests never pay for them.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from runner.testbed.cluster import Testbed

HELM_TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class Cluster:
    kubeconfig: Path
    server: str
    api_client: Any  # kubernetes.client.ApiClient, imported lazily: an independent client for checks
    testbed: Testbed

    def client(self) -> Any:
        """deploy-runner's own client (runner.kube.client.KubeClient) for the testbed."""
        from runner.kube.client import KubeClient
        from runner.kube.kubeconfig import ClusterAccess

        return KubeClient.connect(ClusterAccess(kubeconfig=str(self.kubeconfig)))


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    from kubernetes import config

    from runner.errors import RunnerError
    from runner.testbed.cluster import Testbed

    try:
        testbed = Testbed.start(log=lambda message: print(message, flush=True))
    except RunnerError as error:
        pytest.fail(f"the testbed did not start: {error}", pytrace=False)
    with testbed:
        api_client = config.new_client_from_config(config_file=str(testbed.kubeconfig))
        try:
            yield Cluster(testbed.kubeconfig, testbed.server, api_client, testbed)
        finally:
            api_client.close()


@pytest.fixture
def namespace(cluster: Cluster) -> Iterator[str]:
    from kubernetes import client

    core = client.CoreV1Api(cluster.api_client)
    name = f"test-{uuid.uuid4().hex[:10]}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    try:
        yield name
    finally:
        # Not awaited: the namespace controller finishes the deletion in the background.
        core.delete_namespace(name)


@pytest.fixture
def helm(cluster: Cluster, tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    from runner.errors import RunnerError
    from runner.testbed.helm import helm_binary

    try:
        binary = helm_binary()
    except RunnerError as error:
        pytest.fail(f"the Helm binary is not available: {error}", pytrace=False)
    home = tmp_path / "helm-home"
    env = {
        **os.environ,
        "KUBECONFIG": str(cluster.kubeconfig),
        # Keep the user's own Helm config, cache and repositories out of the tests.
        "HELM_CONFIG_HOME": str(home / "config"),
        "HELM_CACHE_HOME": str(home / "cache"),
        "HELM_DATA_HOME": str(home / "data"),
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(binary), *args], env=env, capture_output=True, text=True,
            timeout=HELM_TIMEOUT_SECONDS, check=False,
        )

    return run
