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
