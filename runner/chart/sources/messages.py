"""What chart-source work says while it runs: told to a callback, never printed here.

Helm's downloader, resolver and registry client write as they work: progress on
stdout (`Saving 2 charts`, `...Successfully got an update from ...`), and on
stderr the registry's `Pulled:` report and slog warnings (a version that falls
back to the closest one, an index entry skipped). Here every such line goes to
`say(kind, text)`, `text` without its newline: NOTICE for Helm's stdout,
WARNING for its stderr. The kinds and the signature are those of an action's
messages (runner.actions.results, Journal.tell), so an action can pass
`journal.tell`; the CLI prints them where Helm does (runner.cli.flags.print_said).
"""

from __future__ import annotations

from collections.abc import Callable

NOTICE = "notice"  # a line Helm prints on stdout
WARNING = "warning"  # a line Helm writes on stderr

Say = Callable[[str, str], None]


def quiet(kind: str, text: str) -> None:
    """A `say` that keeps nothing, for a caller that has nowhere to show it."""
