"""The GitHub Actions runtime around a run: workflow commands on the log (`::group::`,
`::error file=..,line=..::`, `::warning::`, `::add-mask::`), outputs appended to
$GITHUB_OUTPUT, the markdown result appended to $GITHUB_STEP_SUMMARY.

Escaping is the toolkit's (actions/toolkit packages/core/src/command.ts): in data `%`, CR
and LF; in properties also `:` and `,`. Multi-line outputs use a random delimiter that
the value cannot contain.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from runner.release.redact import Redactor
from runner.report import limits


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str = "", **properties: str | int | None) -> str:
    given = ",".join(f"{key}={escape_property(str(value))}"
                     for key, value in properties.items() if value not in (None, ""))
    return f"::{name}{' ' + given if given else ''}::{escape_data(message)}"


@dataclass
class Workflow:
    """The step's side of the runtime: its log (`out`) and its environment files. Whatever
    it writes (log lines, command messages and properties, output values, the summary)
    has the secrets its `redactor` knows hidden; `::add-mask::` alone holds them."""

    out: TextIO = field(default_factory=lambda: sys.stdout)
    output_file: Path | None = None
    summary_file: Path | None = None
    masked: set[str] = field(default_factory=set)
    redactor: Redactor = field(default_factory=Redactor)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_environment(cls, out: TextIO | None = None,
                         redactor: Redactor | None = None) -> Workflow:
        def path(name: str) -> Path | None:
            value = os.environ.get(name, "")
            return Path(value) if value else None

        return cls(out=out or sys.stdout, output_file=path("GITHUB_OUTPUT"),
                   summary_file=path("GITHUB_STEP_SUMMARY"), redactor=redactor or Redactor())

    def mask(self, values: Iterable[str]) -> None:
        """`::add-mask::` each secret value (each line of a multi-line one: the runner
        masks line by line) before anything else reaches the log."""
        with self._lock:  # a redactor's listener: called from the releases' threads
            fresh = [line for value in values for line in value.splitlines() or [value]
                     if line.strip() and line not in self.masked]
            self.masked.update(fresh)
            for line in dict.fromkeys(fresh):
                self._write(command("add-mask", line))

    @contextlib.contextmanager
    def group(self, title: str) -> Iterator[None]:
        self._print(command("group", self._hide(title)))
        try:
            yield
        finally:
            self._print(command("endgroup"))

    def error(self, message: str, *, file: str | None = None, line: int | None = None,
              title: str | None = None) -> None:
        self._command("error", message, file=file, line=line, title=title)

    def warning(self, message: str, *, file: str | None = None, line: int | None = None,
                title: str | None = None) -> None:
        self._command("warning", message, file=file, line=line, title=title)

    def log(self, text: str) -> None:
        self._print(self._hide(text))

    def set_outputs(self, outputs: dict[str, str]) -> None:
        if self.output_file is None:
            return
        with self.output_file.open("a", encoding="utf-8") as handle:
            for name, value in outputs.items():
                handle.write(_output_entry(name, self._hide(value)))

    def append_summary(self, markdown: str) -> None:
        if self.summary_file is None:
            return
        with self.summary_file.open("a", encoding="utf-8") as handle:
            handle.write(limits.cut_bytes(self._hide(markdown), limits.STEP_SUMMARY_BYTES - 1)
                         + "\n")

    def _command(self, name: str, message: str, *, file: str | None, line: int | None,
                 title: str | None) -> None:
        # hidden before escaping: a secret with `%`, `:` or `,` is matched as written
        self._print(command(name, self._hide(message), file=file and self._hide(file),
                            line=line, title=title and self._hide(title)))

    def _hide(self, text: str) -> str:
        return self.redactor.redact(text)

    def _print(self, line: str) -> None:
        with self._lock:
            self._write(line)

    def _write(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()


def _output_entry(name: str, value: str) -> str:
    if "\n" not in value and "\r" not in value:
        return f"{name}={value}\n"
    delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    while delimiter in value:  # practically never: still, the value must not end it early
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"
