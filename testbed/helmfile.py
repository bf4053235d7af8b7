"""helmfile (github.com/helmfile/helmfile), a tool that drives the helm binary: the
test that deploy-runner, linked as `helm`, is a drop-in for it (tests/e2e/test_helmfile.py),
and the benchmarks that time it.

Built from its Go module at the version pinned in testbed/go/helmfile/go.mod (which repeats
helmfile's own replace directives) and cached like the other testbed binaries, keyed by
that version and the Go toolchain.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from testbed.build import go_tool

MODULE = "github.com/helmfile/helmfile"


def helmfile_binary(log: Callable[[str], None] = print) -> Path:
    """The cached helmfile binary, built on first use (a few minutes on 2 cores)."""
    return go_tool("helmfile", MODULE, MODULE, "helmfile", log)
