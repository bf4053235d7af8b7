"""The action's last step: `deploy-runner action` (or the command given) from the action's
own files, with the dependencies of the cached virtual environment whose Python runs this
(action/prepare.py). The package is the action's checkout itself (its directory first on
sys.path, as an editable install puts it), so a `uses: ...@v1` that moves never runs a stale
copy; its bytecode, kept in the venv, is put beside the sources first."""

import contextlib
import os
import shutil
import sys

ACTION = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BYTECODE = os.path.join(sys.prefix, "deploy-runner-bytecode", "runner")  # action/prepare.py


def restore_bytecode() -> None:
    """Each pyc is checked against its source's hash on import: a stale one is compiled
    again, never run."""
    package = os.path.join(ACTION, "runner")
    if os.path.isdir(os.path.join(package, "__pycache__")) or not os.path.isdir(BYTECODE):
        return
    with contextlib.suppress(OSError):  # a read-only download: the interpreter compiles
        shutil.copytree(BYTECODE, package, dirs_exist_ok=True)


restore_bytecode()
sys.path[0] = ACTION
sys.argv = ["deploy-runner", *(sys.argv[1:] or ["action"])]

from runner.cli import main  # noqa: E402 - after the path is set

sys.exit(main())
