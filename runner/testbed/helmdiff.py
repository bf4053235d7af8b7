"""The helm-diff plugin (databus23/helm-diff), the anchor deploy-runner's diff is compared with.

Built from its Go module at the version pinned in testbed/helm-diff/go.mod and cached
like the other testbed binaries (keyed by that version and the Go toolchain). `plugin_dir`
lays it out as a Helm plugin (`diff/plugin.yaml`, `diff/bin/diff`) so the Helm 4.1.4
binary runs it as `helm diff` with HELM_PLUGINS pointing there.
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Callable
from pathlib import Path

from runner.testbed.build import GO_MODULES_DIR, _go_build, _required_version, cache_root, go_version

MODULE = "github.com/databus23/helm-diff/v3"

_PLUGIN_YAML = """name: "diff"
version: "{version}"
usage: "Preview helm upgrade changes as a diff"
description: "Preview helm upgrade changes as a diff"
command: "$HELM_PLUGIN_DIR/bin/diff"
"""


def helm_diff_binary(log: Callable[[str], None] = print) -> Path:
    """The cached helm-diff binary, built on first use (a few minutes)."""
    version = _required_version("helm-diff", MODULE)
    target = cache_root() / f"helm-diff-{version}_{go_version()}" / "diff"
    if target.is_file():
        return target
    target.parent.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent.parent / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.is_file():
            _build(target, version, log)
    return target


def _build(target: Path, version: str, log: Callable[[str], None]) -> None:
    log(f"testbed: building {MODULE} {version} (first run only)")
    staging = target.parent.with_name(target.parent.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    _go_build(GO_MODULES_DIR / "helm-diff", (MODULE,), staging, "diff", [])
    built = staging / "diff"
    if not built.is_file():  # one package builds into the directory under its own name
        (staging / "helm-diff").rename(built)
    shutil.rmtree(target.parent, ignore_errors=True)
    staging.rename(target.parent)


def plugin_dir(root: Path, log: Callable[[str], None] = print) -> Path:
    """A HELM_PLUGINS directory under `root` holding helm-diff as the `diff` plugin."""
    binary = helm_diff_binary(log)
    plugin = root / "diff"
    (plugin / "bin").mkdir(parents=True, exist_ok=True)
    version = _required_version("helm-diff", MODULE).removeprefix("v")
    (plugin / "plugin.yaml").write_text(_PLUGIN_YAML.format(version=version))
    link = plugin / "bin" / "diff"
    if not link.exists():
        link.symlink_to(binary)
    return root
