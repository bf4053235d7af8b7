"""Helm's internal/fileutil.AtomicWriteFile: how `pull`, `repo index` and the repository
cache write a file.

A temporary file is created beside the target (named as Go's os.CreateTemp names it: the
file name and a random number, which shows in errors), written, given `mode` (so the
umask does not decide it) and renamed over the target. The directory must exist: Helm
does not create it, and a missing one fails with Go's `open DIR/NAME123: no such file
or directory`.
"""

from __future__ import annotations

import contextlib
import os
import random

from runner.errors import RunnerError

_CREATE_ATTEMPTS = 10000  # os.CreateTemp's


def atomic_write_file(path: str | os.PathLike[str], data: bytes, mode: int) -> None:
    directory, name = os.path.split(os.fspath(path))
    # Go creates the temporary file in os.TempDir() when the target has no directory part
    # and then copies across file systems; the current directory gives the same file.
    fd, temporary = _create_temp(directory or ".", name, shown_dir=directory)
    step = f"write {temporary}"
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        step = f"chmod {temporary}"
        os.chmod(temporary, mode)
        step = f"rename {temporary} {os.fspath(path)}"  # Go's *LinkError
        os.replace(temporary, path)
    except OSError as exc:
        _remove_quietly(temporary)
        raise RunnerError(f"{step}: {_reason(exc)}") from exc


def _create_temp(directory: str, name: str, shown_dir: str) -> tuple[int, str]:
    """os.CreateTemp(dir, name): O_RDWR|O_CREATE|O_EXCL, mode 0600, a new name on a clash."""
    for _ in range(_CREATE_ATTEMPTS):
        suffix = str(random.getrandbits(32))
        temporary = os.path.join(directory, name + suffix)
        try:
            return os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600), temporary
        except FileExistsError:
            continue
        except OSError as exc:
            shown = (shown_dir.rstrip("/") + "/" if shown_dir else "") + name + suffix
            raise RunnerError(f"open {shown}: {_reason(exc)}") from exc
    raise RunnerError(f"open {os.path.join(shown_dir, name)}*: file exists")


def _reason(exc: OSError) -> str:
    """The errno text as Go prints it (strerror in lower case)."""
    return (exc.strerror or str(exc)).lower()


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)
