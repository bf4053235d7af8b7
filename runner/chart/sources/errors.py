"""Errors of chart sources; messages keep Helm's wording."""

from __future__ import annotations

from runner.errors import RunnerError


class SourceError(RunnerError):
    """A chart cannot be found, fetched or resolved from a repository or registry."""
