"""Lint messages and the linter that collects them (Helm's pkg/chart/v2/lint/support)."""

from __future__ import annotations

from dataclasses import dataclass, field

UNKNOWN, INFO, WARNING, ERROR = 0, 1, 2, 3
SEVERITY_NAMES = ("UNKNOWN", "INFO", "WARNING", "ERROR")


@dataclass(frozen=True)
class Message:
    """One finding: `[SEVERITY] path: text` when printed."""

    severity: int
    path: str
    text: str

    def __str__(self) -> str:
        return f"[{SEVERITY_NAMES[self.severity]}] {self.path}: {self.text}"


@dataclass
class Linter:
    """A linting run of one chart directory: messages in the order rules ran."""

    chart_dir: str
    messages: list[Message] = field(default_factory=list)
    highest_severity: int = UNKNOWN

    def run_rule(self, severity: int, path: str, error: str | None) -> bool:
        """Record `error` (if any) at `severity`; True when the rule passed."""
        if error is None:
            return True
        self.messages.append(Message(severity, path, error))
        self.highest_severity = max(self.highest_severity, severity)
        return False
