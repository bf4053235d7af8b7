"""How the CLI shows a wait: fake progress in, the text a user reads out."""

from __future__ import annotations

import io

from runner.actions.results import WAIT, WARNING, Message
from runner.cli.pflag import Namespace
from runner.cli.progress import LiveProgress, LogProgress, MessagePrinter
from runner.kube.wait import Awaited, WaitProgress

WEB_WAITING = Awaited("Deployment", "ns", "web", "InProgress", "Available: 0/3", False)
WEB_READY = Awaited("Deployment", "ns", "web", "Current", "Deployment is available. Replicas: 3", True)
DB_WAITING = Awaited("StatefulSet", "ns", "db", "InProgress", "Ready: 1/2", False)
DB_READY = Awaited("StatefulSet", "ns", "db", "Current", "All replicas scheduled as expected.", True)
CM = Awaited("ConfigMap", "ns", "settings", "Current", "Resource is current", True)


def _progress(stage: str, elapsed: float, *awaited: Awaited, changed: tuple[Awaited, ...] = (),
              purpose: str = "ready", timeout: float = 300) -> WaitProgress:
    return WaitProgress(purpose, stage, elapsed, timeout, awaited, changed)


def _wait_messages() -> list[Message]:
    steps = [
        _progress("start", 0.4, CM, WEB_WAITING, DB_WAITING),
        _progress("tick", 1.4, CM, WEB_WAITING, DB_WAITING),
        _progress("change", 2.1, CM, WEB_READY, DB_WAITING, changed=(WEB_READY,)),
        _progress("tick", 9.9, CM, WEB_READY, DB_WAITING),
        _progress("tick", 10.9, CM, WEB_READY, DB_WAITING),
        _progress("tick", 11.9, CM, WEB_READY, DB_WAITING),
        _progress("change", 12.5, CM, WEB_READY, DB_READY, changed=(DB_READY,)),
        _progress("end", 12.5, CM, WEB_READY, DB_READY),
    ]
    return [Message(WAIT, p.summary(), p) for p in steps]


def test_without_a_terminal_a_line_per_change_and_a_summary_every_ten_seconds() -> None:
    out = io.StringIO()
    printer = MessagePrinter(out, LogProgress(out))
    for message in _wait_messages():
        printer(message)
    assert out.getvalue() == (
        "Waiting for 3 objects to be ready (0.4s of 5m00s): 2 not ready yet\n"
        "  Deployment/web: InProgress: Available: 0/3\n"
        "  StatefulSet/db: InProgress: Ready: 1/2\n"
        "[2.1s] Deployment/web: ready\n"
        "[10.9s] waiting for 1 of 3 objects to be ready (10.9s): StatefulSet/db (Ready: 1/2)\n"
        "[12.5s] StatefulSet/db: ready\n"
        "[12.5s] 3 objects ready after 12.5s\n")


def test_on_a_terminal_the_view_is_redrawn_in_place_and_replaced_by_one_line_at_the_end() -> None:
    out = io.StringIO()
    printer = MessagePrinter(out, LiveProgress(out, rows=10))
    messages = _wait_messages()
    printer(messages[0])
    assert out.getvalue() == ("Waiting for 3 objects to be ready (0.4s of 5m00s): 1/3 ready\n"
                              "  Deployment/web  InProgress: Available: 0/3\n"
                              "  StatefulSet/db  InProgress: Ready: 1/2\n")
    printer(messages[1])
    assert out.getvalue().endswith("\x1b[3F\x1b[J"
                                   "Waiting for 3 objects to be ready (1.4s of 5m00s): 1/3 ready\n"
                                   "  Deployment/web  InProgress: Available: 0/3\n"
                                   "  StatefulSet/db  InProgress: Ready: 1/2\n")
    for message in messages[2:]:
        printer(message)
    assert out.getvalue().endswith("Waiting for 3 objects to be ready (12.5s of 5m00s): 3/3 ready\n"
                                   "\x1b[1F\x1b[J3 objects ready after 12.5s\n")


def test_a_warning_during_a_live_view_goes_above_it() -> None:
    out = io.StringIO()
    printer = MessagePrinter(out, LiveProgress(out, rows=10))
    printer(_wait_messages()[0])
    out.truncate(0)
    out.seek(0)
    printer(Message(WARNING, "WARNING: something"))
    assert out.getvalue() == ("\x1b[3F\x1b[JWARNING: something\n"
                              "Waiting for 3 objects to be ready (0.4s of 5m00s): 1/3 ready\n"
                              "  Deployment/web  InProgress: Available: 0/3\n"
                              "  StatefulSet/db  InProgress: Ready: 1/2\n")


def test_a_long_list_is_cut_to_the_rows_it_may_take() -> None:
    out = io.StringIO()
    many = [Awaited("Pod", "ns", f"p{i}", "InProgress", "Pod phase is Pending", False) for i in range(8)]
    LiveProgress(out, rows=4).show(_progress("start", 1.0, *many, timeout=0))
    assert out.getvalue() == ("Waiting for 8 objects to be ready (1.0s): 0/8 ready\n"
                              "  p0  InProgress: Pod phase is Pending\n".replace("p0", "Pod/p0")
                              + "  Pod/p1  InProgress: Pod phase is Pending\n"
                              + "  and 6 more\n")


def test_hooks_and_deletions_say_what_they_wait_for() -> None:
    job = Awaited("Job", "ns", "migrate", "InProgress", "Job in progress", False)
    out = io.StringIO()
    LogProgress(out).show(_progress("start", 0.2, job, purpose="hook"))
    gone = Awaited("Job", "ns", "migrate", "NotFound", "Resource not found", True)
    LogProgress(out).show(_progress("change", 3, gone, changed=(gone,), purpose="deleted"))
    assert out.getvalue() == ("Waiting for hook Job/migrate to be complete (0.2s of 5m00s): 1 not complete yet\n"
                              "  Job/migrate: InProgress: Job in progress\n"
                              "[3.0s] Job/migrate: deleted\n")


def test_a_failed_object_and_a_timeout_read_as_such() -> None:
    failed = Awaited("Job", "ns", "migrate", "Failed", "Job Failed. failed: 1/1", True)
    out = io.StringIO()
    log = LogProgress(out)
    log.show(_progress("change", 4, failed, WEB_WAITING, changed=(failed,)))
    log.show(_progress("end", 300, failed, WEB_WAITING))
    assert out.getvalue() == ("[4.0s] Job/migrate: Failed: Job Failed. failed: 1/1\n"
                              "[5m00s] 1 of 2 objects not ready after 5m00s\n")


def test_progress_is_off_with_no_progress_and_with_data_output() -> None:
    from runner.cli.cluster import shows_progress

    assert shows_progress(Namespace(output="table", no_progress=False))
    assert not shows_progress(Namespace(output="table", no_progress=True))
    assert not shows_progress(Namespace(output="json", no_progress=False))
    assert not shows_progress(Namespace(output="yaml", no_progress=False))
    assert shows_progress(Namespace())  # uninstall: no -o
    out = io.StringIO()
    quiet = MessagePrinter(out, None)
    for message in [*_wait_messages(), Message(WARNING, "WARNING: kept")]:
        quiet(message)
    assert out.getvalue() == "WARNING: kept\n"


def test_lines_wider_than_the_terminal_are_cut_so_the_redraw_stays_in_place() -> None:
    out = io.StringIO()
    long = Awaited("Deployment", "ns", "web", "InProgress", "x" * 100, False)
    LiveProgress(out, rows=10, columns=40).show(_progress("start", 1.0, long, timeout=0))
    assert out.getvalue().splitlines() == ["Waiting for 1 object to be ready (1.0s…",
                                           "  Deployment/web  InProgress: xxxxxxxx…"]
    assert all(len(line) < 40 for line in out.getvalue().splitlines())
