"""Kubeconfig resolution as client-go's ConfigFlags do it: files, Helm's flags and
HELM_* variables over them, in-cluster configuration, the defaults."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from runner.kube.kubeconfig import ClusterAccess, KubeconfigError, resolve

CA_PEM = b"-----BEGIN CERTIFICATE-----\nfile\n-----END CERTIFICATE-----\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def kubeconfig(path: Path, server: str = "https://k.example:6443", **user: str) -> Path:
    user_yaml = "".join(f"    {k.replace('_', '-')}: {v}\n" for k, v in user.items()) or "    {}\n"
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: c\n  cluster:\n    server: {server}\n"
        f"    certificate-authority-data: {b64(b'inline-ca')}\n    tls-server-name: from-file\n"
        f"users:\n- name: u\n  user:\n{user_yaml}"
        "contexts:\n- name: main\n  context: {cluster: c, user: u, namespace: team}\n"
        "- name: other\n  context: {cluster: c, user: u}\n"
        "current-context: main\n")
    return path


def no_cluster_env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home")}


def test_helm_variables_build_the_options():
    env = {"HELM_NAMESPACE": "ns", "HELM_KUBECONTEXT": "ctx", "HELM_KUBETOKEN": "tok",
           "HELM_KUBEAPISERVER": "https://api:6443", "HELM_KUBECAFILE": "/ca.pem",
           "HELM_KUBEASUSER": "jane", "HELM_KUBEASGROUPS": " ,dev,ops, ", "HELM_KUBEINSECURE_SKIP_TLS_VERIFY": "true",
           "HELM_KUBETLS_SERVER_NAME": "api.internal", "HELM_BURST_LIMIT": "300", "HELM_QPS": "50.5"}
    assert ClusterAccess.from_env(env) == ClusterAccess(
        context="ctx", namespace="ns", apiserver="https://api:6443", token="tok", ca_file="/ca.pem",
        as_user="jane", as_groups=("dev", "ops"), insecure_skip_tls_verify=True,
        tls_server_name="api.internal", burst=300, qps=50.5)


def test_unparsable_helm_numbers_and_booleans_fall_back_to_the_defaults():
    access = ClusterAccess.from_env({"HELM_BURST_LIMIT": "lots", "HELM_QPS": "fast",
                                     "HELM_KUBEINSECURE_SKIP_TLS_VERIFY": "yes"})
    assert (access.burst, access.qps, access.insecure_skip_tls_verify) == (100, 0.0, False)


def test_flags_lay_over_the_variables_only_where_typed():
    access = ClusterAccess.from_env({"HELM_NAMESPACE": "env-ns", "HELM_KUBETOKEN": "env-token"})
    assert access.with_flags(namespace="flag-ns", token=None) == ClusterAccess(namespace="flag-ns", token="env-token")
    assert access.with_flags(as_groups=["a", "b"]).as_groups == ("a", "b")  # --kube-as-group a --kube-as-group b


def test_the_current_context_gives_server_namespace_and_credentials(tmp_path):
    path = kubeconfig(tmp_path / "config", token="secret")
    config = resolve(ClusterAccess(kubeconfig=str(path)), {})
    assert (config.server, config.namespace, config.token) == ("https://k.example:6443", "team", "secret")
    assert (config.ca_data, config.tls_server_name) == (b"inline-ca", "from-file")


def test_flags_override_the_kubeconfig_as_client_go_does(tmp_path):
    path = kubeconfig(tmp_path / "config", token="secret")
    (tmp_path / "ca.pem").write_bytes(CA_PEM)
    config = resolve(ClusterAccess(kubeconfig=str(path), context="other", namespace="flag-ns",
                                   apiserver="https://other:443", token="flag-token",
                                   ca_file=str(tmp_path / "ca.pem")), {})
    assert (config.server, config.namespace, config.token) == ("https://other:443", "flag-ns", "flag-token")
    # --kube-ca-file replaces certificate-authority-data; --kube-apiserver drops the
    # kubeconfig's tls-server-name (it named the old server's certificate).
    assert (config.ca_data, config.tls_server_name) == (CA_PEM, "")


def test_insecure_flag_drops_the_kubeconfig_ca_and_tls_server_name_flag_wins(tmp_path):
    path = kubeconfig(tmp_path / "config")
    config = resolve(ClusterAccess(kubeconfig=str(path), insecure_skip_tls_verify=True,
                                   tls_server_name="api.internal"), {})
    assert (config.insecure, config.ca_data, config.tls_server_name) == (True, b"", "api.internal")


def test_groups_are_impersonated_only_with_a_user(tmp_path):
    path = kubeconfig(tmp_path / "config")
    alone = resolve(ClusterAccess(kubeconfig=str(path), as_groups=("dev",)), {})
    assert (alone.impersonate_user, alone.impersonate_groups) == ("", ())
    both = resolve(ClusterAccess(kubeconfig=str(path), as_user="jane", as_groups=("dev", "ops")), {})
    assert (both.impersonate_user, both.impersonate_groups) == ("jane", ("dev", "ops"))


def test_a_missing_explicit_kubeconfig_is_named_as_helm_names_it(tmp_path):
    with pytest.raises(KubeconfigError, match=r"^stat /nonexistent: no such file or directory$"):
        resolve(ClusterAccess(kubeconfig="/nonexistent"), {})


def test_a_missing_context_flag_and_a_missing_current_context(tmp_path):
    path = kubeconfig(tmp_path / "config")
    with pytest.raises(KubeconfigError, match=r'^context "nope" does not exist$'):
        resolve(ClusterAccess(kubeconfig=str(path), context="nope"), {})
    path.write_text(path.read_text().replace("current-context: main", "current-context: gone"))
    with pytest.raises(KubeconfigError, match="context was not found for specified context: gone"):
        resolve(ClusterAccess(kubeconfig=str(path)), {})


def test_kubeconfig_files_merge_first_wins_and_paths_resolve_per_file(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (second / "ca.pem").write_bytes(CA_PEM)
    (first / "config").write_text("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c2, user: u}\n"
                                  "users:\n- name: u\n  user: {token: first}\n")
    (second / "config").write_text("current-context: y\nclusters:\n- name: c2\n  cluster:\n"
                                   "    server: https://two\n    certificate-authority: ca.pem\n"
                                   "users:\n- name: u\n  user: {token: second}\n")
    env = {"KUBECONFIG": f"{first / 'config'}:{tmp_path / 'missing'}:{second / 'config'}"}
    config = resolve(ClusterAccess(), env)
    assert (config.server, config.token, config.ca_data) == ("https://two", "first", CA_PEM)


def test_no_kubeconfig_means_localhost_8080_or_kubernetes_master(tmp_path):
    assert resolve(ClusterAccess(), no_cluster_env(tmp_path)).server == "http://localhost:8080"
    env = {**no_cluster_env(tmp_path), "KUBERNETES_MASTER": "https://master:6443"}
    assert resolve(ClusterAccess(), env).server == "https://master:6443"


def service_account(tmp_path: Path, token: str = "sa-token") -> Path:
    directory = tmp_path / "serviceaccount"
    directory.mkdir()
    (directory / "token").write_text(token)
    (directory / "ca.crt").write_bytes(CA_PEM)
    (directory / "namespace").write_text("runners\n")
    return directory


def in_cluster_env(tmp_path: Path) -> dict[str, str]:
    return {**no_cluster_env(tmp_path), "KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}


def test_in_cluster_configuration_when_no_kubeconfig(tmp_path):
    directory = service_account(tmp_path)
    config = resolve(ClusterAccess(), in_cluster_env(tmp_path), directory)
    assert (config.server, config.namespace, config.ca_data) == ("https://10.0.0.1:443", "runners", CA_PEM)
    assert (config.token, config.token_file) == ("", str(directory / "token"))  # read (and re-read) per request


def test_in_cluster_namespace_from_pod_namespace_and_flags(tmp_path):
    directory = service_account(tmp_path)
    env = {**in_cluster_env(tmp_path), "POD_NAMESPACE": "from-env"}
    assert resolve(ClusterAccess(), env, directory).namespace == "from-env"
    assert resolve(ClusterAccess(namespace="flag"), env, directory).namespace == "flag"


def test_in_cluster_takes_token_and_ca_overrides_but_a_server_flag_leaves_it(tmp_path):
    directory = service_account(tmp_path)
    (tmp_path / "other.pem").write_bytes(b"other")
    config = resolve(ClusterAccess(token="flag-token", ca_file=str(tmp_path / "other.pem")),
                     in_cluster_env(tmp_path), directory)
    assert (config.server, config.token, config.token_file, config.ca_data) == (
        "https://10.0.0.1:443", "flag-token", "", b"other")
    elsewhere = resolve(ClusterAccess(apiserver="https://elsewhere"), in_cluster_env(tmp_path), directory)
    assert (elsewhere.server, elsewhere.token_file) == ("https://elsewhere", "")


def test_a_kubeconfig_wins_over_in_cluster(tmp_path):
    directory = service_account(tmp_path)
    path = kubeconfig(tmp_path / "config", token="secret")
    config = resolve(ClusterAccess(kubeconfig=str(path)), in_cluster_env(tmp_path), directory)
    assert config.server == "https://k.example:6443"


def test_in_cluster_ipv6_service_host(tmp_path):
    directory = service_account(tmp_path)
    env = {**in_cluster_env(tmp_path), "KUBERNETES_SERVICE_HOST": "fd00::1"}
    assert resolve(ClusterAccess(), env, directory).server == "https://[fd00::1]:443"


def test_a_kubeconfig_that_is_not_yaml_names_the_file(tmp_path):
    path = tmp_path / "config"
    path.write_text("clusters: [\n")
    with pytest.raises(KubeconfigError, match=f'error loading config file "{path}"'):
        resolve(ClusterAccess(kubeconfig=str(path)), {})


def test_the_config_never_shows_its_secrets(tmp_path):
    path = kubeconfig(tmp_path / "config", token="s3cret-token", client_key_data=b64(b"KEY"))
    assert "s3cret" not in repr(resolve(ClusterAccess(kubeconfig=str(path)), {}))


# -- an EKS cluster (runner.aws.eks gives the endpoint, CA and token source) --------------------


class _Found:
    def __init__(self, calls: list) -> None:
        self.calls = calls

    def __call__(self, name: str, region: str, role_arn: str):
        from runner.aws.eks import EksConnection

        self.calls.append((name, region, role_arn))
        return EksConnection(name, region or "eu-west-1", "https://eks.example:443", b"PEM", token=object())


def test_an_eks_cluster_needs_no_kubeconfig_and_takes_the_server_flags_over_it(tmp_path, monkeypatch):
    from runner.aws import eks

    calls: list = []
    monkeypatch.setattr(eks, "connect", _Found(calls))
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "config")))  # context namespace: team
    config = resolve(ClusterAccess(eks_cluster="prod", eks_role_arn="arn:aws:iam::1:role/r", as_user="jane"))
    assert calls == [("prod", "", "arn:aws:iam::1:role/r")]
    assert (config.server, config.ca_data, config.namespace, config.token, config.impersonate_user) == (
        "https://eks.example:443", b"PEM", "default", "", "jane")
    assert config.token_source is not None
    tunnelled = resolve(ClusterAccess(eks_cluster="prod", apiserver="https://127.0.0.1:8443", tls_server_name="eks"))
    assert (tunnelled.server, tunnelled.tls_server_name, tunnelled.ca_data) == ("https://127.0.0.1:8443", "eks", b"PEM")


def test_eks_settings_that_contradict_each_other_are_refused(monkeypatch):
    from runner.aws import eks

    monkeypatch.setattr(eks, "connect", _Found([]))
    with pytest.raises(KubeconfigError, match=r"^--eks-role-arn needs --eks-cluster \(the EKS cluster's name\)$"):
        resolve(ClusterAccess(eks_role_arn="arn:aws:iam::1:role/r"))
    with pytest.raises(KubeconfigError, match=r"^--eks-region and --eks-role-arn need --eks-cluster"):
        resolve(ClusterAccess(eks_region="eu-west-1", eks_role_arn="arn:aws:iam::1:role/r"))
    with pytest.raises(KubeconfigError, match=r"^--eks-cluster and --kubeconfig and --kube-token cannot be used "
                                              r"together: the EKS login gives the cluster and the identity$"):
        resolve(ClusterAccess(eks_cluster="prod", kubeconfig="k", token="t"))


def test_a_spec_environments_eks_cluster_unless_the_command_line_names_one():
    environment = ("prod", "eu-west-1", "arn:aws:iam::1:role/r")
    found = ClusterAccess(namespace="ns").or_eks(*environment)
    assert (found.eks_cluster, found.eks_region, found.eks_role_arn, found.namespace) == (*environment, "ns")
    mine = ClusterAccess(eks_region="us-east-2").or_eks(*environment)  # a region typed wins
    assert (mine.eks_cluster, mine.eks_region, mine.eks_role_arn) == ("prod", "us-east-2", environment[2])
    for named in (ClusterAccess(kubeconfig="k"), ClusterAccess(context="c"), ClusterAccess(apiserver="https://a"),
                  ClusterAccess(eks_cluster="other")):
        assert named.or_eks(*environment) == named


def test_the_default_namespace_of_an_eks_cluster(tmp_path, monkeypatch):
    from runner.kube.kubeconfig import default_namespace

    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "config")))
    assert default_namespace(ClusterAccess()) == "team"
    assert default_namespace(ClusterAccess(eks_cluster="prod")) == "default"  # no DescribeCluster for it
    assert default_namespace(ClusterAccess(eks_cluster="prod", namespace="ns")) == "ns"
