"""`--debug` side by side with Helm 4.1.4 on the testbed: the same steps logged in the same
words (`level=DEBUG msg=... key=value`), and the status block with the values, hooks
and manifest. The chart holds only ConfigMaps (one a hook), so nothing is awaited for
long and every line is deterministic."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import DEMO_TEMPLATES, write_chart

pytestmark = pytest.mark.e2e

TEMPLATES = {name: DEMO_TEMPLATES[name] for name in ("cm.yaml", "hook.yaml", "NOTES.txt")}
STEPS = [
    ("install", "r", "{chart}", "--debug"),
    ("upgrade", "r", "{chart}", "--debug", "--wait", "--set", "message=two"),
    # --wait: without it Helm 4 does not wait for a deleted hook to be gone (hookOnly's
    # WaitForDelete does nothing); deploy-runner waits, and logs that it does.
    ("upgrade", "r", "{chart}", "--debug", "--wait", "--server-side=false", "--set", "message=three"),
    ("rollback", "r", "1", "--debug"),
    ("uninstall", "r", "--debug", "--wait"),
]


def _run(binary: list[str], args: tuple[str, ...], namespace: str, cluster: Any, chart: Path) -> tuple[int, str, str]:
    import os
    import subprocess

    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig)}
    command = [*binary, *(a.format(chart=chart) for a in args), "-n", namespace]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    return done.returncode, _clean(done.stdout, namespace), _clean(done.stderr, namespace)


def _clean(text: str, namespace: str) -> str:
    return re.sub(r"LAST DEPLOYED: .*", "LAST DEPLOYED: -", text.replace(namespace, "NS"))


def test_each_step_is_logged_as_helm_logs_it(cluster, tmp_path):
    from testbed.helm import helm_binary

    chart = write_chart(tmp_path, templates=TEMPLATES)
    namespaces = {}
    for who in ("helm", "ours"):
        namespaces[who] = f"debug-{who}-{tmp_path.name[-8:].lower().replace('_', '-')}"
        cluster.client().request("POST", "/api/v1/namespaces",
                                 body={"apiVersion": "v1", "kind": "Namespace",
                                       "metadata": {"name": namespaces[who]}})
    ours = [str(Path(sys.executable).parent / "deploy-runner")]
    for step in STEPS:
        theirs = _run([str(helm_binary())], step, namespaces["helm"], cluster, chart)
        mine = _run(ours, step, namespaces["ours"], cluster, chart)
        assert mine == theirs, step
        assert theirs[0] == 0 and "level=DEBUG" in theirs[2]


def test_without_debug_nothing_is_logged(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=TEMPLATES)
    code, out, err = _run([str(Path(sys.executable).parent / "deploy-runner")], ("install", "quiet", str(chart)),
                          namespace, cluster, chart)
    assert (code, err) == (0, "")
    assert "USER-SUPPLIED VALUES" not in out
