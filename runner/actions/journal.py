"""What one command (or one release of a spec's run) tells and captures while it works:
its messages, the hook output logs and the evidence of what failed, and the redactor
every captured line passes through.

A journal is made whole where the work starts: by the CLI for a command (where its
messages and hook logs are printed), by a spec's run for each release (its messages named
by the release, the run's one redactor). The services the work runs on (the cluster, the
release storage, the lock) are runner.actions.release_config's ActionConfig, which lives
as long as its connection and outlives journals (a run's releases, a warm Lambda's runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runner.release.redact import Redactor

if TYPE_CHECKING:
    from runner.actions.results import Evidence, HookLog, Message
    from runner.kube.wait import WaitProgress

DEFAULT_HOOK_LOG_LINES = 500


@dataclass
class Journal:
    on_message: Callable[[Message], None] | None = None  # told at once (the CLI prints)
    # Secret values to hide from logs, evidence and reports (runner.release.redact).
    redactor: Redactor = field(default_factory=Redactor)
    # Hook output logs (runner.actions.hook_logs): the proposal's HookOutputFunc,
    # (namespace, pod, container) -> a writer; None shows none (they are still captured).
    hook_output: Callable[[str, str, str], Any] | None = None
    hook_log_lines: int = DEFAULT_HOOK_LOG_LINES  # each container's last lines kept (0: all)
    live_hook_logs: bool = False  # follow hooks' logs as they run (a terminal is watching)
    messages: list[Message] = field(default_factory=list)  # everything told, in order
    hook_logs: list[HookLog] = field(default_factory=list)  # captured, in order
    evidence: list[Evidence] = field(default_factory=list)  # of what failed, in order

    def tell(self, kind: str, text: str, data: Any = None) -> None:
        # results' records are imported with the first message: a read command tells none.
        from runner.actions.results import Message

        message = Message(kind, text, data)
        self.messages.append(message)
        if self.on_message is not None:
            self.on_message(message)

    def warn(self, text: str) -> None:
        from runner.actions.results import WARNING

        self.tell(WARNING, text)

    def server_warning(self, text: str) -> None:
        """A warning of the API server, told as the line client-go logs for it in Helm."""
        from runner.actions.results import WARNING
        from runner.kube.warning_header import logged_line

        self.tell(WARNING, logged_line(text), text)

    def tell_progress(self, progress: WaitProgress) -> None:
        """A wait's progress (runner.kube.wait): told as data, with a line that sums it up.
        Only the start, the changes and the end are kept in `messages` (not every tick)."""
        from runner.actions.results import WAIT, Message

        message = Message(WAIT, progress.summary(), progress)
        if progress.stage != "tick":
            self.messages.append(message)
        if self.on_message is not None:
            self.on_message(message)

    def debug(self, message: str, **attrs: Any) -> None:
        """A step as Helm logs it at debug level (`--debug` shows it): slog's text line."""
        from runner.actions.results import DEBUG
        from runner.golang.slog import text_line

        self.tell(DEBUG, text_line("DEBUG", message, attrs))
