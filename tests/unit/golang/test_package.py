"""runner.golang stands below everything: a regular package (installed with the rest)
that imports nothing else of runner/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import runner.golang

GOLANG = Path(runner.golang.__file__).parent


def test_is_a_regular_package() -> None:
    # A namespace package (no __init__.py) is left out by setuptools' find_packages.
    assert runner.golang.__file__ is not None
    assert (GOLANG / "__init__.py").is_file()


def test_imports_nothing_else_of_runner() -> None:
    modules = sorted(f"runner.golang.{p.stem}" for p in GOLANG.glob("*.py") if p.stem != "__init__")
    code = (f"import importlib, sys; [importlib.import_module(m) for m in {modules!r}];"
            "print(sorted(m for m in sys.modules if m.startswith('runner') "
            "and m not in ('runner', 'runner.golang') and not m.startswith('runner.golang.')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=GOLANG.parents[1], timeout=120, check=True)
    assert proc.stdout.strip() == "[]"
