"""Build the testbed's Go binaries at pinned versions and cache them.

The versions live in the Go modules under testbed/ (one module per upstream
project, so their dependency versions never have to agree). Binaries are
cached under ``${XDG_CACHE_HOME:-~/.cache}/deploy-testbed/<key>/``,
where the key names every pinned version and the Go toolchain, so a build
happens once per version change.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from testbed.errors import TestbedError
from testbed.helm import cache_root as deploy_runner_cache

GO_MODULES_DIR = Path(__file__).resolve().parent / "go"

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

# The dynamic volume provisioner (testbed/go/provisioner/main.go on the library this module
# pins): a program of its own, cached by go_tool apart from the control plane's binaries,
# so changing it never rebuilds Kubernetes.
PROVISIONER_MODULE = "sigs.k8s.io/sig-storage-lib-external-provisioner/v13"
PROVISIONER = "hostpath-provisioner"

# Bumped whenever the build command changes what a binary is (flags, stamped values), so
# binaries cached under an older recipe are rebuilt rather than reused.
BUILD_RECIPE = "r2"  # r2: Kubernetes components stamped with their release version

# Where Kubernetes' own build (hack/lib/version.sh) stamps the version with -ldflags -X.
# Unstamped, kube-apiserver reports v0.0.0-master+$Format:%H$: charts with a kubeVersion
# constraint refuse to install and `kubectl version` fails to parse it.
_K8S_VERSION_PACKAGES = ("k8s.io/client-go/pkg/version", "k8s.io/component-base/version")


@dataclass(frozen=True)
class Binaries:
    """Where the built binaries are and which versions they are."""

    directory: Path
    versions: dict[str, str]
    programs: dict[str, Path] = field(default_factory=dict)  # built apart, by go_tool

    def path(self, name: str) -> Path:
        return self.programs.get(name) or self.directory / name


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
    return "_".join([*parts, go, BUILD_RECIPE])


def ensure_binaries(log: Callable[[str], None] = print) -> Binaries:
    """Return cached binaries, building them first when the key has none."""
    pinned, go = pinned_versions(), go_version()
    target = cache_root() / cache_key(pinned, go)
    if not _complete(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target.parent / ".build.lock", "w") as lock:
            # Another process (a second pytest, `make demo`) may be building the same key.
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _complete(target):
                _build_into(target, log)
    provisioner = go_tool("provisioner", PROVISIONER_MODULE, ".", PROVISIONER, log)
    versions = {**pinned, PROVISIONER_MODULE: _required_version("provisioner", PROVISIONER_MODULE), "go": go}
    return Binaries(target, versions, {PROVISIONER: provisioner})


def go_tool(subdir: str, module: str, package: str, name: str,
            log: Callable[[str], None] = print) -> Path:
    """A single Go program of the testbed (testbed/<subdir>/go.mod pins `module`), built on
    first use into the cache, keyed by the pinned version and the Go toolchain, as `name`;
    a module with Go source of its own (a main.go) adds that source's digest to the key,
    so editing it builds again."""
    target = go_tool_path(subdir, module, name)
    if target.is_file():
        return target
    target.parent.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent.parent / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it
        if not target.is_file():
            version = _required_version(subdir, module)
            log(f"testbed: building {module} {version} (first run only)")
            started = time.monotonic()
            staging = target.parent.with_name(target.parent.name + ".partial")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            _go_build(GO_MODULES_DIR / subdir, (package,), staging, name, [])
            [built] = list(staging.iterdir())  # named after the package's last element
            built.rename(staging / name)
            shutil.rmtree(target.parent, ignore_errors=True)
            staging.rename(target.parent)
            log(f"testbed: {module} {version} built in {time.monotonic() - started:.0f}s")
    return target


def go_tool_path(subdir: str, module: str, name: str) -> Path:
    """Where go_tool caches the program: keyed by the pinned version, the Go toolchain and
    the digest of the module's own source, if it has any."""
    version = _required_version(subdir, module)
    key = "_".join(filter(None, (f"{subdir}-{version}", go_version(), _own_source_digest(subdir))))
    return cache_root() / key / name


def _own_source_digest(subdir: str) -> str:
    """A short digest of the module's own Go files (tools.go only pins, and adds none)."""
    sources = sorted(p for p in (GO_MODULES_DIR / subdir).glob("*.go") if p.name != "tools.go")
    if not sources:
        return ""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return "src-" + digest.hexdigest()[:12]


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
        _go_build(GO_MODULES_DIR / subdir, packages, staging, subdir, _version_stamp(subdir, module))
        log(f"testbed: {module} built in {time.monotonic() - step:.0f}s")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)  # atomic: a half-built directory never looks complete
    log(f"testbed: built in {time.monotonic() - started:.0f}s into {target}")


def _version_stamp(subdir: str, module: str) -> list[str]:
    """The -X flags that give a Kubernetes build its version; none for etcd and kwok,
    whose version is a constant in their source."""
    if subdir != "k8s":
        return []
    info = _module_info(GO_MODULES_DIR / subdir, module)
    return k8s_version_flags(info["Version"], info["Time"])


def k8s_version_flags(version: str, release_time: str) -> list[str]:
    """What hack/lib/version.sh sets for a release build whose git commit is unknown (a
    module download has no .git): gitVersion, gitMajor, gitMinor and buildDate. The
    build date is the release's time, as SOURCE_DATE_EPOCH would make it: the same
    version always builds the same binary."""
    major, minor = version.removeprefix("v").split(".")[:2]
    # Go writes the time as RFC 3339 with optional fractions; the stamp has whole seconds.
    released = datetime.fromisoformat(release_time).astimezone(UTC)
    values = {"gitVersion": version, "gitMajor": major, "gitMinor": minor,
              "buildDate": released.strftime("%Y-%m-%dT%H:%M:%SZ")}
    return [f"-X {package}.{key}={value}"
            for package in _K8S_VERSION_PACKAGES for key, value in values.items()]


def _module_info(module_dir: Path, module: str) -> dict[str, str]:
    command = ["go", "list", "-m", "-json", module]
    result = subprocess.run(command, cwd=module_dir, env={**os.environ, "GOTOOLCHAIN": "local"},
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise TestbedError(f"`{' '.join(command)}` failed in {module_dir}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def _go_build(module_dir: Path, packages: tuple[str, ...], out: Path, name: str,
              stamp: list[str]) -> None:
    # A single package builds to -o <file>; several build into -o <dir>/.
    output = str(out / name) if packages == (".",) else f"{out}/"
    ldflags = " ".join(["-s", "-w", *stamp])
    command = ["go", "build", "-trimpath", "-buildvcs=false", f"-ldflags={ldflags}", "-o", output, *packages]
    env = {**os.environ, "GOTOOLCHAIN": "local"}
    result = subprocess.run(command, cwd=module_dir, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join(result.stderr.strip().splitlines()[-20:])
        raise TestbedError(f"building {name} failed ({' '.join(command)}):\n{tail}")
