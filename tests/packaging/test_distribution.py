"""The wheel and the sdist as users get them (release.yml builds them with `uv build` and
runs this against dist/: DEPLOY_RUNNER_DIST names that directory; without it the test
builds its own): each installed into a clean virtual environment with the lock's
dependencies, `deploy-runner version` is pyproject's version, a chart renders as
`helm template` renders it, and the test-only testbed is not in the package."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHART = {"Chart.yaml": "apiVersion: v2\nname: hello\nversion: 0.1.0\n",
         "values.yaml": "greeting: hi\n",
         "templates/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                                  "data:\n  greeting: {{ .Values.greeting | quote }}\n"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("DEPLOY_RUNNER_DIST")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([str(Path(sys.executable).with_name("uv")), "build", "--quiet", "--out-dir",
                    str(out), str(ROOT)], check=True, timeout=600)
    return out


@pytest.mark.parametrize("kind", ["whl", "tar.gz"])
def test_the_distribution_installs_and_runs(dist: Path, kind: str, tmp_path: Path) -> None:
    [artifact] = dist.glob(f"deploy_runner-*.{kind}")
    target = tmp_path / "venv"
    venv.create(target, with_pip=True)
    python = str(target / "bin" / "python")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "--require-hashes", "--no-deps", "-r",
                    str(ROOT / "requirements" / "base.txt")], check=True, timeout=600)
    subprocess.run([*pip, "--no-deps", str(artifact)], check=True, timeout=600)
    program = str(target / "bin" / "deploy-runner")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    version = subprocess.run([program, "version", "--short"], capture_output=True, text=True,
                             check=True, timeout=60, cwd=tmp_path)
    assert version.stdout == f"v{declared}\n"
    chart = tmp_path / "hello"
    for name, text in CHART.items():
        (chart / name).parent.mkdir(parents=True, exist_ok=True)
        (chart / name).write_text(text)
    rendered = subprocess.run([program, "template", "demo", str(chart)], capture_output=True,
                              text=True, check=True, timeout=60, cwd=tmp_path)
    from testbed.helm import helm_binary

    expected = subprocess.run([str(helm_binary()), "template", "demo", str(chart)],
                              capture_output=True, text=True, check=True, timeout=60)
    assert rendered.stdout == expected.stdout
    testbed = subprocess.run([python, "-c", "import testbed"], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path)
    assert testbed.returncode == 1 and "No module named 'testbed'" in testbed.stderr
