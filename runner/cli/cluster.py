"""The cluster a command works on, from Helm's global connection flags (whose defaults are
the HELM_* variables: runner.cli.flags.global_flags)."""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from runner.actions.release_config import ActionConfig
    from runner.cli.pflag import Namespace
    from runner.kube.kubeconfig import ClusterAccess

def cluster_access(args: Namespace) -> dict[str, Any]:
    """The connection settings the flags give (client-go's ConfigFlags): every field of
    runner.kube's ClusterAccess."""
    return {
        "kubeconfig": args.kubeconfig, "context": args.kube_context, "namespace": args.namespace,
        "apiserver": args.kube_apiserver, "token": args.kube_token, "ca_file": args.kube_ca_file,
        "as_user": args.kube_as_user, "as_groups": tuple(args.kube_as_group),
        "insecure_skip_tls_verify": args.kube_insecure_skip_tls_verify,
        "tls_server_name": args.kube_tls_server_name, "burst": args.burst_limit, "qps": args.qps,
        "eks_cluster": args.eks_cluster, "eks_region": args.eks_region, "eks_role_arn": args.eks_role_arn,
    }


def action_config(args: Namespace, access: ClusterAccess | None = None) -> ActionConfig:
    """The action configuration (cluster client, namespace, release storage) the flags name
    (or `access`, the flags' settings with what a spec adds: runner.cli.run)."""
    from runner.actions.release_config import ActionConfig
    from runner.kube.kubeconfig import ClusterAccess

    cfg = ActionConfig.connect(access=access or ClusterAccess(**cluster_access(args)))
    cfg.on_message = message_printer(debug=bool(args.debug), show_progress=shows_progress(args))
    return cfg


def shows_progress(args: Namespace) -> bool:
    """Waits are shown unless --no-progress, or the output is data (-o json|yaml)."""
    return not getattr(args, "no_progress", False) and getattr(args, "output", "table") not in ("json", "yaml")


def message_printer(*, debug: bool, show_progress: bool = False) -> Callable[[Any], None]:
    """The printer of what an action tells while it runs (runner.cli.progress.MessagePrinter),
    on this process's stdout and stderr."""
    import sys

    from runner.cli.progress import MessagePrinter, progress_view

    return MessagePrinter(sys.stderr, progress_view(sys.stderr) if show_progress else None, debug=debug)
