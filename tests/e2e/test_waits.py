"""Waits on the testbed: they react to readiness at once and show their progress in CI
logs; hooks wait as Helm 4.1.4's waiter for each --wait strategy; a timeout says why
(Helm's words, then ours)."""

from __future__ import annotations

import io
import re
import threading
import time
import uuid
from contextlib import redirect_stderr, redirect_stdout

import pytest

from runner.actions.evidence import HEADING
from tests.e2e.release_helpers import GADGET_CRD, Run, helm_part, ours, without_watch_ended
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

GADGET = """apiVersion: GROUP/v1
kind: Gadget
metadata:
  name: {{ .Release.Name }}-g
status:
  conditions: [{type: Ready, status: "False", message: not yet}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data: {a: b}
"""

HOOK_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    "helm.sh/hook": pre-install
spec:
  backoffLimit: 0
  ttlSecondsAfterFinished: {{ .Values.ttl }}
  template:
    metadata:
      labels: {testbed.deploy-runner/fail: {{ .Values.fail | quote }}}
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: busybox}]
"""

UNSCHEDULABLE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 2
  selector:
    matchLabels: {app: {{ .Release.Name }}-web}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}-web}
    spec:
      nodeSelector: {disk: ssd}
      containers: [{name: web, image: nginx}]
"""
# Helm's hook failures read `failed pre-install: ...` (p2-hooklogs adds the prefix; this
# compares what follows it).
PREFIX = "failed pre-install: "


class _Stamped(io.StringIO):
    """stderr that remembers when each line was written (time.monotonic())."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        for line in text.splitlines():
            self.lines.append((time.monotonic(), line))
        return super().write(text)


def test_a_wait_ends_within_a_second_of_readiness_and_logs_each_change(cluster, namespace, tmp_path):
    group = f"g{uuid.uuid4().hex[:8]}.example.com"
    chart = write_chart(tmp_path, templates={"g.yaml": GADGET.replace("GROUP", group)})
    (chart / "crds").mkdir()
    (chart / "crds" / "crd.yaml").write_text(GADGET_CRD.replace("GROUP", group))
    err, out, result = _Stamped(), io.StringIO(), []

    def install() -> None:
        from runner.cli import main

        with redirect_stdout(out), redirect_stderr(err):
            result.append(main(["install", "w", str(chart), "-n", namespace, "--kubeconfig",
                                str(cluster.kubeconfig), "--wait", "--timeout", "60s"]))

    worker = threading.Thread(target=install)
    worker.start()
    # The chart's CRD may be awaited first (its own "Waiting for 1 object to be
    # established" lines when the API server is slow to establish it): wait for the objects'.
    _until(lambda: any(line.startswith("Waiting for 2 objects") for _, line in err.lines))
    path = f"/apis/{group}/v1/namespaces/{namespace}/gadgets/w-g"
    client = cluster.client()
    gadget = client.checked("GET", path, "get gadget")
    gadget["status"] = {"conditions": [{"type": "Ready", "status": "True", "message": "up"}]}
    client.checked("PUT", path, "make the gadget ready", body=gadget)
    ready_at = time.monotonic()
    worker.join(30)
    assert result == [0], err.getvalue()
    ended_at = next(at for at, line in err.lines if re.fullmatch(r"\[[\d.]+s\] 2 objects ready after [\d.]+s", line))
    reaction = ended_at - ready_at
    print(f"the wait ended {reaction:.3f} s after the object became ready")
    assert reaction < 1.0
    objects_wait = err.getvalue()[err.getvalue().index("Waiting for 2 objects"):]
    text = re.sub(r"\d+\.\d+s", "Ts", objects_wait)
    assert text == ("Waiting for 2 objects to be ready (Ts of 1m00s): 1 not ready yet\n"
                    "  Gadget/w-g: InProgress: not yet\n"
                    "[Ts] Gadget/w-g: ready\n"
                    "[Ts] 2 objects ready after Ts\n")
    assert "STATUS: deployed" in out.getvalue()


def _until(condition, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


@pytest.mark.parametrize("wait", ["", "--wait=legacy", "--wait=watcher"])
@pytest.mark.parametrize("fail", ["false", "true"])
def test_hook_jobs_are_waited_for_as_helm_waits_for_each_strategy(cluster, namespace, helm, tmp_path, wait, fail):
    """A hook Job deleted as soon as it finishes (ttlSecondsAfterFinished: 0) counts as
    complete; a failing one fails the install in the words of the strategy's waiter."""
    chart = write_chart(tmp_path, templates={"job.yaml": HOOK_JOB},
                        values=f"ttl: {0 if fail == 'false' else 60}\nfail: {fail}\n")
    flags = [wait] if wait else []
    theirs = helm("install", "hrel", str(chart), "-n", namespace, "--timeout", "60s", *flags)
    mine = ours(cluster, namespace, "install", "orel", str(chart), "--timeout", "60s", "--no-progress", *flags)
    assert (mine.code, theirs.returncode) == ((1, 1) if fail == "true" else (0, 0)), (mine, theirs.stderr)
    if fail == "false":
        assert mine.err == theirs.stderr
        return
    helm_text, evidence = helm_part(mine.err.replace("orel", "hrel"))
    assert helm_text.replace(PREFIX, "") == theirs.stderr.replace(PREFIX, "")
    assert re.match(rf"{re.escape(HEADING)}\n  job/hrel-migrate: 0 of 1 completions, 1 failed; "
                    r"pod hrel-migrate-\w+: Error \(exit code 1\)\n", evidence), evidence


def test_a_timeout_names_each_unready_object_and_why(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates={"web.yaml": UNSCHEDULABLE})
    theirs = helm("install", "hrel", str(chart), "-n", namespace, "--wait", "--timeout", "3s")
    mine: Run = ours(cluster, namespace, "install", "orel", str(chart), "--wait", "--timeout", "3s",
                     "--no-progress")
    assert theirs.returncode == 1 and mine.code == 1
    helm_text, evidence = helm_part(mine.err.replace("orel", "hrel"))
    assert helm_text == theirs.stderr
    assert re.match(rf"{re.escape(HEADING)}\n  deployment/hrel-web: 0 of 2 replicas available; "
                    r"pods hrel-web-[\w-]+, hrel-web-[\w-]+: Unschedulable: "
                    r"0/\d+ nodes are available: \d+ node\(s\) didn't match Pod's node affinity/selector\..*\n",
                    evidence), evidence


HOOK_POD = """apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-check
  labels: {testbed.deploy-runner/fail: "true"}
  annotations: {"helm.sh/hook": pre-install}
spec:
  restartPolicy: Never
  containers: [{name: check, image: busybox}]
"""


@pytest.mark.parametrize("wait", ["", "--wait=legacy"])
def test_a_failing_hook_pod_fails_as_helm_says_for_the_strategy(cluster, namespace, helm, tmp_path, wait):
    chart = write_chart(tmp_path, templates={"pod.yaml": HOOK_POD})
    flags = [wait] if wait else []
    theirs = helm("install", "hrel", str(chart), "-n", namespace, "--timeout", "60s", *flags)
    mine = ours(cluster, namespace, "install", "orel", str(chart), "--timeout", "60s", "--no-progress", *flags)
    assert theirs.returncode == 1 and mine.code == 1
    helm_text, evidence = helm_part(mine.err.replace("orel", "hrel"))
    assert helm_text.replace(PREFIX, "") == without_watch_ended(theirs.stderr).replace(PREFIX, "")
    assert evidence.startswith(f"{HEADING}\n  pod/hrel-check: Error (exit code 1)\n"), evidence
