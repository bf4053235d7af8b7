"""What `run` prints of what its releases tell: each line after its release, redacted,
Helm's debug lines only with --debug (both for a local run and inside GitHub Actions)."""

from __future__ import annotations

import pytest

from runner.actions.results import DEBUG, WARNING, Message
from runner.cli.run import release_messages
from runner.release.redact import Redactor


@pytest.mark.parametrize("debug", [False, True])
def test_debug_lines_only_with_debug(capsys: pytest.CaptureFixture[str], debug: bool) -> None:
    tell = release_messages(Redactor(["s3cret"]).redact, debug=debug)
    tell("shop/web", Message(WARNING, "token s3cret is old"))
    tell("shop/web", Message(DEBUG, 'level=DEBUG msg="preparing upgrade"'))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "shop/web: token [REDACTED] is old"
    assert lines[1:] == (['shop/web: level=DEBUG msg="preparing upgrade"'] if debug else [])
