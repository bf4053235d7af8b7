"""What the reliability campaign's tests share: the profile (quick or full), the chart
they deploy, the CLI in a child process (so it can be killed), checks that every record
is one Helm reads, the canary, and the figures printed at the end.

Profile: `make test` runs the quick one; RELIABILITY=full (`make reliability`) the full
one, with the counts of `FULL` below.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.fixtures import CONFIG_MAP

FULL = os.environ.get("RELIABILITY", "").lower() == "full"
# A value every deploying run of the campaign passes (--set-string, into a Secret): it must
# appear in no output, error, log or cache file (checked when the campaign ends, conftest.py).
CANARY = "canary-7d1f0c9e-b2a4-4d51-9a86-3f0e5c2b8a17"
CANARY_SET = ("--set-string", f"secret.token={CANARY}")
PENDING = "another operation (install/upgrade/rollback) is in progress"
RUN_TIMEOUT_SECONDS = 300


def scale(quick: int, full: int) -> int:
    return full if FULL else quick


@dataclass
class Figures:
    """The counts the report quotes, by campaign part."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, part: str, what: str, n: int = 1) -> None:
        self.counts.setdefault(part, Counter())[what] += n

    def lines(self) -> list[str]:
        return [f"{part}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                for part, c in sorted(self.counts.items())]


FIGURES = Figures()


@dataclass
class Outputs:
    """Every output and error text of our CLI in the campaign, for the canary check."""

    texts: list[tuple[str, str]] = field(default_factory=list)  # (what ran, text)

    def add(self, what: str, *texts: str) -> None:
        self.texts.extend((what, t) for t in texts if t)


OUTPUTS = Outputs()

# The chart of the chaos parts: a pre-install/pre-upgrade hook Job (waited for), a
# Deployment that is Available only after `settle` seconds (so --wait takes that long),
# a ConfigMap, the canary in a Secret, a post-upgrade hook ConfigMap.
TEMPLATES = {
    "cm.yaml": CONFIG_MAP,
    "secret.yaml": """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
data:
  token: {{ .Values.secret.token | b64enc | quote }}
""",
    "deploy.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 1
  minReadySeconds: {{ .Values.settle }}
  selector:
    matchLabels: {app: {{ .Release.Name }}-web}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}-web}
      annotations: {message: {{ .Values.message | quote }}}
    spec:
      containers: [{name: web, image: nginx:1.25}]
""",
    "pre-hook.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: busybox}]
""",
    "post-hook.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-post
  annotations:
    "helm.sh/hook": post-install,post-upgrade
    "helm.sh/hook-delete-policy": before-hook-creation
data:
  message: {{ .Values.message | quote }}
""",
    "NOTES.txt": "{{ .Release.Name }} is at revision {{ .Release.Revision }}.\n",
}
VALUES = "message: hello\nsettle: 2\nsecret:\n  token: none\n"
CM_ONLY = {"cm.yaml": TEMPLATES["cm.yaml"], "secret.yaml": TEMPLATES["secret.yaml"]}


def write_chart(root: Path, name: str = "chaos", templates: dict[str, str] | None = None) -> Path:
    chart = root / name
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 1.0.0\n")
    (chart / "values.yaml").write_text(VALUES)
    for file, text in (TEMPLATES if templates is None else templates).items():
        (chart / "templates" / file).write_text(text)
    return chart


# -- our CLI, in a child process ---------------------------------------------------------


def cli_env(home: Path) -> dict[str, str]:
    """The environment of every campaign run: its caches and state under `home` (scanned
    for the canary at the end), nothing of the user's."""
    return {**os.environ, "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
            "HELM_CONFIG_HOME": str(home / "helm-config"), "HELM_CACHE_HOME": str(home / "helm-cache"),
            "HELM_DATA_HOME": str(home / "helm-data")}


def cli_command(kubeconfig: Path, namespace: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "runner.cli", *args, "-n", namespace, "--kubeconfig", str(kubeconfig)]


@dataclass
class Done:
    code: int
    out: str
    err: str


def run(home: Path, kubeconfig: Path, namespace: str, *args: str, timeout: float = RUN_TIMEOUT_SECONDS) -> Done:
    """Our CLI to the end; its output is kept for the canary check."""
    proc = subprocess.run(cli_command(kubeconfig, namespace, *args), env=cli_env(home),
                          capture_output=True, text=True, timeout=timeout, check=False)
    OUTPUTS.add(" ".join(args), proc.stdout, proc.stderr)
    return Done(proc.returncode, proc.stdout, proc.stderr)


def start(home: Path, kubeconfig: Path, namespace: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(cli_command(kubeconfig, namespace, *args), env=cli_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str], what: str, timeout: float = RUN_TIMEOUT_SECONDS) -> Done:
    out, err = process.communicate(timeout=timeout)
    OUTPUTS.add(what, out, err)
    return Done(process.returncode, out, err)


def interrupt_after(process: subprocess.Popen[str], seconds: float, signum: int) -> bool:
    """Send `signum` after `seconds` unless the run ended first (False then)."""
    try:
        process.wait(timeout=seconds)
        return False
    except subprocess.TimeoutExpired:
        process.send_signal(signum)
        return True


def is_python_crash(text: str) -> bool:
    return "Traceback (most recent call last)" in text or "internal error" in text


# -- the records, as Helm reads them ---------------------------------------------------


def storage(cluster: Any, namespace: str) -> Any:
    from runner.actions.release_config import ActionConfig

    return ActionConfig.connect(namespace, str(cluster.kubeconfig)).storage


def record_secrets(cluster: Any, namespace: str, release: str) -> dict[int, bytes]:
    """revision -> the stored record (raw), every one of `release`'s Secrets."""
    reply = cluster.client().request(
        "GET", f"/api/v1/namespaces/{namespace}/secrets",
        query=[("labelSelector", f"owner=helm,name={release}")])
    assert reply.ok, reply.body
    return {int(s["metadata"]["labels"]["version"]): s["data"]["release"].encode()
            for s in reply.body.get("items") or []}


def helm_reads_every_record(cluster: Any, helm: Any, namespace: str, release: str,
                            checked: set[bytes] | None = None) -> list[str]:
    """Every revision decoded by Helm (`helm get manifest --revision N`; those in `checked`,
    unchanged since, are not asked again) and listed by `helm history`; returns the
    statuses, newest first. Fails on a record Helm cannot read."""
    import json

    checked = set() if checked is None else checked
    records = record_secrets(cluster, namespace, release)
    for revision, raw in sorted(records.items()):
        if raw in checked:
            continue
        got = helm("get", "manifest", release, "--revision", str(revision), "-n", namespace)
        assert got.returncode == 0, f"helm cannot read {release} revision {revision}: {got.stderr}"
        checked.add(raw)
        FIGURES.add("records", "read by helm")
    listed = helm("history", release, "-n", namespace, "--max", "100000", "-o", "json")
    if not records:  # none written (an install stopped before its record), or all uninstalled
        assert listed.stderr == "Error: release: not found\n", listed.stderr
        return []
    assert listed.returncode == 0, listed.stderr
    history = json.loads(listed.stdout)
    assert sorted(h["revision"] for h in history) == sorted(records), (history, sorted(records))
    return [h["status"] for h in sorted(history, key=lambda h: -h["revision"])]


def contiguous(revisions: list[int]) -> bool:
    return sorted(revisions) == list(range(min(revisions), max(revisions) + 1))


def age_lease(cluster: Any, namespace: str, release: str, seconds: float = 3600) -> bool:
    """What waiting for a dead holder's Lease to expire does, at once: its renewTime moved
    `seconds` back. False when there is no Lease (the run died before taking it, or after
    giving it back)."""
    from runner.kube.lease import LEASE_PATH, lease_name, micro_time

    client = cluster.client()
    path = f"{LEASE_PATH.format(ns=namespace)}/{lease_name(release)}"
    reply = client.request("GET", path)
    if reply.status == 404:
        return False
    spec = reply.body["spec"]
    spec["renewTime"] = micro_time(datetime.now(UTC) - timedelta(seconds=seconds))
    put = client.request("PUT", path, body=reply.body)
    assert put.ok, put.body
    return True


def lease_holder(cluster: Any, namespace: str, release: str) -> str | None:
    from runner.kube.lease import lock_state

    state = lock_state(cluster.client(), namespace, release)
    return None if state is None else str(state.get("holderIdentity") or "")


def wait_for(condition: Any, timeout: float, what: str, interval: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def strip_ages(text: str) -> str:
    return re.sub(r"\s+\d+[smhd](\d+[sm])?$", "", text, flags=re.M)


SIGNAL_NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM", signal.SIGKILL: "SIGKILL"}


def helm_runner(kubeconfig: Path, home: Path) -> Any:
    """Helm 4.1.4 against the cluster of `kubeconfig` (as conftest's `helm` fixture)."""
    from testbed.helm import helm_binary

    binary = helm_binary()
    env = {**cli_env(home), "KUBECONFIG": str(kubeconfig)}

    def helm(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(binary), *args], env=env, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_SECONDS, check=False)

    return helm


def create_namespace(cluster: Any, name: str) -> str:
    reply = cluster.client().request("POST", "/api/v1/namespaces",
                                     body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    assert reply.ok, reply.body
    return name
