"""A real Kubernetes control plane on loopback: etcd, apiserver, controller
manager, scheduler, with kwok simulating the nodes and their pods,
testbed.pod_logs serving the pods' logs as their kubelet, a dynamic
volume provisioner serving the default StorageClass (testbed.storage), and
an EKS token authenticator (testbed.eks_webhook) the API server asks about
the bearer tokens it does not know: it refuses them all until `configure_eks` gives it
the cluster's name, the STS endpoint to trust and the IAM-to-Kubernetes mapping.

    with Testbed.start() as testbed:
        print(testbed.kubeconfig)

Everything lives in a fresh temp directory (certificates, etcd data, logs,
kubeconfig) on free loopback ports, and is removed on stop.
"""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from testbed import processes
from testbed.api import ApiClient, http_ok, wait_until
from testbed.build import PROVISIONER, Binaries, ensure_binaries
from testbed.eks_webhook import Settings, write_apiserver_config, write_settings
from testbed.errors import TestbedError
from testbed.kwok_config import write_kwok_config
from testbed.pki import Pki, create_pki, write_kubeconfig
from testbed.storage import PROVISIONER_NAME, create_default_storage_class

LOOPBACK = "127.0.0.1"
SERVICE_CIDR = "10.96.0.0/16"
POD_CIDR = "10.244.0.1/16"
READY_TIMEOUT_SECONDS = 120.0
# Three nodes, one per zone, as a small cloud cluster spreads them: charts whose replicas
# must land on different nodes or zones (required anti-affinity, topology spread) fit.
NODE_NAMES = ("kwok-node-0", "kwok-node-1", "kwok-node-2")
REGION = "testbed"
ZONES = ("testbed-a", "testbed-b", "testbed-c")
INSTANCE_TYPE = "kwok.8cpu-32gi"  # what kwok_config.NODE_CAPACITY gives each node


@dataclass
class Testbed:
    """A running control plane; `stop()` (or leaving the `with`) ends it."""

    __test__ = False  # not a pytest test class

    binaries: Binaries
    workdir: Path
    pki: Pki
    ports: dict[str, int]
    kubeconfig: Path
    components: list[processes.Component] = field(default_factory=list)
    startup_seconds: float = 0.0
    keep_workdir: bool = False

    @property
    def server(self) -> str:
        return f"https://{LOOPBACK}:{self.ports['kube-apiserver']}"

    @classmethod
    def start(cls, log: Callable[[str], None] = print, keep_workdir: bool = False) -> Testbed:
        binaries = ensure_binaries(log)
        try:
            return cls._start_once(binaries, keep_workdir)
        except TestbedError as error:
            # A free port can be taken by someone else before a component binds it: retry once.
            if "address already in use" not in str(error):
                raise
            log("testbed: a port was taken meanwhile; starting again on new ports")
            return cls._start_once(binaries, keep_workdir)

    @classmethod
    def _start_once(cls, binaries: Binaries, keep_workdir: bool) -> Testbed:
        begun = time.monotonic()
        workdir = Path(tempfile.mkdtemp(prefix="deploy-runner-testbed-"))
        pki = create_pki(workdir / "pki")
        ports = _free_ports(
            "etcd", "etcd-peer", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok",
            "pod-logs", "eks-webhook",
        )
        kubeconfig = write_kubeconfig(workdir / "kubeconfig", f"https://{LOOPBACK}:{ports['kube-apiserver']}", pki)
        testbed = cls(binaries, workdir, pki, ports, kubeconfig, keep_workdir=keep_workdir)
        processes.cleanup.register(testbed.stop)
        try:
            testbed._boot()
        except TestbedError as error:
            testbed.keep_workdir = True  # the component logs are what explains the failure
            testbed.stop()
            raise TestbedError(f"{error}\n(component logs kept in {workdir})") from error
        except BaseException:
            testbed.stop()
            raise
        testbed.startup_seconds = time.monotonic() - begun
        return testbed

    def __enter__(self) -> Testbed:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop every component and remove the work directory. Safe to run again, also
        from a signal handler that interrupted a stop() in progress: it stays registered
        for clean-up until it has finished, so the handler redoes the whole of it."""
        processes.stop(self.components)
        self.components = []
        if not self.keep_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        processes.cleanup.unregister(self.stop)

    def restart(self, name: str, down_seconds: float = 0.0) -> None:
        """Stop one component (TERM, then KILL after a grace period) and start it again with
        the same command line and ports after `down_seconds`; for the API server, returns
        once it is ready again. The reliability tests restart the API server under a client."""
        index = next(i for i, c in enumerate(self.components) if c.name == name)
        stopped = self.components[index]
        processes.stop([stopped])
        stopped.log_path.replace(stopped.log_path.with_suffix(".before-restart.log"))  # kept
        time.sleep(down_seconds)
        command = [str(part) for part in stopped.process.args]  # type: ignore[union-attr]
        self.components[index] = processes.start(name, command, self.workdir)
        if name == "kube-apiserver":
            api = ApiClient(self.server, self.pki)
            self._await(lambda: api.request("GET", "/readyz")[0] == 200, "kube-apiserver /readyz")

    def configure_eks(self, cluster: str, sts_endpoint: str, *, map_roles: list[dict] | None = None,
                      map_users: list[dict] | None = None) -> None:
        """Make the API server take EKS tokens for cluster `cluster` signed for the STS at
        `sts_endpoint` (the tests' moto server), mapping IAM ARNs to Kubernetes users as
        aws-auth does: map_roles [{rolearn, username, groups}], map_users [{userarn, ...}].
        Takes effect at the next review (a token accepted in the last 10 s is not reviewed
        again: the API server's token cache)."""
        write_settings(self.eks_settings, Settings(cluster, sts_endpoint, list(map_roles or []),
                                                   list(map_users or [])))

    @property
    def eks_settings(self) -> Path:
        return self.workdir / "eks-webhook.json"

    def rss_bytes(self) -> dict[str, int]:
        """Resident memory of each running component, from /proc."""
        return {c.name: _rss_of(c.process.pid) for c in self.components if c.alive()}

    # -- boot sequence -------------------------------------------------------

    def _boot(self) -> None:
        self.components.append(processes.start("eks-webhook", self._eks_webhook_command(), self.workdir))
        self._launch("etcd", self._etcd_args())
        self._await(lambda: http_ok(f"http://{LOOPBACK}:{self.ports['etcd']}/health"), "etcd /health")
        self._launch("kube-apiserver", self._apiserver_args())
        api = ApiClient(self.server, self.pki)
        self._await(lambda: api.request("GET", "/readyz")[0] == 200, "kube-apiserver /readyz")
        self._launch("kube-controller-manager", self._controller_manager_args())
        self._launch("kube-scheduler", self._scheduler_args())
        self.components.append(processes.start("pod-logs", self._pod_logs_command(), self.workdir))
        self._launch("kwok", self._kwok_args())
        create_default_storage_class(api)
        self._launch(PROVISIONER, self._provisioner_args())
        for index, name in enumerate(NODE_NAMES):
            _register_node(api, name, ZONES[index % len(ZONES)])
        self._await(lambda: _nodes_ready(api), "kwok nodes to be Ready")
        # The controller manager is working once it has made the default ServiceAccount.
        self._await(
            lambda: api.get_json("/api/v1/namespaces/default/serviceaccounts/default") is not None,
            "the default ServiceAccount (kube-controller-manager)",
        )

    def _launch(self, name: str, args: list[str]) -> None:
        command = [str(self.binaries.path(name)), *args]
        self.components.append(processes.start(name, command, self.workdir))

    def _await(self, condition: Callable[[], bool], what: str) -> None:
        def healthy_and(condition_now: Callable[[], bool]) -> bool:
            dead = [c for c in self.components if not c.alive()]
            if dead:
                raise TestbedError(dead[0].exit_message())
            return condition_now()

        wait_until(lambda: healthy_and(condition), READY_TIMEOUT_SECONDS, what, self._logs_summary)

    def _logs_summary(self) -> str:
        return "\n".join(f"--- {c.name} ({c.log_path}):\n{c.log_tail(8)}" for c in self.components)

    # -- command lines -------------------------------------------------------

    def _etcd_args(self) -> list[str]:
        client = f"http://{LOOPBACK}:{self.ports['etcd']}"
        peer = f"http://{LOOPBACK}:{self.ports['etcd-peer']}"
        return [
            "--name=testbed",
            f"--data-dir={self.workdir / 'etcd'}",
            f"--listen-client-urls={client}",
            f"--advertise-client-urls={client}",
            f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=testbed={peer}",
            "--unsafe-no-fsync",  # throwaway data: skip fsync, much faster on shared disks
            "--quota-backend-bytes=2147483648",
            "--log-level=warn",
        ]

    def _apiserver_args(self) -> list[str]:
        pki = self.pki
        return [
            f"--etcd-servers=http://{LOOPBACK}:{self.ports['etcd']}",
            f"--bind-address={LOOPBACK}",
            f"--secure-port={self.ports['kube-apiserver']}",
            f"--cert-dir={self.workdir / 'apiserver-certs'}",
            f"--tls-cert-file={pki.apiserver.cert}",
            f"--tls-private-key-file={pki.apiserver.key}",
            f"--client-ca-file={pki.ca.cert}",
            f"--service-account-key-file={pki.service_account_pub}",
            f"--service-account-signing-key-file={pki.service_account_key}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-cluster-ip-range={SERVICE_CIDR}",
            "--authorization-mode=Node,RBAC",
            # EKS's way in: tokens none of the API server's authenticators knows go to the
            # testbed's aws-iam-authenticator. The webhook's own cache is off; the API server
            # still keeps an accepted token for 10 s (its token cache), never a refusal.
            f"--authentication-token-webhook-config-file={self._eks_webhook_config()}",
            "--authentication-token-webhook-version=v1",
            "--authentication-token-webhook-cache-ttl=0s",
            "--allow-privileged=true",
            # Pod logs/exec go to kwok, which serves the kubelet API for every node.
            f"--kubelet-certificate-authority={pki.ca.cert}",
            f"--kubelet-client-certificate={pki.admin.cert}",
            f"--kubelet-client-key={pki.admin.key}",
            "--kubelet-preferred-address-types=InternalIP",
            "--profiling=false",
            "--v=1",
        ]

    def _component_common(self, name: str) -> list[str]:
        return [
            f"--kubeconfig={self.kubeconfig}",
            f"--bind-address={LOOPBACK}",
            f"--secure-port={self.ports[name]}",
            f"--cert-dir={self.workdir / (name + '-certs')}",
            "--leader-elect=false",
            "--profiling=false",
            "--kube-api-qps=500",
            "--kube-api-burst=1000",
            "--v=1",
        ]

    def _controller_manager_args(self) -> list[str]:
        return [
            *self._component_common("kube-controller-manager"),
            f"--service-account-private-key-file={self.pki.service_account_key}",
            f"--root-ca-file={self.pki.ca.cert}",
            "--use-service-account-credentials=false",
            f"--service-cluster-ip-range={SERVICE_CIDR}",
        ]

    def _scheduler_args(self) -> list[str]:
        return self._component_common("kube-scheduler")

    def _kwok_args(self) -> list[str]:
        port = self.ports["kwok"]
        return [
            f"--kubeconfig={self.kubeconfig}",
            f"--config={write_kwok_config(self.workdir, self.ports['pod-logs'])}",
            "--manage-all-nodes=true",
            f"--node-ip={LOOPBACK}",
            f"--node-port={port}",
            f"--server-address={LOOPBACK}:{port}",
            f"--tls-cert-file={self.pki.kwok.cert}",
            f"--tls-private-key-file={self.pki.kwok.key}",
            f"--cidr={POD_CIDR}",
            "--node-lease-duration-seconds=40",
        ]

    def _provisioner_args(self) -> list[str]:
        return [
            f"--kubeconfig={self.kubeconfig}",
            f"--directory={self.workdir / 'volumes'}",
            f"--provisioner-name={PROVISIONER_NAME}",
            "--v=2",  # a line per volume provisioned or deleted
        ]

    def _eks_webhook_config(self) -> Path:
        return write_apiserver_config(self.workdir / "eks-webhook.kubeconfig", self.ports["eks-webhook"],
                                      self.pki.ca.cert)

    def _eks_webhook_command(self) -> list[str]:
        return [sys.executable, "-m", "testbed.eks_webhook", f"--port={self.ports['eks-webhook']}",
                f"--pki={self.pki.ca.cert.parent}", f"--settings={self.eks_settings}"]

    def _pod_logs_command(self) -> list[str]:
        """The kubelet log API kwok lacks (testbed.pod_logs), a Python process."""
        return [sys.executable, "-m", "testbed.pod_logs", f"--port={self.ports['pod-logs']}",
                f"--server={self.server}", f"--pki={self.pki.ca.cert.parent}"]


def _free_ports(*names: str) -> dict[str, int]:
    # Hold every socket open until all are chosen, so no two names get one port.
    sockets = []
    try:
        for _ in names:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((LOOPBACK, 0))
            sockets.append(sock)
        return {name: sock.getsockname()[1] for name, sock in zip(names, sockets, strict=True)}
    finally:
        for sock in sockets:
            sock.close()


def _register_node(api: ApiClient, name: str, zone: str) -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "node.kubernetes.io/instance-type": INSTANCE_TYPE,
                "topology.kubernetes.io/region": REGION,
                "topology.kubernetes.io/zone": zone,
                "type": "kwok",
            },
            "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
        },
    }
    status, text = api.request("POST", "/api/v1/nodes", node)
    if status not in (201, 409):
        raise TestbedError(f"registering node {name} failed: HTTP {status} {text[:300]}")


def _nodes_ready(api: ApiClient) -> bool:
    nodes = api.get_json("/api/v1/nodes")
    if nodes is None:
        return False
    ready = {
        item["metadata"]["name"]
        for item in nodes.get("items", [])
        for condition in item.get("status", {}).get("conditions", [])
        if condition.get("type") == "Ready" and condition.get("status") == "True"
    }
    return ready >= set(NODE_NAMES)


def _rss_of(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
