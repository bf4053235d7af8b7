"""One command line through the helm binary and through our CLI, in the same bare environment:
HOME and HELM_PLUGINS inside the case's directory, KUBECONFIG naming a missing file, no other
HELM_* or XDG_* variable but those a case gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from testbed.helm import helm_binary
from tests.conformance.harness import run_cli

Result = tuple[str, str, int]  # stdout, stderr, exit code


def cli_env(workdir: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(workdir), "HELM_PLUGINS": str(workdir / "plugins"),
            "KUBECONFIG": str(workdir / "no-kubeconfig")}


def helm_in(workdir: Path, argv: list[str], variables: dict[str, str] | None = None) -> Result:
    return run_in(workdir, [str(helm_binary()), *argv], variables)


def linked_as(workdir: Path, name: str, argv: list[str]) -> Result:
    """Our installed program (the `deploy-runner` console script) run through a link named
    `name`, as a user who links it as `helm` runs it."""
    link = workdir / "bin" / name
    if not link.exists():
        link.parent.mkdir(exist_ok=True)
        link.symlink_to(Path(sys.executable).with_name("deploy-runner"))
    return run_in(workdir, [str(link), *argv], None)


def module_in(workdir: Path, argv: list[str]) -> Result:
    """`python -m runner.cli`."""
    return run_in(workdir, [sys.executable, "-m", "runner.cli", *argv], None)


def run_in(workdir: Path, command: list[str], variables: dict[str, str] | None = None) -> Result:
    """`command` in `workdir` in the bare environment."""
    proc = subprocess.run(command, capture_output=True, text=True, cwd=workdir,
                          env=cli_env(workdir) | (variables or {}), check=False, timeout=120)
    return proc.stdout, proc.stderr, proc.returncode


def ours_in(workdir: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch,
            variables: dict[str, str] | None = None) -> Result:
    """Our CLI in process, in the environment helm_in gives Helm, named `helm` as a link so
    named runs it: its messages, usage lines and help name it as Helm's do."""
    monkeypatch.chdir(workdir)
    for name in [n for n in os.environ if n.startswith(("HELM_", "XDG_"))]:
        monkeypatch.delenv(name)
    for name, value in (cli_env(workdir) | (variables or {})).items():
        if name != "PATH":
            monkeypatch.setenv(name, value)
    out, err, code = run_cli(argv)
    return out.decode(), err, code
