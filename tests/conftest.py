"""Shared fixtures. The testbed ones start a real control plane on first use.

- ``cluster`` (session): the running testbed: ``kubeconfig`` path, ``api_client``
  (a kubernetes.client.ApiClient, to check our work with another client),
  ``client()`` (our own KubeClient), ``server`` URL and the ``testbed`` itself.
- ``namespace`` (function): a fresh namespace, deleted afterwards.
- ``helm`` (function): ``helm("status", "x", "-n", ns)`` runs Helm 4.1.4
  against the testbed and returns the CompletedProcess (text, not checked).
- ``action_dir`` (session): this repository copied as the Actions runner puts an action it
  downloads; ``cache_store`` (session): the cache service's store for actions/cache's
  stand-in (tests/workflows: the executor that runs workflows and action.yml).
- ``eks`` (session): the testbed as an EKS cluster named ``testbed``: moto in server
  mode (testbed.aws) answers DescribeCluster with the testbed's endpoint and CA
  and serves STS; the testbed's token webhook trusts that STS. ``eks.identity(groups=...)``
  makes an IAM user mapped to Kubernetes groups (``eks-admins`` is bound to
  cluster-admin), ``eks.env(keys, tmp_path)`` the environment of a process with those
  credentials and no kubeconfig.

Heavy imports (kubernetes, the harness) happen inside the fixtures, so unit
tests never pay for them.

Parallel workers (pytest-xdist, `make test`; docs/testing.md): every session fixture above
is per worker process (its own testbed, moto, servers, temp directories, on free ports).
Each test module runs whole on one worker, the release corpus in parts (tests/workers.py).
The reliability campaign's figures are summed over the workers and printed once at the end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

# Under PYTHONDONTWRITEBYTECODE (CI images set it) every pytest process, each worker too,
# would rewrite (assertions) and compile the suite's ~320 modules again at collection: ~8 s
# of CPU a process. Their bytecode goes beside them (__pycache__, ignored by git), as
# `make install` compiles runner/ for the CLI processes the tests start.
sys.dont_write_bytecode = False

from tests.reliability.campaign import FIGURES, FULL  # noqa: E402

if TYPE_CHECKING:
    from testbed.cluster import Testbed

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
    from testbed.cluster import Testbed

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


EKS_CLUSTER = "testbed"
EKS_ADMINS = "eks-admins"  # the Kubernetes group the eks fixture binds to cluster-admin


@dataclass
class Eks:
    """The testbed behind an EKS login (see the module's docstring)."""

    aws: Any  # testbed.aws.AwsServer
    cluster: Cluster
    name: str = EKS_CLUSTER
    map_roles: list[dict[str, Any]] = field(default_factory=list)
    map_users: list[dict[str, Any]] = field(default_factory=list)

    @property
    def region(self) -> str:
        from testbed.aws import REGION

        return REGION

    def identity(self, prefix: str = "ci", *, groups: tuple[str, ...] = (EKS_ADMINS,), mapped: bool = True,
                 policy: dict[str, Any] | None = None) -> Any:
        """A new IAM user (testbed.aws.Keys), mapped (mapUsers) to `groups` as user
        `<prefix>-...`, unless not `mapped`."""
        keys = self.aws.user(f"{prefix}-{uuid.uuid4().hex[:8]}", policy)
        if mapped:
            self.map_users.append({"userarn": keys.arn, "username": keys.arn.rsplit("/", 1)[1],
                                   "groups": list(groups)})
            self.configure()
        return keys

    def role(self, trusted: Any, *, groups: tuple[str, ...] = (EKS_ADMINS,), mapped: bool = True) -> str:
        """A new IAM role `trusted` (Keys) may assume, mapped (mapRoles) to `groups` as
        `deployer:{{SessionName}}`; its ARN."""
        arn = self.aws.role(f"deployer-{uuid.uuid4().hex[:8]}", trusted.arn)
        if mapped:
            self.map_roles.append({"rolearn": arn, "username": "deployer:{{SessionName}}", "groups": list(groups)})
            self.configure()
        return arn

    def configure(self) -> None:
        self.cluster.testbed.configure_eks(self.name, self.aws.endpoint, map_roles=self.map_roles,
                                           map_users=self.map_users)

    def env(self, keys: Any, tmp_path: Path, **extra: str) -> dict[str, str]:
        """A process's environment with `keys` as its AWS credentials, moto as AWS, and no
        cluster settings at all (KUBECONFIG names a file that does not exist)."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("HELM_", "KUBERNETES_", "AWS_", "DEPLOY_RUNNER_EKS_"))}
        home = tmp_path / "home"
        env.update(HOME=str(home), HELM_CONFIG_HOME=str(home / "config"), HELM_CACHE_HOME=str(home / "cache"),
                   HELM_DATA_HOME=str(home / "data"), KUBECONFIG=str(tmp_path / "no-kubeconfig"))
        env.update(self.aws.environment(keys))
        env.update(extra)
        return env

    def webhook_log(self) -> str:
        return (self.cluster.testbed.workdir / "eks-webhook.log").read_text()


@pytest.fixture(scope="session")
def eks(cluster: Cluster) -> Iterator[Eks]:
    from testbed.aws import AwsServer

    with AwsServer.start() as aws:
        aws.add_eks_cluster(EKS_CLUSTER, cluster.server, cluster.testbed.pki.ca.cert.read_bytes())
        found = Eks(aws, cluster)
        found.configure()
        reply = cluster.client().request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", body={
            "metadata": {"name": EKS_ADMINS},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
            "subjects": [{"kind": "Group", "name": EKS_ADMINS, "apiGroup": "rbac.authorization.k8s.io"}]})
        assert reply.ok, reply.body
        yield found


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
    from testbed.helm import helm_binary

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


@pytest.fixture(scope="session")
def action_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.workflows.machine import copy_action

    return copy_action(tmp_path_factory.mktemp("runner"))


@pytest.fixture(scope="session")
def cache_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What one job saves with actions/cache, a later job of the session restores."""
    return tmp_path_factory.mktemp("cache-service")


# -- where the CPU goes (tests/cpu.py) ----------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    from tests.cpu import add_option

    add_option(parser)


def pytest_configure(config: pytest.Config) -> None:
    from tests.cpu import configure

    configure(config)


# -- parallel workers (pytest-xdist) -------------------------------------------------------

_FIGURES_KEY = "reliability_figures"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Each module one worker's unit of work, the release corpus in parts (tests/workers.py)."""
    from tests.workers import make_scheduler

    return make_scheduler(config, log)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a worker: hand its reliability figures to the controller (pytest_testnodedown)."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output[_FIGURES_KEY] = {part: dict(counts) for part, counts in FIGURES.counts.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the controller: add up the figures of each worker as it finishes."""
    for part, counts in getattr(node, "workeroutput", {}).get(_FIGURES_KEY, {}).items():
        for what, n in counts.items():
            FIGURES.add(part, what, n)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FIGURES.counts:
        terminalreporter.section(f"reliability campaign ({'full' if FULL else 'quick'} profile)")
        for line in FIGURES.lines():
            terminalreporter.write_line(line)
