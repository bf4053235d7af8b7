"""The helm-diff plugin (databus23/helm-diff), the anchor deploy-runner's diff is compared with.

Built from its Go module at the version pinned in testbed/go/helm-diff/go.mod and cached
like the other testbed binaries (keyed by that version and the Go toolchain). `plugin_dir`
lays it out as a Helm plugin (`diff/plugin.yaml`, `diff/bin/diff`) so the Helm 4.1.4
binary runs it as `helm diff` with HELM_PLUGINS pointing there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from testbed.build import _required_version, go_tool

MODULE = "github.com/databus23/helm-diff/v3"

_PLUGIN_YAML = """name: "diff"
version: "{version}"
usage: "Preview helm upgrade changes as a diff"
description: "Preview helm upgrade changes as a diff"
command: "$HELM_PLUGIN_DIR/bin/diff"
"""


def helm_diff_binary(log: Callable[[str], None] = print) -> Path:
    """The cached helm-diff binary, built on first use (a few minutes)."""
    return go_tool("helm-diff", MODULE, MODULE, "diff", log)


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
