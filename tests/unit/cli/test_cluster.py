"""The connection flags: every Helm flag reaches ClusterAccess's fields and the client."""

from __future__ import annotations

import pytest

from runner.cli import root_command
from runner.cli.cluster import cluster_access
from runner.cli.cobra import find


def _args(argv: list[str]) -> object:
    command, rest = find(root_command(), argv)
    args, _ = command.all_flags().parse(rest, print)
    return args


def test_every_connection_flag_reaches_the_access_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELM_KUBEASGROUPS", "g1,g2")
    monkeypatch.setenv("HELM_QPS", "3")
    monkeypatch.setenv("DEPLOY_RUNNER_EKS_REGION", "eu-west-1")
    args = _args(["status", "r", "--kubeconfig", "k", "--kube-context", "c", "-n", "ns",
                  "--kube-apiserver", "https://a", "--kube-token", "t", "--kube-ca-file", "ca",
                  "--kube-as-user", "u", "--kube-insecure-skip-tls-verify",
                  "--kube-tls-server-name", "s", "--burst-limit", "7", "--eks-cluster", "prod",
                  "--eks-role-arn", "arn:aws:iam::1:role/deployer"])
    assert cluster_access(args) == {
        "kubeconfig": "k", "context": "c", "namespace": "ns", "apiserver": "https://a", "token": "t",
        "ca_file": "ca", "as_user": "u", "as_groups": ("g1", "g2"), "insecure_skip_tls_verify": True,
        "tls_server_name": "s", "burst": 7, "qps": 3.0, "eks_cluster": "prod", "eks_region": "eu-west-1",
        "eks_role_arn": "arn:aws:iam::1:role/deployer"}


def test_the_eks_variables_are_what_the_flags_and_the_access_settings_default_to(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from runner.kube.kubeconfig import ClusterAccess

    variables = {"DEPLOY_RUNNER_EKS_CLUSTER": "prod", "DEPLOY_RUNNER_EKS_REGION": "eu-west-1",
                 "DEPLOY_RUNNER_EKS_ROLE_ARN": "arn:aws:iam::1:role/deployer"}
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    args = _args(["list"])
    from_flags = {k: v for k, v in cluster_access(args).items() if k.startswith("eks_")}
    from_env = ClusterAccess.from_env()
    assert from_flags == {"eks_cluster": "prod", "eks_region": "eu-west-1",
                          "eks_role_arn": "arn:aws:iam::1:role/deployer"}
    assert (from_env.eks_cluster, from_env.eks_region, from_env.eks_role_arn) == tuple(from_flags.values())


def test_the_connection_flags_reach_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the flags say is what KubeClient.connect is given (its own tests cover how each
    setting is applied over the kubeconfig)."""
    from runner.cli.cluster import action_config
    from runner.kube.client import KubeClient

    given = []

    def connect(access: object, **_told: object) -> object:
        given.append(access)
        raise SystemExit(0)  # stop before any request: the settings are what is checked

    monkeypatch.setattr(KubeClient, "connect", staticmethod(connect))
    args = _args(["status", "r", "--kube-apiserver", "https://a", "--kube-token", "t",
                  "--kube-as-user", "u", "--kube-as-group", "g", "--kube-insecure-skip-tls-verify"])
    with pytest.raises(SystemExit):
        action_config(args, None)
    access = given[0]
    assert (access.apiserver, access.token, access.as_user, access.as_groups,
            access.insecure_skip_tls_verify) == ("https://a", "t", "u", ("g",), True)
