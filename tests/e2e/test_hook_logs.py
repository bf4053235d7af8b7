"""Hook output logs and failure evidence on the testbed, next to Helm 4.1.4.

Helm 4.1.4 writes an annotated hook's logs to stderr, one `level=INFO msg="..."`
line per container (main containers only, no header); we show them as the hook
output log proposal prints them, on stdout. Where Helm has the behaviour, every line
Helm shows must be in ours.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from runner.golang.strconv import unquote
from testbed.kwok_config import EXIT_CODE_ENV, LOG_ENV, RUNTIME_ANNOTATION
from tests.e2e.release_helpers import helm_part, ours, record
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

EVENTS = ("pre-install", "post-install", "pre-upgrade", "post-upgrade", "pre-rollback", "post-rollback",
          "test", "pre-delete", "post-delete")
REPO = Path(__file__).resolve().parents[2]


def hook_job(name: str, event: str, *, weight: int = 0, delete: str = "before-hook-creation",
             policy: str | None = "hook-succeeded", lines: str = "", init_lines: str | None = None,
             exit_code: int = 0, init_exit_code: int = 0, backoff: int = 0, annotations: str = "") -> str:
    """A hook Job whose container logs `lines` (`{name}: first/second` by default)."""
    lines = lines or f"{name}: first\\n{name}: second"
    policy_line = f'\n    "helm.sh/hook-output-log-policy": "{policy}"' if policy is not None else ""
    init = ""
    if init_lines is not None:
        init = (f"      initContainers:\n      - name: setup\n        image: busybox\n"
                f"        env: [{{name: {LOG_ENV}, value: \"{init_lines}\"}}, "
                f"{{name: {EXIT_CODE_ENV}, value: \"{init_exit_code}\"}}]\n")
    return f"""apiVersion: batch/v1
kind: Job
metadata:
  name: {{{{ .Release.Name }}}}-{name}
  annotations:
    "helm.sh/hook": {event}
    "helm.sh/hook-weight": "{weight}"
    "helm.sh/hook-delete-policy": {delete}{policy_line}
spec:
  backoffLimit: {backoff}
  template:
    metadata:
      annotations: {{{annotations}}}
    spec:
      restartPolicy: Never
{init}      containers:
      - name: main
        image: busybox
        env: [{{name: {LOG_ENV}, value: "{lines}"}}, {{name: {EXIT_CODE_ENV}, value: "{exit_code}"}}]
"""


def helm_lines(stderr: str) -> list[str]:
    """The log lines Helm 4.1.4 printed: one `level=INFO msg=...` per container (slog
    quotes a value with spaces, quotes or newlines)."""
    found: list[str] = []
    for line in stderr.splitlines():
        match = re.match(r'^level=INFO msg=(".*"|[^" ]+)$', line)
        if match:
            text, error = unquote(match.group(1)) if match.group(1).startswith('"') else (match.group(1), None)
            assert error is None, line
            found += text.splitlines()
    return found


def blocks(stdout: str) -> list[tuple[str, str, list[str]]]:
    """Our blocks: (pod, container, lines between the header and the footer)."""
    found = []
    for match in re.finditer(r"^Logs for pod: (\S+), container: (\S+)\n(.*?)^End of logs for pod: \1, container: "
                             r"\2 [^\n]*$", stdout, re.M | re.S):
        found.append((match.group(1), match.group(2), match.group(3).splitlines()))
    return found


def shown(stdout: str) -> list[str]:
    return [line for _, _, lines in blocks(stdout) for line in lines]


def assert_has_every_helm_line(ours_text: str, helm_stderr: str) -> None:
    mine, theirs = Counter(shown(ours_text)), Counter(helm_lines(helm_stderr))
    assert theirs, "Helm showed nothing to compare with"
    assert not theirs - mine, f"lines Helm shows that we do not: {theirs - mine}"


def hook_jobs(cluster, namespace: str, release: str) -> list[str]:
    items = cluster.client().request("GET", f"/apis/batch/v1/namespaces/{namespace}/jobs").body["items"]
    return sorted(j["metadata"]["name"].removeprefix(f"{release}-") for j in items
                  if j["metadata"]["name"].startswith(f"{release}-"))


def test_every_hook_event_shows_its_logs_in_weight_order_with_its_delete_policy(
        cluster, namespace, helm, tmp_path):
    policies = ("hook-succeeded", "before-hook-creation", "hook-failed")
    templates = {f"{event}.yaml": hook_job(event, event, weight=3, delete=policies[n % 3])
                 for n, event in enumerate(EVENTS)}
    templates["early.yaml"] = hook_job("z-early", "pre-install", weight=-2)  # weight before name
    templates["quiet.yaml"] = hook_job("quiet", "pre-install", policy=None)  # no annotation: nothing shown
    chart = write_chart(tmp_path, templates=templates)
    steps = [("install", "{r}", str(chart)), ("upgrade", "{r}", str(chart)), ("rollback", "{r}", "1"),
             ("test", "{r}"), ("uninstall", "{r}", "--keep-history")]

    for step in steps:
        mine = ours(cluster, namespace, *(a.format(r="o") for a in step), "--timeout", "60s")
        theirs = helm(*(a.format(r="h") for a in step), "-n", namespace, "--timeout", "60s")
        assert (mine.code, theirs.returncode) == (0, 0), (mine.err, theirs.stderr)
        assert_has_every_helm_line(mine.out, theirs.stderr)
        assert "quiet: first" not in mine.out + theirs.stderr
        assert hook_jobs(cluster, namespace, "o") == hook_jobs(cluster, namespace, "h"), step
        if step[0] == "install":
            assert [lines[0] for _, _, lines in blocks(mine.out)] == [
                "z-early: first", "pre-install: first", "post-install: first"]
            assert [pod.rsplit("-", 1)[0] for pod, _, _ in blocks(mine.out)] == [
                "o-z-early", "o-pre-install", "o-post-install"]


def test_a_failing_job_shows_its_init_container_and_every_retry(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates={"migrate.yaml": hook_job(
        "migrate", "pre-install", policy="hook-failed", backoff=2, lines="migrating\\nERROR: no such table",
        init_lines="waiting for the database\\ndatabase is up", exit_code=3)})

    mine = ours(cluster, namespace, "install", "o", str(chart), "--timeout", "60s", "--no-progress")
    theirs = helm("install", "h", str(chart), "-n", namespace, "--timeout", "60s")

    assert mine.code == 1 and theirs.returncode == 1
    assert mine.err.startswith("Error: INSTALLATION FAILED: failed pre-install: ")
    found = blocks(mine.out)
    assert [container for _, container, _ in found] == ["setup", "main"] * 3  # three tries: two retries
    assert len({pod for pod, _, _ in found}) == 3
    assert found[0][2] == ["waiting for the database", "database is up"]
    assert found[1][2] == ["migrating", "ERROR: no such table"]
    assert "(hook o-migrate, pre-install, demo/templates/migrate.yaml; container exit code 3, Error)" in mine.out
    assert_has_every_helm_line(mine.out, theirs.stderr)
    # The error carries the evidence, kept on the record too.
    assert "Evidence (captured when it failed" in mine.err
    assert "terminated, exit code 3 (Error)\n      | migrating\n      | ERROR: no such table" in mine.err
    assert "(evidence: Job/o-migrate Failed" in record(cluster, namespace, "o", 1)["info"]["description"]


@pytest.mark.parametrize("fails", [False, True], ids=["succeeding", "failing"])
def test_both_policies_show_the_logs_either_way(cluster, namespace, helm, tmp_path, fails):
    chart = write_chart(tmp_path, templates={"job.yaml": hook_job(
        "both", "pre-install", policy="hook-succeeded, hook-failed", exit_code=int(fails))})

    mine = ours(cluster, namespace, "install", "o", str(chart), "--timeout", "60s")
    theirs = helm("install", "h", str(chart), "-n", namespace, "--timeout", "60s")

    assert (mine.code, theirs.returncode) == (int(fails), int(fails))
    assert shown(mine.out) == ["both: first", "both: second"]
    assert_has_every_helm_line(mine.out, theirs.stderr)


def test_the_cap_keeps_the_tail_and_no_log_output_hides_everything(cluster, namespace, tmp_path):
    lines = "\\n".join(f"step {n}" for n in range(1, 11))
    chart = write_chart(tmp_path, templates={"job.yaml": hook_job("long", "pre-install", lines=lines)})

    capped = ours(cluster, namespace, "install", "c", str(chart), "--hook-log-lines", "3")
    hidden = ours(cluster, namespace, "install", "n", str(chart), "--no-log-output")

    assert capped.code == 0 and hidden.code == 0
    assert capped.out.splitlines()[:5] == [
        capped.out.splitlines()[0], "[7 earlier lines dropped: --hook-log-lines keeps the last 3]",
        "step 8", "step 9", "step 10"]
    assert "Logs for pod" not in hidden.out + hidden.err and "step" not in hidden.out + hidden.err


def test_a_canary_secret_never_reaches_the_output(cluster, namespace, tmp_path):
    canary = "canary-9f3a1c7e"
    encoded = base64.b64encode(f"user:{canary}".encode()).decode()
    chart = write_chart(tmp_path, templates={"job.yaml": hook_job(
        "leaky", "pre-install", lines=f"password is {canary}\\nbasic auth {encoded}")})
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text(f"db:\n  password: {canary}\n")

    mine = ours(cluster, namespace, "install", "s", str(chart), "--secret-values", str(secrets))

    assert mine.code == 0
    assert shown(mine.out) == ["password is [REDACTED]", "basic auth dXNlcjpj[REDACTED]"]
    assert canary not in mine.out + mine.err
    assert record(cluster, namespace, "s", 1)["config"] == {"db": {"password": canary}}  # still a value


def test_structured_output_stays_parseable_and_the_logs_go_to_stderr(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates={"job.yaml": hook_job("doc", "pre-install")})

    mine = ours(cluster, namespace, "install", "j", str(chart), "-o", "json")

    assert mine.code == 0
    assert json.loads(mine.out)["info"]["status"] == "deployed"
    assert shown(mine.err) == ["doc: first", "doc: second"]


def test_upgrade_rollback_on_failure_shows_why_the_failed_revision_failed(cluster, namespace, helm, tmp_path):
    good = write_chart(tmp_path, version="1.0.0")
    bad = write_chart(tmp_path, version="2.0.0")
    web = (bad / "templates" / "deploy.yaml").read_text()
    (bad / "templates" / "deploy.yaml").write_text(web.replace(
        "        image: nginx:1.25\n",
        f"        image: nginx:1.25\n        env: [{{name: {EXIT_CODE_ENV}, value: \"1\"}}, "
        f"{{name: {LOG_ENV}, value: \"FATAL: DATABASE_URL is not set\"}}]\n"))
    assert ours(cluster, namespace, "install", "u", str(good), "--wait", "--timeout", "60s").code == 0

    mine = ours(cluster, namespace, "upgrade", "u", str(bad), "--rollback-on-failure", "--timeout", "15s",
                "--no-progress")

    assert mine.code == 1
    helm_text, evidence = helm_part(mine.err)  # Helm's WARN log line and Error line, then ours
    assert helm_text.startswith('level=WARN msg="upgrade failed" name=u ')
    assert ("\nError: UPGRADE FAILED: release u failed, and has been rolled back due to "
            "rollback-on-failure being set: ") in helm_text
    assert "Deployment/u-web (waited on): InProgress" in evidence
    assert "container web: waiting (CrashLoopBackOff), restarts 1, last exit code 1" in evidence
    assert "      | FATAL: DATABASE_URL is not set" in evidence
    failed = record(cluster, namespace, "u", 2)["info"]
    assert failed["status"] == "failed" and "CrashLoopBackOff" in failed["description"]
    assert record(cluster, namespace, "u", 3)["info"]["description"] == "Rollback to 1"


PROPOSAL_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: "{{ .Release.Name }}-false-job"
  labels:
    app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
    app.kubernetes.io/instance: {{ .Release.Name | quote }}
    app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
    helm.sh/chart: "{{ .Chart.Name }}-{{ .Chart.Version }}"
  annotations:
    "helm.sh/hook": pre-install, pre-upgrade
    "helm.sh/hook-output-log-policy": hook-failed, hook-suceeded
    "helm.sh/hook-weight": "-5"
    "helm.sh/hook-delete-policy": hook-succeeded, hook-failed

spec:
  backoffLimit: 0
  template:
    metadata:
      name: "{{ .Release.Name }}"
      labels:
        app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
        app.kubernetes.io/instance: {{ .Release.Name | quote }}
        helm.sh/chart: "{{ .Chart.Name }}-{{ .Chart.Version }}"
    spec:
      restartPolicy: Never
      containers:
      - name: post-install-job
        image: "alpine:3.18"
        command: ["sh", "-c", "echo foo ; false"]
        env: [{name: TESTBED_LOG, value: "foo"}, {name: TESTBED_EXIT_CODE, value: "1"}]
"""


def _cli(cluster, *args: str, merged: bool = False) -> subprocess.CompletedProcess[str]:
    """Our CLI in a process of its own (stdout a pipe, as in CI); `merged`: stderr into stdout."""
    return subprocess.run([sys.executable, "-m", "runner.cli", *args, "--kubeconfig", str(cluster.kubeconfig)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                          text=True, cwd=REPO, timeout=120, check=False)


def test_the_proposals_example_chart(cluster, namespace, helm, tmp_path):
    """The proposal's example (its app.kubernetes.io/version quoted: unquoted, `1.0` is a
    number Helm refuses as a label): the logs on stdout, before the error."""
    chart = write_chart(tmp_path, templates={"job.yaml": PROPOSAL_JOB})

    # (--no-progress: what the wait for the hook shows on stderr would come first)
    merged = _cli(cluster, "install", "my-release", str(chart), "-n", namespace, "--no-progress", merged=True)
    theirs = helm("install", "other", str(chart), "-n", namespace)

    lines = merged.stdout.splitlines()
    assert re.fullmatch(r"Logs for pod: my-release-false-job-\w+, container: post-install-job", lines[0])
    assert lines[1] == "foo"
    error = next(n for n, line in enumerate(lines) if line.startswith("Error: "))
    assert lines[error].startswith("Error: INSTALLATION FAILED: failed pre-install: ")
    assert error > 1 and theirs.returncode == 1 and helm_lines(theirs.stderr) == ["foo"]
    assert theirs.stderr.splitlines()[-1].startswith("Error: INSTALLATION FAILED: failed pre-install: ")
    split = _cli(cluster, "install", "again", str(chart), "-n", namespace, "--no-progress")
    assert split.stdout.startswith("Logs for pod: again-false-job-") and split.stderr.startswith("Error: ")

    linted = _cli(cluster, "lint", str(chart))
    assert ('[WARNING] templates/job.yaml:12: unknown value "hook-suceeded" in annotation '
            'helm.sh/hook-output-log-policy') in linted.stdout


def test_a_terminal_sees_the_lines_while_the_hook_runs(cluster, namespace, tmp_path):
    """On a terminal, a hook that logs for four seconds shows its first line long before it ends."""
    import pty

    chart = write_chart(tmp_path, templates={"job.yaml": hook_job(
        "slow", "pre-install", policy="hook-succeeded,hook-failed", lines="line-1\\nline-2\\nline-3\\nline-4",
        annotations=f'"{RUNTIME_ANNOTATION}": "6s"')})
    main, child = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "runner.cli", "install", "t", str(chart), "-n", namespace,
                                "--kubeconfig", str(cluster.kubeconfig)], stdout=child, stderr=child,
                               cwd=REPO, env={**os.environ, "TERM": "dumb"})
    os.close(child)
    begun, seen, text = time.monotonic(), {}, ""
    while True:
        try:
            chunk = os.read(main, 4096).decode()
        except OSError:
            break  # the terminal closed: the command ended
        if not chunk:
            break
        text += chunk
        for line in text.split("\r\n"):
            seen.setdefault(line, time.monotonic() - begun)
    assert process.wait(timeout=60) == 0, text
    lines = text.split("\r\n")
    assert [line for line in lines if line.startswith("line-")] == ["line-1", "line-2", "line-3", "line-4"]
    assert seen["STATUS: deployed"] - seen["line-1"] >= 2.5, seen  # shown as written, not at the end


class _LogRequests:
    """The client's transport, noting each request for a pod's log (polled or followed)
    and each list or watch of pods."""

    def __init__(self, inner) -> None:
        self.inner, self.read, self.followed = inner, [], []
        self.pod_lists, self.pod_watches = [], []

    def request(self, method, path, query, headers, body):
        if "/log" in path:
            self.read.append(path)
        if path.endswith("/pods"):
            self.pod_lists.append(dict(query))
        return self.inner.request(method, path, query, headers, body)

    def stream(self, path, query, headers, read_timeout, deadline=float("inf")):
        if path.endswith("/log"):
            self.followed.append(dict(query))
        if path.endswith("/pods"):
            self.pod_watches.append(dict(query))
        return self.inner.stream(path, query, headers, read_timeout, deadline)

    def close(self) -> None:
        self.inner.close()


def test_a_running_hooks_lines_are_streamed_not_polled(cluster, namespace, tmp_path):
    """A library user on a terminal (live_hook_logs): a hook container logging for six
    seconds is followed by one log stream; its first line is shown while the hook still
    runs, and its log is read once more at the end only (the captured block)."""
    from runner.actions.install import install
    from runner.actions.journal import Journal
    from tests.e2e.release_helpers import config
    from tests.unit.actions.asking import asked

    chart = write_chart(tmp_path, templates={"job.yaml": hook_job(
        "slow", "pre-install", policy="hook-succeeded,hook-failed", lines="line-1\\nline-2\\nline-3\\nline-4",
        annotations=f'"{RUNTIME_ANNOTATION}": "6s"')})
    cfg = config(cluster, namespace)
    client = cfg.kube()
    recorder = client.transport = _LogRequests(client.transport)
    written: list[tuple[float, str]] = []

    class Writer:
        def write(self, text: str) -> None:
            written.append((time.monotonic(), text))

    journal = Journal(hook_output=lambda namespace, pod, container: Writer(), live_hook_logs=True)

    install(cfg, journal, *asked(name="s", chart=str(chart)))
    ended = time.monotonic()

    text = "".join(piece for _, piece in written)
    assert [line for line in text.splitlines() if line.startswith("line-")] == ["line-1", "line-2", "line-3", "line-4"]
    first = next(at for at, piece in written if "line-1" in piece)
    assert ended - first >= 2.5, text  # shown while the hook ran (it logs for 6 s), not at its end
    assert [query["follow"] for query in recorder.followed] == ["true"]
    assert recorder.followed[0]["container"] == "main"
    assert len(recorder.read) <= 2, recorder.read  # the block at the end (and its tail), no polling
    # Its pods are watched while it runs (one list, one watch), then listed for the block
    # at the end: not listed every second of the 6 s it ran.
    assert [query["labelSelector"] for query in recorder.pod_watches] == ["job-name=s-slow"], recorder.pod_watches
    assert len(recorder.pod_lists) <= 3, recorder.pod_lists
