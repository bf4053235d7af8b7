"""`--cpu-per-module N` (tests/cpu.py) prints a row per module with its tests, in one process
and under workers (the controller adds up what each worker hands over)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import REPO

CONFTEST = """
from tests.cpu import add_option, configure

def pytest_addoption(parser):
    add_option(parser)

def pytest_configure(config):
    configure(config)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "two-workers"])
def test_each_module_has_a_row_with_its_tests(tmp_path: Path, workers: list[str]) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_three.py").write_text("import pytest\n\n@pytest.mark.parametrize('n', [1, 2, 3])\n"
                                            "def test_n(n):\n    assert n\n")
    (tmp_path / "test_child.py").write_text("import subprocess, sys\n\ndef test_child():\n"
                                            "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers,
                           "--cpu-per-module", "5", "--rootdir", str(tmp_path), str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, check=False, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    section = done.stdout.split("CPU per module (top 5 of 2)", 1)[1]
    rows = {line.split()[-1]: line.split() for line in section.splitlines()[1:] if line.strip()}
    assert rows["test_three.py"][4] == "3" and rows["test_child.py"][4] == "1"
    assert rows["modules"][4] == "4"  # the `all modules` row
