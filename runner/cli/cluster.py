"""The cluster a release command works on, from its flags."""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    import argparse

    from runner.actions.release_config import ActionConfig


def action_config(args: argparse.Namespace) -> ActionConfig:
    """The action configuration (cluster client, namespace, release storage) the flags name."""
    from runner.actions.release_config import ActionConfig

    return ActionConfig.connect(args.namespace, args.kubeconfig, args.kube_context)
