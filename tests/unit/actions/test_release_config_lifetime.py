"""A configuration's connections end with it, not at the next garbage collection: the
CLI runs in-process (tests, a warm Lambda), and a cycle between the configuration and
its cluster kept every connection pool's sockets open (1,000 of them over the e2e suite,
past what select() takes). The journal that hears the cluster holds nothing of it."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from runner.actions.journal import Journal
from runner.actions.release_config import ActionConfig

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u, namespace: apps}}]
current-context: c
"""


def test_a_dropped_configuration_frees_its_client_at_once(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(KUBECONFIG)
    gc.disable()
    try:
        journal = Journal()
        cfg = ActionConfig.connect(kubeconfig=str(kubeconfig), journal=journal)
        base = cfg.in_namespace("other")
        client = weakref.ref(cfg.require_cluster().client)  # type: ignore[attr-defined]
        del cfg, base
        assert client() is None, "the client outlived its configuration (a reference cycle)"
    finally:
        gc.enable()


def test_the_cluster_tells_the_journal_it_was_connected_with(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(KUBECONFIG)
    journal = Journal()
    cfg = ActionConfig.connect(kubeconfig=str(kubeconfig), journal=journal)
    cfg.require_cluster().on_log("a warning from the cluster")  # type: ignore[attr-defined]
    assert [m.text for m in journal.messages] == ["a warning from the cluster"]
