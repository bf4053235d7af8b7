"""The cluster a command works on, from Helm's global connection flags (whose defaults are
the HELM_* variables: runner.cli.flags.global_flags)."""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from runner.actions.release_config import ActionConfig
    from runner.cli.pflag import Namespace

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
    from runner.kube.kubeconfig import ClusterAccess

    cfg = ActionConfig.connect(access=ClusterAccess(**cluster_access(args)))
    cfg.on_message = message_printer(debug=bool(args.debug))
    return cfg


def message_printer(*, debug: bool) -> Callable[[Any], None]:
    """What an action tells while it runs, printed as it comes: Helm's notices
    (`Release x has been cancelled.`) on stdout; warnings, our own progress and, with
    --debug only, Helm's debug log lines on stderr."""
    import sys

    from runner.actions.results import DEBUG, NOTICE

    def print_message(message: Any) -> None:
        if message.kind == DEBUG and not debug:
            return
        print(message.text, file=sys.stdout if message.kind == NOTICE else sys.stderr, flush=True)

    return print_message
