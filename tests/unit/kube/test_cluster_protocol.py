"""KubeCluster (the real one) and the tests' FakeCluster both implement every operation
of the Cluster Protocol with its parameters, so actions can be given either."""

from __future__ import annotations

import inspect

import pytest

from runner.kube.cluster import Cluster, KubeCluster
from tests.unit.fakes.cluster import FakeCluster

OPERATIONS = [name for name, member in vars(Cluster).items()
              if callable(member) and not name.startswith("_")]


def _parameters(function):
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def test_the_protocol_lists_what_actions_need():
    assert {"build", "existing", "preflight", "create", "update", "delete", "wait",
            "create_hook", "watch_hook", "install_crds", "ensure_namespace", "lock",
            "server_version", "api_versions"} <= set(OPERATIONS)


@pytest.mark.parametrize("implementation", [KubeCluster, FakeCluster])
@pytest.mark.parametrize("operation", OPERATIONS)
def test_each_implementation_has_the_protocols_signature(implementation, operation):
    assert _parameters(getattr(implementation, operation)) == _parameters(getattr(Cluster, operation))
