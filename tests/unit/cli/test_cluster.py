"""The connection flags: every Helm flag reaches ClusterAccess's fields; one the client cannot
apply yet is refused before any connection, never dropped."""

from __future__ import annotations

import pytest

from runner.cli import main, root_command
from runner.cli.cluster import cluster_access
from runner.cli.cobra import find


def _args(argv: list[str]) -> object:
    command, rest = find(root_command(), argv)
    args, _ = command.all_flags().parse(rest, print)
    return args


def test_every_connection_flag_reaches_the_access_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELM_KUBEASGROUPS", "g1,g2")
    monkeypatch.setenv("HELM_QPS", "3")
    args = _args(["status", "r", "--kubeconfig", "k", "--kube-context", "c", "-n", "ns",
                  "--kube-apiserver", "https://a", "--kube-token", "t", "--kube-ca-file", "ca",
                  "--kube-as-user", "u", "--kube-insecure-skip-tls-verify",
                  "--kube-tls-server-name", "s", "--burst-limit", "7"])
    assert cluster_access(args) == {
        "kubeconfig": "k", "context": "c", "namespace": "ns", "apiserver": "https://a", "token": "t",
        "ca_file": "ca", "as_user": "u", "as_groups": ("g1", "g2"), "insecure_skip_tls_verify": True,
        "tls_server_name": "s", "burst": 7, "qps": 3.0}


@pytest.mark.parametrize("flag", [["--kube-token", "t"], ["--kube-apiserver", "https://a"],
                                  ["--kube-as-group", "g"], ["--kube-insecure-skip-tls-verify"]])
def test_a_flag_the_client_cannot_apply_is_refused(flag: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "r", *flag]) == 1
    assert capsys.readouterr().err.startswith(f"Error: {flag[0]} (or its HELM_* variable) is not supported")
