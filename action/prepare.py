"""The action's virtual environment: the dependencies of the lock (requirements/*.txt, every
one pinned with its hash) installed into a venv kept under the runner's tool cache and
saved with actions/cache, keyed by everything that makes it: the platform, the Python
(version and path) and the lock file's digest.

    python prepare.py          where the venv is, its cache key, and whether it is ready
    python prepare.py install  make it (when what is there is not ready)

Standard library only: it runs before anything is installed. Outputs go to $GITHUB_OUTPUT.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ACTION = Path(__file__).resolve().parent.parent
READY = ".deploy-runner-ready"  # written last: a venv without it is half made
# bumped when the venv's layout or making changes, so older caches are not restored
RECIPE = "1"


def requirements() -> Path:
    """The lock's export to install: with the AWS SDK (the `aws` extra) when the EKS
    login is asked for, by the eks_cluster input or an `eks:` key in the spec."""
    if os.environ.get("INPUT_EKS_CLUSTER", "").strip() or _spec_uses_eks():
        return ACTION / "requirements" / "aws.txt"
    return ACTION / "requirements" / "base.txt"


def _spec_uses_eks() -> bool:
    spec = Path(os.environ.get("INPUT_SPEC", "").strip() or "deploy-runner.yaml")
    try:
        text = spec.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False  # the run says what is wrong with the spec
    return re.search(r"^\s*eks\s*:", text, re.MULTILINE) is not None


def key(lock: Path) -> str:
    python = os.path.realpath(sys.executable)
    return "-".join([
        "deploy-runner-venv", RECIPE, sys.platform, platform.machine().lower(),
        f"{sys.implementation.name}{platform.python_version()}",
        hashlib.sha256(python.encode()).hexdigest()[:8],
        lock.stem, hashlib.sha256(lock.read_bytes()).hexdigest()[:16]])


def home() -> Path:
    """Where venvs live: the runner's tool cache (kept between jobs on a self-hosted
    runner), else its temporary directory."""
    for name in ("RUNNER_TOOL_CACHE", "RUNNER_TEMP"):
        if os.environ.get(name):
            return Path(os.environ[name]) / "deploy-runner"
    return Path(tempfile.gettempdir()) / "deploy-runner"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ready(venv: Path, name: str) -> bool:
    marker = venv / READY
    return marker.is_file() and marker.read_text().strip() == name \
        and venv_python(venv).exists()


def install(venv: Path, name: str, lock: Path) -> None:
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # hashes required, no resolution, wheels only: exactly the lock, or a clear failure
    subprocess.run([str(venv_python(venv)), "-m", "pip", "install", "--quiet", "--no-input",
                    "--disable-pip-version-check", "--require-hashes", "--no-deps",
                    "--only-binary", ":all:", "-r", str(lock)], check=True)
    (venv / READY).write_text(name + "\n")


def outputs(values: dict[str, str]) -> None:
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as handle:
        for field, value in values.items():
            handle.write(f"{field}={value}\n")


def main() -> int:
    lock = requirements()
    name = key(lock)
    venv = home() / name
    if sys.argv[1:] == ["install"]:
        built = not ready(venv, name)
        if built:
            install(venv, name, lock)
        outputs({"built": str(built).lower()})
        return 0
    outputs({"key": name, "path": venv.as_posix(), "ready": str(ready(venv, name)).lower(),
             "python": venv_python(venv).as_posix()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
