"""What an action tells while it runs, as the CLI prints it (runner.cli.cluster.message_printer)."""

from __future__ import annotations

import pytest

from runner.actions.results import DEBUG, NOTICE, PROGRESS, WARNING, Message
from runner.cli.cluster import message_printer


def _tell_all(printer) -> None:
    for kind, text in ((WARNING, "level=WARN msg=w"), (DEBUG, "level=DEBUG msg=d"),
                       (NOTICE, "Release x has been cancelled."), (PROGRESS, "waiting for the lock")):
        printer(Message(kind, text))


def test_debug_lines_only_with_debug_and_notices_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    _tell_all(message_printer(debug=False))
    assert capsys.readouterr() == ("Release x has been cancelled.\n",
                                   "level=WARN msg=w\nwaiting for the lock\n")
    _tell_all(message_printer(debug=True))
    assert capsys.readouterr() == ("Release x has been cancelled.\n",
                                   "level=WARN msg=w\nlevel=DEBUG msg=d\nwaiting for the lock\n")


def test_run_names_each_release_and_leaves_out_ticks_and_debug_lines(capsys: pytest.CaptureFixture[str]) -> None:
    from runner.actions.results import WAIT
    from runner.cli.run import release_messages
    from runner.kube.wait import Awaited, WaitProgress

    web = (Awaited("Deployment", "ns", "web", "InProgress", "Available: 0/1", False),)
    tell = release_messages(lambda text: text.replace("s3cret", "***"), debug=False)
    for stage in ("start", "tick", "end"):
        progress = WaitProgress("ready", stage, 1.0, 60.0, web)
        tell("apps/web", Message(WAIT, progress.summary(), progress))
    tell("apps/web", Message(DEBUG, "level=DEBUG msg=d"))
    tell("apps/web", Message(WARNING, "token s3cret"))
    assert capsys.readouterr().err == (
        "apps/web: waiting for 1 of 1 object to be ready (1.0s): Deployment/web (Available: 0/1)\n"
        "apps/web: 1 of 1 object not ready after 1.0s\n"
        "apps/web: token ***\n")
