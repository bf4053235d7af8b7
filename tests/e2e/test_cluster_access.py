"""Reaching the cluster as users have it set up, side by side with Helm 4.1.4 on the
testbed: exec credential plugins, in-cluster service accounts, tls-server-name,
proxies, impersonation, and the errors Helm prints when access fails."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

CM_ONLY = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  a: b\n"}


# -- running both CLIs ------------------------------------------------------------------


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment without the caller's cluster settings, Helm's homes in tmp_path."""
    env = {k: v for k, v in os.environ.items()
           if k != "KUBECONFIG" and not k.startswith(("HELM_", "KUBERNETES_"))}
    home = tmp_path / "home"
    env.update(HOME=str(home), HELM_CONFIG_HOME=str(home / "config"), HELM_CACHE_HOME=str(home / "cache"),
               HELM_DATA_HOME=str(home / "data"))
    env.update(extra)
    return env


def run(binary: str | Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary), *args], env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def ours(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run(Path(sys.executable).parent / "deploy-runner", args, env)


def theirs(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    from testbed.helm import helm_binary

    return run(helm_binary(), args, env)


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The `Error: ...` line (Helm also logs some failures as `level=ERROR` first)."""
    return next(line for line in reversed(done.stderr.splitlines()) if line.startswith("Error: "))


def same_error(args: list[str], env: dict[str, str]) -> str:
    helm, mine = theirs(args, env), ours(args, env)
    assert helm.returncode == 1, helm.stderr
    assert (mine.returncode, error_line(mine)) == (1, error_line(helm))
    return error_line(mine)


def kubeconfig_with(cluster, path: Path, user: str = "", server: str = "", cluster_extra: str = "") -> Path:
    """The testbed's kubeconfig with another user entry / server / cluster fields."""
    import yaml

    doc = yaml.safe_load(cluster.kubeconfig.read_text())
    if user:
        doc["users"][0]["user"] = yaml.safe_load(user)
    if server:
        doc["clusters"][0]["cluster"]["server"] = server
    if cluster_extra:
        doc["clusters"][0]["cluster"].update(yaml.safe_load(cluster_extra))
    path.write_text(yaml.safe_dump(doc))
    return path


# -- access failures in Helm's words -------------------------------------------------------


def test_a_missing_kubeconfig_file_is_named_as_helm_names_it(cluster, tmp_path):
    env = clean_env(tmp_path)
    chart = write_chart(tmp_path, templates=CM_ONLY)
    for args in (["list"], ["status", "x"], ["upgrade", "x", str(chart)], ["rollback", "x"]):
        line = same_error([*args, "--kubeconfig", "/nonexistent"], env)
        assert line.endswith("kubernetes cluster unreachable: stat /nonexistent: no such file or directory")


def test_no_kubeconfig_at_all_reaches_for_localhost_8080_as_helm_does(cluster, tmp_path):
    same_error(["list"], clean_env(tmp_path))


@pytest.fixture
def silent_server():
    """A TCP server that accepts connections and never says a word (no TLS handshake)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for sock in [*accepted, server]:
        sock.close()


def test_a_server_that_never_completes_the_tls_handshake_fails_within_helms_10s(cluster, tmp_path, silent_server):
    config = kubeconfig_with(cluster, tmp_path / "silent", server=f"https://127.0.0.1:{silent_server}")
    env = clean_env(tmp_path)
    helm = theirs(["list", "--kubeconfig", str(config)], env)
    started = time.monotonic()
    mine = ours(["list", "--kubeconfig", str(config)], env)
    elapsed = time.monotonic() - started
    print(f"TLS handshake timeout reported after {elapsed:.1f}s")
    assert error_line(mine) == error_line(helm) == (
        f'Error: kubernetes cluster unreachable: Get "https://127.0.0.1:{silent_server}/version": '
        "net/http: TLS handshake timeout")
    assert elapsed < 30  # 10 s handshake; it took the 60 s read timeout before


def test_a_missing_namespace_is_named_as_helm_names_it(cluster, tmp_path):
    env = clean_env(tmp_path, KUBECONFIG=str(cluster.kubeconfig))
    chart = write_chart(tmp_path, templates=CM_ONLY)
    missing = f"nonexist-{uuid.uuid4().hex[:6]}"
    errors = [same_error([*args, "-n", missing], env) for args in
              (["install", "x", str(chart)], ["upgrade", "x", str(chart)], ["rollback", "x"])]
    assert errors[0] == f'Error: INSTALLATION FAILED: create: failed to create: namespaces "{missing}" not found'
    assert not any("lock" in line for line in errors)


def test_a_wrong_tls_server_name_fails_as_in_helm(cluster, tmp_path):
    # Helm's variables (the --kube-* flags that set the same come with the cli package).
    env = clean_env(tmp_path, KUBECONFIG=str(cluster.kubeconfig), HELM_KUBETLS_SERVER_NAME="wrong.example")
    line = same_error(["list"], env)
    assert line.endswith("x509: certificate is valid for localhost, kubernetes, kubernetes.default, "
                         "kubernetes.default.svc, kubernetes.default.svc.cluster.local, not wrong.example")


def test_tls_server_name_from_the_kubeconfig_and_the_variable(cluster, tmp_path):
    config = kubeconfig_with(cluster, tmp_path / "named", cluster_extra="tls-server-name: kubernetes.default.svc")
    env = clean_env(tmp_path, KUBECONFIG=str(config))
    assert ours(["list"], env).returncode == 0
    refused = ours(["list"], {**env, "HELM_KUBETLS_SERVER_NAME": "wrong.example"})
    assert "not wrong.example" in refused.stderr


# -- credentials -----------------------------------------------------------------------


def test_exec_plugin_returning_a_client_certificate(cluster, namespace, tmp_path):
    pki = cluster.testbed.pki
    plugin = tmp_path / "plugin.py"
    credential = {"kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1",
                  "status": {"clientCertificateData": pki.admin.cert.read_text(),
                             "clientKeyData": pki.admin.key.read_text()}}
    plugin.write_text(f"import json\nprint(json.dumps({credential!r}))\n")
    user = json.dumps({"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                                "args": [str(plugin)], "interactiveMode": "Never"}})
    config = kubeconfig_with(cluster, tmp_path / "exec", user=user)
    env = clean_env(tmp_path, KUBECONFIG=str(config))
    chart = write_chart(tmp_path, templates=CM_ONLY)
    installed = ours(["install", "viaexec", str(chart), "-n", namespace], env)
    assert installed.returncode == 0, installed.stderr  # was "Error: internal error: UnsupportedKubeconfig"
    helm, mine = theirs(["status", "viaexec", "-n", namespace], env), ours(["status", "viaexec", "-n", namespace], env)
    assert helm.returncode == mine.returncode == 0
    assert "STATUS: deployed" in mine.stdout


def api(cluster, method: str, path: str, body: dict | None = None) -> dict:
    reply = cluster.client().request(method, path, body=body)
    assert reply.ok, reply.body
    return reply.body


def service_account_token(cluster, namespace: str, name: str) -> str:
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 3600}}
    return api(cluster, "POST", f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", body)["status"]["token"]


def grant(cluster, namespace: str, subject: dict, resources: list[str], group: str = "",
          verbs: tuple[str, ...] = ("*",)) -> None:
    """A Role on `resources` of `group` bound to `subject` in `namespace`."""
    name = f"grant-{uuid.uuid4().hex[:6]}"
    api(cluster, "POST", f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles", {
        "metadata": {"name": name},
        "rules": [{"apiGroups": [group], "resources": resources, "verbs": list(verbs)}]})
    api(cluster, "POST", f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/rolebindings", {
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
        "subjects": [subject]})


def deploy_runner_role(cluster, namespace: str, subject: dict) -> None:
    """The Role docs/releases.md asks for, plus what the test chart creates (ConfigMaps)."""
    grant(cluster, namespace, subject, ["secrets"], verbs=("get", "list", "create", "update", "delete"))
    grant(cluster, namespace, subject, ["leases"], "coordination.k8s.io", verbs=("get", "create", "update", "delete"))
    grant(cluster, namespace, subject, ["configmaps"])


def test_in_cluster_service_account_when_no_kubeconfig(cluster, namespace, tmp_path, monkeypatch):
    from runner.actions.release_config import ActionConfig
    from runner.kube import credentials, kubeconfig
    from runner.kube.client import KubeClient
    from runner.kube.kubeconfig import ClusterAccess

    api(cluster, "POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": "runner"}})
    deploy_runner_role(cluster, namespace, {"kind": "ServiceAccount", "name": "runner", "namespace": namespace})
    mounted = tmp_path / "serviceaccount"
    mounted.mkdir()
    (mounted / "token").write_text(service_account_token(cluster, namespace, "runner"))
    shutil.copy(cluster.testbed.pki.ca.cert, mounted / "ca.crt")
    (mounted / "namespace").write_text(namespace)
    host, port = cluster.server.removeprefix("https://").rsplit(":", 1)
    for name, value in clean_env(tmp_path, KUBERNETES_SERVICE_HOST=host, KUBERNETES_SERVICE_PORT=port).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setattr(kubeconfig, "SERVICE_ACCOUNT_DIR", mounted)

    from runner.cli import main

    chart = write_chart(tmp_path, templates=CM_ONLY)
    assert main(["install", "incluster", str(chart)]) == 0  # namespace from the mounted file
    assert ActionConfig.connect().storage.last("incluster").namespace == namespace

    # A rotated token is read again (client-go re-reads the file every minute).
    monkeypatch.setattr(credentials, "TOKEN_FILE_REREAD_SECONDS", 0.0)
    client = KubeClient.connect(ClusterAccess())
    secrets = f"/api/v1/namespaces/{namespace}/secrets"
    assert client.request("GET", secrets).ok
    (mounted / "token").write_text("not-a-token")
    assert client.request("GET", secrets).status == 401
    (mounted / "token").write_text(service_account_token(cluster, namespace, "runner"))
    assert client.request("GET", secrets).ok


def test_impersonation_is_refused_as_helm_refuses_it(cluster, tmp_path):
    env = clean_env(tmp_path, KUBECONFIG=str(cluster.kubeconfig), HELM_KUBEASUSER="nobody")
    line = same_error(["list"], env)
    assert line == ('Error: list: failed to list: secrets is forbidden: User "nobody" cannot list resource '
                    '"secrets" in API group "" in the namespace "default"')


def test_impersonated_user_and_groups_get_their_permissions(cluster, namespace, tmp_path):
    grant(cluster, namespace, {"kind": "Group", "name": "release-readers", "apiGroup": "rbac.authorization.k8s.io"},
          ["secrets"])
    env = clean_env(tmp_path, KUBECONFIG=str(cluster.kubeconfig), HELM_KUBEASUSER="alice",
                    HELM_KUBEASGROUPS="staff,release-readers")
    assert ours(["list", "-n", namespace], env).returncode == 0
    assert ours(["list", "-n", namespace], {**env, "HELM_KUBEASGROUPS": "staff"}).returncode == 1


def test_forbidden_leases_say_which_permission_to_grant(cluster, namespace, tmp_path):
    grant(cluster, namespace, {"kind": "User", "name": "nolease", "apiGroup": "rbac.authorization.k8s.io"},
          ["secrets", "configmaps"])
    env = clean_env(tmp_path, KUBECONFIG=str(cluster.kubeconfig), HELM_KUBEASUSER="nolease")
    chart = write_chart(tmp_path, templates=CM_ONLY)
    mine = ours(["install", "x", str(chart), "-n", namespace], env)
    assert mine.returncode == 1
    assert mine.stderr == (
        f'Error: INSTALLATION FAILED: User "nolease" cannot get leases.coordination.k8s.io in namespace '
        f'"{namespace}": grant get/create/update/delete on leases (see docs/releases.md)\n')
    # Helm needs no Lease: with the same rights it installs.
    assert theirs(["install", "x", str(chart), "-n", namespace], env).returncode == 0


def test_the_documented_role_is_enough_to_install_upgrade_and_uninstall(cluster, namespace, tmp_path):
    deploy_runner_role(cluster, namespace, {"kind": "User", "name": "deployer", "apiGroup": "rbac.authorization.k8s.io"})
    env = clean_env(tmp_path, KUBECONFIG=str(cluster.kubeconfig), HELM_KUBEASUSER="deployer",
                    HELM_NAMESPACE=namespace)
    chart = write_chart(tmp_path, templates=CM_ONLY)
    for args in (["install", "r", str(chart)], ["upgrade", "r", str(chart)], ["rollback", "r", "1"],
                 ["uninstall", "r"]):
        done = ours(args, env)
        assert done.returncode == 0, (args, done.stderr)


# -- proxies --------------------------------------------------------------------------


@pytest.fixture
def connect_proxy():
    yield from _connect_proxy()


def _connect_proxy(tls: ssl.SSLContext | None = None):
    """A minimal HTTP CONNECT proxy on loopback (spoken to over TLS when given a server
    context: an https proxy); it records the targets asked for."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    targets: list[str] = []

    def pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            sink.close()

    def serve(client: socket.socket) -> None:
        if tls is not None:
            try:
                client = tls.wrap_socket(client, server_side=True)
            except OSError:
                client.close()
                return
        request = b""
        while b"\r\n\r\n" not in request:
            request += client.recv(4096)
        target = request.split(b" ")[1].decode()
        targets.append(target)
        host, port = target.rsplit(":", 1)
        upstream = socket.create_connection((host, int(port)))
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        pipe(upstream, client)

    def accept() -> None:
        while True:
            try:
                client = server.accept()[0]
            except OSError:
                return
            threading.Thread(target=serve, args=(client,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield f"{'https' if tls else 'http'}://127.0.0.1:{server.getsockname()[1]}", targets
    server.close()


@pytest.fixture
def https_connect_proxy(cluster):
    """The CONNECT proxy behind TLS, with a certificate of the testbed's CA for 127.0.0.1."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cluster.testbed.pki.kwok.cert, cluster.testbed.pki.kwok.key)
    yield from _connect_proxy(context)


def test_proxy_url_tunnels_to_the_api_server(cluster, tmp_path, connect_proxy):
    proxy, targets = connect_proxy
    config = kubeconfig_with(cluster, tmp_path / "proxied", cluster_extra=f"proxy-url: {proxy}")
    env = clean_env(tmp_path, KUBECONFIG=str(config))
    assert ours(["list"], env).returncode == 0
    assert targets and set(targets) == {cluster.server.removeprefix("https://")}


def test_an_https_proxy_tunnels_tls_inside_tls_as_helms_does(cluster, tmp_path, https_connect_proxy):
    """The proxy's certificate is checked against the system roots (SSL_CERT_FILE here, for
    both tools); the API server's TLS runs inside the proxy's."""
    proxy, targets = https_connect_proxy
    config = kubeconfig_with(cluster, tmp_path / "proxied", cluster_extra=f"proxy-url: {proxy}")
    env = clean_env(tmp_path, KUBECONFIG=str(config), SSL_CERT_FILE=str(cluster.testbed.pki.ca.cert))
    mine, helms = ours(["list", "-A"], env), theirs(["list", "-A"], env)
    assert (mine.returncode, mine.stdout) == (helms.returncode, helms.stdout) and mine.returncode == 0
    assert targets and set(targets) == {cluster.server.removeprefix("https://")}

    untrusted = ours(["list"], clean_env(tmp_path, KUBECONFIG=str(config)))
    assert untrusted.returncode == 1
    assert "certificate" in untrusted.stderr and "Traceback" not in untrusted.stderr


def test_socks_proxies_are_refused_clearly(cluster, tmp_path):
    config = kubeconfig_with(cluster, tmp_path / "socks", cluster_extra="proxy-url: socks5://127.0.0.1:1080")
    done = ours(["list"], clean_env(tmp_path, KUBECONFIG=str(config)))
    assert done.returncode == 1
    assert 'proxy-url "socks5://127.0.0.1:1080": socks5 proxies are not supported' in done.stderr


def test_inline_keys_leave_no_file_behind(cluster, tmp_path):
    """The testbed kubeconfig has client-key-data: nothing may be written to the temp dir."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = clean_env(tmp_path, KUBECONFIG=str(cluster.kubeconfig), TMPDIR=str(temp))
    assert ours(["list"], env).returncode == 0
    key = base64.b64decode(
        next(line.split(": ", 1)[1] for line in cluster.kubeconfig.read_text().splitlines()
             if "client-key-data" in line))
    assert list(temp.iterdir()) == []
    for file in Path(tmp_path).rglob("*"):
        if file.is_file():
            assert key not in file.read_bytes(), file


def test_install_checks_that_the_cluster_answers_first_as_helm_does(cluster, tmp_path):
    """Install.Run's reachability check comes before the lock or anything else: Helm's log
    line and error, not the lock's."""
    config = kubeconfig_with(cluster, tmp_path / "refused", server="https://127.0.0.1:1")
    env = clean_env(tmp_path)
    chart = write_chart(tmp_path, templates=CM_ONLY)
    args = ["install", "x", str(chart), "--kubeconfig", str(config)]
    helm, mine = theirs(args, env), ours(args, env)
    assert (mine.returncode, mine.stdout, mine.stderr) == (helm.returncode, helm.stdout, helm.stderr)
    assert mine.stderr.endswith(
        'Error: INSTALLATION FAILED: cluster reachability check failed: kubernetes cluster unreachable: '
        'Get "https://127.0.0.1:1/version": dial tcp 127.0.0.1:1: connect: connection refused\n')
