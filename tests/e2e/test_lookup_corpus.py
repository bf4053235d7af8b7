"""Corpus charts that depend on `lookup`, through the commands a user runs on the testbed.

bitnami-redis generates its password at the first install and, at every upgrade, reads it
back from the cluster (or fails with `PASSWORDS ERROR`): installed then upgraded twice by
us, the Secret keeps its data, and each upgrade renders what `helm upgrade` renders for
the same release. A `run` of an unchanged spec of it writes no revision. bitnami-nginx
(its TLS certificate kept the same way) plans and deploys into an empty namespace, then
is unchanged."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import corpus_chart
from tests.e2e.release_helpers import Run, get_object, ours

pytestmark = pytest.mark.e2e


def _secret_data(cluster: Any, namespace: str, name: str) -> dict[str, str]:
    secret = get_object(cluster, f"/api/v1/namespaces/{namespace}/secrets/{name}")
    assert secret is not None, f"no Secret {name}"
    return dict(secret["data"])


def _revisions(cluster: Any, namespace: str, name: str) -> list[tuple[int, str]]:
    history = ours(cluster, namespace, "history", name, "-o", "json")
    assert history.code == 0, history.err
    return [(row["revision"], row["status"]) for row in json.loads(history.out)]


def test_bitnami_redis_keeps_its_generated_password_through_two_upgrades(cluster, namespace, helm):
    chart = str(corpus_chart("bitnami-redis"))
    install = ours(cluster, namespace, "install", "cache", chart)
    assert install.code == 0, install.err
    password = _secret_data(cluster, namespace, "cache-redis")
    assert set(password) == {"redis-password"}
    for revision in (2, 3):
        # What helm would render for this release now, against what our upgrade stores.
        theirs = helm("upgrade", "cache", chart, "-n", namespace, "--dry-run=server", "-o", "json")
        assert theirs.returncode == 0, theirs.stderr
        upgrade = ours(cluster, namespace, "upgrade", "cache", chart)
        assert upgrade.code == 0, upgrade.err
        assert "PASSWORDS ERROR" not in upgrade.err
        assert _secret_data(cluster, namespace, "cache-redis") == password
        stored = helm("get", "manifest", "cache", "-n", namespace, "--revision", str(revision))
        assert stored.stdout == json.loads(theirs.stdout)["manifest"] + "\n"
    assert _revisions(cluster, namespace, "cache") == [(1, "superseded"), (2, "superseded"), (3, "deployed")]


def _run(cluster: Any, namespace: str, root: Path, *args: str) -> Run:
    previous = os.getcwd()
    os.chdir(root)
    try:
        return ours(cluster, namespace, "run", *args, "-o", "json")
    finally:
        os.chdir(previous)


def _states(run: Run) -> dict[str, tuple[str, str, int]]:
    assert run.code == 0, run.err + run.out
    return {r["name"]: (r["action"], r["status"], r["revision"]) for r in json.loads(run.out)["releases"]}


def _spec(root: Path, name: str, chart: str) -> Path:
    (root / "deploy-runner.yaml").write_text(f"releases:\n- name: {name}\n  chart: {corpus_chart(chart)}\n")
    return root


def test_a_run_of_an_unchanged_bitnami_redis_spec_writes_no_revision(cluster, namespace, tmp_path):
    root = _spec(tmp_path, "cache", "bitnami-redis")
    assert _states(_run(cluster, namespace, root)) == {"cache": ("install", "deployed", 1)}
    password = _secret_data(cluster, namespace, "cache-redis")
    assert _states(_run(cluster, namespace, root, "--plan")) == {"cache": ("none", "unchanged", 1)}
    assert _states(_run(cluster, namespace, root)) == {"cache": ("none", "unchanged", 1)}
    assert _revisions(cluster, namespace, "cache") == [(1, "deployed")]
    assert _secret_data(cluster, namespace, "cache-redis") == password


def test_bitnami_nginx_plans_and_runs_into_an_empty_namespace_then_stays_unchanged(cluster, namespace, tmp_path):
    root = _spec(tmp_path, "web", "bitnami-nginx")
    plan = _run(cluster, namespace, root, "--plan")
    assert "internal error" not in plan.err + plan.out
    assert _states(plan) == {"web": ("install", "planned", 1)}
    changes = json.loads(plan.out)["releases"][0]["diff"]["changes"]
    deployment = next(c for c in changes if c["kind"] == "Deployment")
    assert deployment["source"]["path"] == "nginx/templates/deployment.yaml"
    assert _states(_run(cluster, namespace, root)) == {"web": ("install", "deployed", 1)}
    tls = _secret_data(cluster, namespace, "web-nginx-tls")
    assert _states(_run(cluster, namespace, root)) == {"web": ("none", "unchanged", 1)}
    assert _secret_data(cluster, namespace, "web-nginx-tls") == tls
