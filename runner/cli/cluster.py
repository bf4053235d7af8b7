"""The cluster a command works on, from Helm's global connection flags (whose defaults are
the HELM_* variables: runner.cli.flags.global_flags)."""

from __future__ import annotations

from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from runner.actions.release_config import ActionConfig
    from runner.cli.pflag import Namespace

# Connection flags the client cannot apply yet (runner/kube takes kubeconfig, context and
# namespace today): refused rather than ignored, so a token or CA given is never dropped.
_NOT_YET = (("kube_apiserver", "--kube-apiserver"), ("kube_token", "--kube-token"),
            ("kube_ca_file", "--kube-ca-file"), ("kube_as_user", "--kube-as-user"),
            ("kube_as_group", "--kube-as-group"),
            ("kube_insecure_skip_tls_verify", "--kube-insecure-skip-tls-verify"),
            ("kube_tls_server_name", "--kube-tls-server-name"))


def cluster_access(args: Namespace) -> dict[str, Any]:
    """The connection settings the flags give (client-go's ConfigFlags): every field of
    runner.kube's ClusterAccess."""
    return {
        "kubeconfig": args.kubeconfig, "context": args.kube_context, "namespace": args.namespace,
        "apiserver": args.kube_apiserver, "token": args.kube_token, "ca_file": args.kube_ca_file,
        "as_user": args.kube_as_user, "as_groups": tuple(args.kube_as_group),
        "insecure_skip_tls_verify": args.kube_insecure_skip_tls_verify,
        "tls_server_name": args.kube_tls_server_name, "burst": args.burst_limit, "qps": args.qps,
    }


def action_config(args: Namespace) -> ActionConfig:
    """The action configuration (cluster client, namespace, release storage) the flags name."""
    from runner.actions.release_config import ActionConfig

    for dest, flag in _NOT_YET:
        if getattr(args, dest):
            raise RunnerError(f"{flag} (or its HELM_* variable) is not supported by this build yet: "
                              "use a kubeconfig that holds the connection")
    access = cluster_access(args)
    return ActionConfig.connect(access["namespace"] or None, access["kubeconfig"] or None,
                                access["context"] or None)
