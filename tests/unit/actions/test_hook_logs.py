"""Hook output logs over the fake cluster: what a user reads (the writer's text) and
what a report gets (the captured data), for each policy and each way a hook ends."""

from __future__ import annotations

import base64
import io
import time

import pytest

from runner.actions import hook_logs
from runner.actions.install import install
from runner.errors import RunnerError
from runner.release.redact import MASK
from tests.unit.actions.asking import asked

FAILED_RUN = {"terminated": {"exitCode": 1, "reason": "Error"}}
DONE = {"terminated": {"exitCode": 0, "reason": "Completed"}}
NOT_STARTED = {"waiting": {"reason": "PodInitializing"}}


def job(policy: str | None, delete: str = "before-hook-creation", name: str = "migrate") -> dict[str, str]:
    annotation = f'\n    "helm.sh/hook-output-log-policy": "{policy}"' if policy is not None else ""
    return {f"{name}.yaml": f"""apiVersion: batch/v1
kind: Job
metadata:
  name: {{{{ .Release.Name }}}}-{name}
  annotations:
    "helm.sh/hook": pre-install
    "helm.sh/hook-delete-policy": {delete}{annotation}
spec:
  template:
    spec:
      containers: [{{name: main, image: busybox}}]
"""}


class Output:
    """A HookOutputFunc writing to one buffer, remembering whom it was asked for."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()
        self.asked: list[tuple[str, str, str]] = []

    def __call__(self, namespace: str, pod: str, container: str) -> io.StringIO:
        self.asked.append((namespace, pod, container))
        return self.buffer

    @property
    def text(self) -> str:
        return self.buffer.getvalue()


@pytest.fixture
def output(cfg, journal):
    journal.hook_output = Output()
    return journal.hook_output


def _install(cfg, journal, path, **flags):
    return install(cfg, journal, *asked(name="app", chart=path, **flags))


def test_a_failing_job_shows_every_try_init_containers_first_before_its_error(cfg, journal, fake, chart, output):
    tries = [{"name": f"app-migrate-{n}", "init": [("wait-db", DONE, f"db up ({n})\n")],
              "containers": [("main", FAILED_RUN, f"migrating\nfailed ({n})\n")],
              "created": f"2026-01-01T00:00:0{n}Z"} for n in (1, 2, 3)]
    fake.run_hook("Job/app-migrate", *tries)
    fake.fail("hook", "Job/app-migrate", "job failed: BackoffLimitExceeded")

    with pytest.raises(RunnerError, match="^failed pre-install: job failed: BackoffLimitExceeded"):
        _install(cfg, journal, chart(templates=job("hook-failed, hook-succeeded", delete="hook-failed")))

    blocks = [block for block in output.text.split("Logs for pod: ") if block]
    assert [block.splitlines()[0] for block in blocks] == [
        f"app-migrate-{n}, container: {c}" for n in (1, 2, 3) for c in ("wait-db", "main")]
    assert blocks[1].splitlines()[1:] == [
        "migrating", "failed (1)",
        "End of logs for pod: app-migrate-1, container: main "
        "(hook app-migrate, pre-install, app/templates/migrate.yaml; container exit code 1, Error)"]
    assert "(hook app-migrate, pre-install, app/templates/migrate.yaml; init container exit code 0, Completed)" \
        in blocks[0]
    assert [(log.pod, log.container, log.init, log.outcome, log.lines) for log in journal.hook_logs][:2] == [
        ("app-migrate-1", "wait-db", True, "failed", ["db up (1)"]),
        ("app-migrate-1", "main", False, "failed", ["migrating", "failed (1)"])]
    assert fake.get("Job", "app-migrate") is None  # the delete policy ran: after the capture


def test_the_logs_are_read_before_the_delete_policy_takes_the_pods(cfg, journal, fake, chart, output):
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", DONE, "done\n")]})

    _install(cfg, journal, chart(templates=job("hook-succeeded", delete="hook-succeeded")))

    assert "done\nEnd of logs for pod: app-migrate-1, container: main" in output.text
    assert fake.names("Pod") == []  # deleted with their Job afterwards


@pytest.mark.parametrize(("policy", "fails", "shown"), [
    ("hook-succeeded", False, True), ("hook-succeeded", True, False),
    ("hook-failed", True, True), ("hook-failed", False, False),
    ("hook-failed,hook-succeeded", False, True), ("hook-failed, hook-succeeded", True, True),
    ("hook-failed, hook-suceeded", False, False),  # the proposal's misspelling: ignored, as Helm ignores it
    (None, True, False), (None, False, False),
])
def test_logs_are_shown_only_for_an_outcome_the_policy_lists(cfg, journal, fake, chart, output, policy, fails, shown):
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", DONE, "hello\n")]})
    if fails:
        fake.fail("hook", "Job/app-migrate", "job failed")

    try:
        _install(cfg, journal, chart(templates=job(policy)))
    except RunnerError:
        assert fails

    assert ("Logs for pod: app-migrate-1, container: main\nhello\n" in output.text) is shown
    assert bool(journal.hook_logs) is shown


def test_the_result_carries_the_logs_as_data(cfg, journal, fake, chart):
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", DONE, "ok\n")]})

    result = _install(cfg, journal, chart(templates=job("hook-succeeded")))

    [log] = result.hook_logs
    assert (log.hook, log.event, log.path, log.kind, log.pod, log.container, log.lines, log.truncated,
            log.outcome, log.exit_code) == ("app-migrate", "pre-install", "app/templates/migrate.yaml", "Job",
                                            "app-migrate-1", "main", ["ok"], False, "succeeded", 0)


def test_without_an_output_function_nothing_is_written_but_the_logs_are_kept(cfg, journal, fake, chart):
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", DONE, "ok\n")]})
    assert journal.hook_output is None  # --no-log-output

    result = _install(cfg, journal, chart(templates=job("hook-succeeded")))

    assert [log.lines for log in result.hook_logs] == [["ok"]]


def test_a_long_log_keeps_its_tail_and_says_how_many_lines_were_dropped(cfg, journal, fake, chart, output):
    text = "".join(f"line {n}\n" for n in range(1, 1001))
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", DONE, text)]})
    journal.hook_log_lines = 10

    _install(cfg, journal, chart(templates=job("hook-succeeded")))

    lines = output.text.splitlines()
    assert lines[1] == "[990 earlier lines dropped: --hook-log-lines keeps the last 10]"
    assert lines[2:12] == [f"line {n}" for n in range(991, 1001)]
    assert (journal.hook_logs[0].truncated, journal.hook_logs[0].dropped) == (True, 990)


def test_secret_values_never_reach_the_output_or_the_data(cfg, journal, fake, chart, output):
    canary = "canary-pw-8d1f"
    text = f"connecting as admin:{canary}\nauth {base64.b64encode(f'admin:{canary}'.encode()).decode()}\n"
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", DONE, text)]})

    _install(cfg, journal, chart(templates=job("hook-succeeded")), secret_values=[{"db": {"password": canary}}])

    assert canary not in output.text and "Y2FuYXJ5" not in output.text
    assert f"connecting as admin:{hook_logs_mask()}" in output.text
    assert all(canary not in line for log in journal.hook_logs for line in log.lines)


def hook_logs_mask() -> str:
    return MASK


def test_a_container_that_never_started_says_why(cfg, journal, fake, chart, output):
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "init": [("wait-db", FAILED_RUN, "no db\n")],
                                      "containers": [("main", NOT_STARTED, "")]})
    fake.fail("hook", "Job/app-migrate", "job failed")

    with pytest.raises(RunnerError):
        _install(cfg, journal, chart(templates=job("hook-failed")))

    assert ("Logs for pod: app-migrate-1, container: main\n"
            '(container "main" in pod "app-migrate-1" is waiting to start: PodInitializing)\n'
            "End of logs for pod: app-migrate-1, container: main (hook app-migrate, pre-install, "
            "app/templates/migrate.yaml; container did not start (PodInitializing))") in output.text


def test_a_hook_whose_pods_are_gone_says_so(cfg, journal, fake, chart, output):
    fake.run_hook("Job/app-migrate")  # e.g. ttlSecondsAfterFinished: 0 took them

    _install(cfg, journal, chart(templates=job("hook-succeeded")))

    assert output.text == ("No logs for hook app-migrate (pre-install, app/templates/migrate.yaml): no pod of "
                           "Job/app-migrate is left to read them from (deleted before they could be read, "
                           "or never started)\n")
    assert output.asked == [("ns", "", "")]
    assert journal.hook_logs[0].pod == "" and journal.hook_logs[0].note.startswith("No logs for hook app-migrate")


def test_only_the_jobs_own_pods_are_read_not_an_earlier_runs(cfg, journal, fake, chart, output):
    fake.add_pod("app-migrate-old", [("main", DONE, "old run\n")], labels={"job-name": "app-migrate"},
                 owner_uid="uid-of-a-deleted-job")
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-new", "containers": [("main", DONE, "new run\n")]})

    _install(cfg, journal, chart(templates=job("hook-succeeded")))

    assert "new run" in output.text and "old run" not in output.text


def _until(condition, what: str) -> None:
    """Wait (generously) for a follower thread to have done something."""
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


def _live_install(cfg, journal, fake, chart, monkeypatch, while_running, policy="hook-succeeded,hook-failed"):
    """Install a Job hook on a terminal; `while_running()` runs while the hook's watch waits."""
    journal.live_hook_logs = True

    def watch(resources, timeout, strategy="hookOnly"):
        while_running()

    monkeypatch.setattr(fake, "watch_hook", watch)
    return _install(cfg, journal, chart(templates=job(policy)))


def test_live_logs_are_streamed_and_not_repeated_when_the_hook_ends(cfg, journal, fake, chart, output, monkeypatch):
    """On a terminal, each line shows as the container writes it, through one follow
    stream (no polling of the log); the block at the end adds only the footer."""
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", {"running": {}}, "one\n")]})
    seen = []

    def while_running():
        _until(lambda: "one" in output.text, "the first line shown")
        fake.write_log("app-migrate-1", "main", "tw")
        fake.write_log("app-migrate-1", "main", "o\nthr")  # a line comes in pieces: shown whole
        _until(lambda: "two" in output.text, "the second line shown")
        seen.append(output.text)
        fake.end_container("app-migrate-1", "main", DONE)

    _live_install(cfg, journal, fake, chart, monkeypatch, while_running)

    assert seen == ["Logs for pod: app-migrate-1, container: main\none\ntwo\n"]
    assert output.text == ("Logs for pod: app-migrate-1, container: main\none\ntwo\nthr\n"
                           "End of logs for pod: app-migrate-1, container: main (hook app-migrate, pre-install, "
                           "app/templates/migrate.yaml; container exit code 0, Completed)\n")
    assert fake.follows == [("app-migrate-1", "main")]
    assert fake.log_requests == [("app-migrate-1", "main", None)]  # the capture at the end, once
    assert journal.hook_logs[0].lines == ["one", "two", "thr"]


def test_live_lines_are_redacted(cfg, journal, fake, chart, output, monkeypatch):
    canary = "s3cr3t-canary"
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", {"running": {}}, "")]})
    seen = []

    def while_running():
        fake.write_log("app-migrate-1", "main", f"connecting with {canary}\n")
        _until(lambda: "connecting" in output.text, "the line shown")
        seen.append(output.text)
        fake.end_container("app-migrate-1", "main", DONE)

    journal.live_hook_logs = True
    monkeypatch.setattr(fake, "watch_hook", lambda resources, timeout, strategy="hookOnly": while_running())
    _install(cfg, journal, chart(templates=job("hook-succeeded,hook-failed")),
             secret_values=[{"db": {"password": canary}}])

    assert seen == [f"Logs for pod: app-migrate-1, container: main\nconnecting with {MASK}\n"]
    assert canary not in output.text


def test_each_container_is_followed_once_it_starts(cfg, journal, fake, chart, output, monkeypatch):
    """An init container first; the main one is followed as soon as the watch of the
    hook's pods reports it started, a new header telling whose lines come next."""
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "init": [("setup", {"running": {}}, "setting up\n")],
                                      "containers": [("main", NOT_STARTED, "")]})

    def while_running():
        _until(lambda: "setting up" in output.text, "the init container's line")
        fake.end_container("app-migrate-1", "setup", DONE)
        fake.end_container("app-migrate-1", "main", {"running": {}})
        fake.write_log("app-migrate-1", "main", "migrating\n")
        _until(lambda: "migrating" in output.text, "the main container's line")
        fake.end_container("app-migrate-1", "main", DONE)

    _live_install(cfg, journal, fake, chart, monkeypatch, while_running)

    assert output.text.startswith("Logs for pod: app-migrate-1, container: setup\nsetting up\n"
                                  "Logs for pod: app-migrate-1, container: main\nmigrating\n")
    assert fake.follows == [("app-migrate-1", "setup"), ("app-migrate-1", "main")]


def test_a_running_hooks_pods_are_watched_not_listed_and_a_retry_is_followed_at_once(
        cfg, journal, fake, chart, output, monkeypatch):
    """While the hook runs its pods are watched (one watch, no list): a Job's next try
    is followed as soon as it is reported. Only the capture at the end lists them."""
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", {"running": {}}, "one\n")]})
    listed, took = [], []

    def while_running():
        _until(lambda: "one" in output.text, "the first try's line")
        fake.end_container("app-migrate-1", "main", FAILED_RUN)
        begun = time.monotonic()
        fake.add_pod("app-migrate-2", [("main", {"running": {}}, "two\n")], labels={"job-name": "app-migrate"},
                     owner_uid=fake.get("Job", "app-migrate")["metadata"]["uid"], created="2026-01-01T00:00:09Z")
        _until(lambda: "two" in output.text, "the retry's line")
        took.append(time.monotonic() - begun)
        time.sleep(1.5)  # a hook that runs on: polling (every second) would have listed by now
        listed.append(fake.pod_lists)
        fake.end_container("app-migrate-2", "main", DONE)

    _live_install(cfg, journal, fake, chart, monkeypatch, while_running)

    assert listed == [0]
    assert fake.pod_watches == [("ns", "job-name=app-migrate", "")]
    assert fake.follows == [("app-migrate-1", "main"), ("app-migrate-2", "main")]
    assert took[0] < 1.0  # reported at once (asserted generously: a slow machine)
    assert fake.pod_lists == 1  # the capture at the end


def test_a_stream_that_drops_is_opened_again_without_repeating(cfg, journal, fake, chart, output, monkeypatch):
    monkeypatch.setattr(hook_logs, "REFOLLOW_SECONDS", 0.01)
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", {"running": {}}, "one\n")]})
    opened = []
    follow = fake.follow_log

    def dropping(namespace, pod, container):
        stream = follow(namespace, pod, container)
        opened.append(stream)
        return stream

    monkeypatch.setattr(fake, "follow_log", dropping)

    def while_running():
        _until(lambda: "one" in output.text, "the first line")
        opened[0].close()  # the connection drops; the container still runs
        _until(lambda: len(opened) == 2, "the stream opened again")
        fake.write_log("app-migrate-1", "main", "two\n")
        _until(lambda: "two" in output.text, "the next line")
        fake.end_container("app-migrate-1", "main", DONE)

    _live_install(cfg, journal, fake, chart, monkeypatch, while_running)

    assert output.text.count("one\n") == 1 and output.text.count("two\n") == 1
    assert output.text.count("Logs for pod:") == 1


def test_an_interrupted_hook_leaves_no_stream_open(cfg, journal, fake, chart, output, monkeypatch):
    fake.run_hook("Job/app-migrate", {"name": "app-migrate-1", "containers": [("main", {"running": {}}, "one\n")]})
    opened = []
    follow = fake.follow_log
    monkeypatch.setattr(fake, "follow_log", lambda *args: opened.append(follow(*args)) or opened[-1])

    def while_running():
        _until(lambda: "one" in output.text, "the first line")
        raise KeyboardInterrupt

    with pytest.raises(RunnerError, match="context canceled"):
        _live_install(cfg, journal, fake, chart, monkeypatch, while_running)

    assert [stream.closed for stream in opened] == [True]


def test_a_hook_that_lists_one_outcome_is_not_followed_live(cfg, journal, fake, chart, output):
    journal.live_hook_logs = True
    observer = hook_logs.HookObserver(journal, fake)
    hook = type("H", (), {"output_log_policies": ["hook-failed"], "kind": "Job"})()

    observer.started(hook, "pre-install", [])

    assert observer._live is None
