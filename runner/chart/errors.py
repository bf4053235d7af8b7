"""Errors of the chart layer; messages keep Helm's wording."""

from __future__ import annotations

from runner.errors import RunnerError


class ChartError(RunnerError):
    """A chart cannot be loaded or is invalid (Chart.yaml, files, archive)."""


class ChartValidationError(ChartError):
    """Helm's chart.ValidationError: printed as `validation: <reason>`."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"validation: {reason}")
        self.reason = reason


class ArchiveError(ChartError):
    """A chart archive is malformed or unsafe to read."""


class ValuesError(RunnerError):
    """User values (-f, --set family) cannot be read or parsed."""


class SchemaError(RunnerError):
    """Values do not satisfy a chart's values.schema.json."""


class DependencyError(ChartError):
    """Chart dependencies cannot be processed (missing subchart, bad import-values)."""
