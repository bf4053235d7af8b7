"""The error a patch computation raises (messages as apimachinery words them)."""

from __future__ import annotations

from runner.errors import RunnerError


class PatchError(RunnerError):
    """The three documents cannot be diffed as the patch metadata says."""
