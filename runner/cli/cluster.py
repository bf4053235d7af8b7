"""The cluster a command works on, from Helm's global connection flags (whose defaults are
the HELM_* variables: runner.cli.flags.global_flags), and the command's journal: what its
action tells, printed as it comes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from runner.actions.journal import Journal
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


def action_config(args: Namespace, journal: Journal | None, access: ClusterAccess | None = None) -> ActionConfig:
    """The action configuration (cluster client, namespace, release storage) the flags name
    (or `access`, the flags' settings with what a spec adds: runner.cli.run); what the
    cluster itself tells goes to `journal` (None: nowhere, as for a spec run's connection,
    shared by its releases' journals)."""
    from runner.actions.release_config import ActionConfig
    from runner.kube.kubeconfig import ClusterAccess

    return ActionConfig.connect(access=access or ClusterAccess(**cluster_access(args)), journal=journal)


def command_journal(args: Namespace, *, hook_output: Callable[[str, str, str], Any] | None = None,
                    hook_log_lines: int = 500, live_hook_logs: bool = False) -> Journal:
    """The journal of one command: what its action tells, printed as it comes
    (message_printer); hook output logs written by `hook_output` (None: not shown)."""
    from runner.actions.journal import Journal

    return Journal(on_message=message_printer(debug=bool(args.debug), show_progress=shows_progress(args)),
                   hook_output=hook_output, hook_log_lines=hook_log_lines, live_hook_logs=live_hook_logs)


def shows_progress(args: Namespace) -> bool:
    """Waits are shown unless --no-progress, or the output is data (-o json|yaml)."""
    return not getattr(args, "no_progress", False) and getattr(args, "output", "table") not in ("json", "yaml")


def message_printer(*, debug: bool, show_progress: bool = False) -> Callable[[Any], None]:
    """The printer of what an action tells while it runs (runner.cli.progress.MessagePrinter),
    on this process's stdout and stderr."""
    import sys

    from runner.cli.progress import MessagePrinter, progress_view

    return MessagePrinter(sys.stderr, progress_view(sys.stderr) if show_progress else None, debug=debug)
