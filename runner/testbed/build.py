"""Build the testbed's Go binaries at pinned versions and cache them.

The versions live in the Go modules under testbed/ (one module per upstream
project, so their dependency versions never have to agree). Binaries are
cached under ``${XDG_CACHE_HOME:-~/.cache}/deploy-runner/testbed/<key>/``,
where the key names every pinned version and the Go toolchain, so a build
happens once per version change.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runner.testbed.errors import TestbedError
from runner.testbed.helm import cache_root as deploy_runner_cache

GO_MODULES_DIR = Path(__file__).resolve().parents[2] / "testbed"

# (module dir, pinned module whose version names the build, packages to build)
_BUILDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "k8s",
        "k8s.io/kubernetes",
        (
            "k8s.io/kubernetes/cmd/kube-apiserver",
            "k8s.io/kubernetes/cmd/kube-controller-manager",
            "k8s.io/kubernetes/cmd/kube-scheduler",
        ),
    ),
    ("etcd", "go.etcd.io/etcd/server/v3", (".",)),
    ("kwok", "sigs.k8s.io/kwok", ("sigs.k8s.io/kwok/cmd/kwok",)),
)

BINARY_NAMES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")


@dataclass(frozen=True)
class Binaries:
    """Where the built binaries are and which versions they are."""

    directory: Path
    versions: dict[str, str]

    def path(self, name: str) -> Path:
        return self.directory / name


def cache_root() -> Path:
    return deploy_runner_cache() / "testbed"


def pinned_versions() -> dict[str, str]:
    """The pinned upstream versions, read from the testbed's go.mod files."""
    return {module: _required_version(subdir, module) for subdir, module, _ in _BUILDS}


def _required_version(subdir: str, module: str) -> str:
    gomod = GO_MODULES_DIR / subdir / "go.mod"
    match = re.search(rf"^\s*(?:require\s+)?{re.escape(module)}\s+(v\S+)", gomod.read_text(), re.M)
    if match is None:
        raise TestbedError(f"{gomod} does not require {module}")
    return match.group(1)


def go_version() -> str:
    go = shutil.which("go")
    if go is None:
        raise TestbedError("the Go toolchain (`go`) is not on PATH; it is needed to build the testbed")
    result = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise TestbedError(f"`go env GOVERSION` failed: {result.stderr.strip()}")
    return result.stdout.strip()


def cache_key(versions: dict[str, str], go: str) -> str:
    short = {"k8s.io/kubernetes": "k8s", "go.etcd.io/etcd/server/v3": "etcd", "sigs.k8s.io/kwok": "kwok"}
    parts = [f"{short[module]}-{version}" for module, version in versions.items()]
    return "_".join([*parts, go])


def ensure_binaries(log: Callable[[str], None] = print) -> Binaries:
    """Return cached binaries, building them first when the key has none."""
    pinned, go = pinned_versions(), go_version()
    versions = {**pinned, "go": go}
    target = cache_root() / cache_key(pinned, go)
    if _complete(target):
        return Binaries(target, versions)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".build.lock", "w") as lock:
        # Another process (a second pytest, `make demo`) may be building the same key.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _complete(target):
            _build_into(target, log)
    return Binaries(target, versions)


def _complete(directory: Path) -> bool:
    return all((directory / name).is_file() for name in BINARY_NAMES)


def _build_into(target: Path, log: Callable[[str], None]) -> None:
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    started = time.monotonic()
    for subdir, module, packages in _BUILDS:
        log(f"testbed: building {module} (first run only; this takes a while on 2 cores)")
        step = time.monotonic()
        _go_build(GO_MODULES_DIR / subdir, packages, staging, subdir)
        log(f"testbed: {module} built in {time.monotonic() - step:.0f}s")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)  # atomic: a half-built directory never looks complete
    log(f"testbed: built in {time.monotonic() - started:.0f}s into {target}")


def _go_build(module_dir: Path, packages: tuple[str, ...], out: Path, name: str) -> None:
    # A single package builds to -o <file>; several build into -o <dir>/.
    output = str(out / name) if packages == (".",) else f"{out}/"
    command = ["go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", output, *packages]
    env = {**os.environ, "GOTOOLCHAIN": "local"}
    result = subprocess.run(command, cwd=module_dir, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join(result.stderr.strip().splitlines()[-20:])
        raise TestbedError(f"building {name} failed ({' '.join(command)}):\n{tail}")
