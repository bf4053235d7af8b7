"""Command-line edge cases of `template`, `lint` and the release commands against Helm 4.1.4:
stdout, stderr, exit code.

Flags without a value (short and long spellings), unknown and abbreviated
flags, pflag's CSV reading of `-f a.yaml,b.yaml`, `--set` strings that end
inside an index, `--post-renderer` (a plugin name in Helm 4), and
`--kube-version` texts k8s' ParseGeneric reads, or rejects. Helm runs
every case in the test run; nothing expected is stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.cli_helpers import helm_in as _helm
from tests.conformance.cli_helpers import ours_in as _ours

TEMPLATE_CASES: tuple[tuple[str, ...], ...] = (
    ("-f",),
    ("--values",),
    ("-n",),
    ("-s",),
    ("-a",),
    ("--namespace",),
    ("-f", "x.yaml,y.yaml"),
    ("--values=x.yaml,y.yaml",),
    ("-f", '"x.yaml"'),
    ("-f", ",x.yaml"),
    ("--values=",),
    ("-n", "foo", "-f", "x.yaml", "--values", "y.yaml"),
    ("--include-crd",),
    ("--bogus",),
    ("-x",),
    ("--set", "a["),
    ("--set", "a[0"),
    ("--set", "b=1,a["),
    ("--set", "b=1,a[0]["),
    ("--set", "a[0]"),
    ("--set", "a[0].b["),
    ("--set", "a[x]=1"),
    ("--set", "a]"),
    ("--set-string", "a["),
    ("--set-json", "a["),
    ("--set", "a[1]=2,a[0]["),
    ("--post-renderer",),
    ("--post-renderer", "nosuch"),
    ("--post-renderer", "./pr.sh"),
    ("--post-renderer=",),
    ("--post-renderer-args", "x"),
    ("--post-renderer-args", "x", "--post-renderer", "nosuch"),
    ("--kube-version", "1.020.3"),
    ("--kube-version", " \tv1.21.3-gke.1"),
    ("--kube-version", "1.20\n"),
    ("--kube-version", "\v1.20"),
    ("--kube-version", "01.20"),
    ("--kube-version", "x1.2"),
    ("--kube-version", "1"),
    ("--kube-version", "1.99999999999999999999"),
)
# --show-only globs are Go's filepath.Match, not fnmatch: `!` does not negate a class
# (`^` does), `\\` escapes, a malformed pattern matches nothing.
SHOW_ONLY_PATTERNS = (
    "templates/[!a].yaml",
    "templates/[^a].yaml",
    "templates/a\\*b.yaml",
    "templates/a*b.yaml",
    "templates/[",
    "templates/[]a].yaml",
    "*/a.yaml",
    "a.yaml",
)
# Flags the release commands check before they reach a cluster: Go's time.ParseDuration.
RELEASE_CASES: tuple[tuple[str, ...], ...] = (
    ("install", "r", "ch", "--timeout", "300"),
    ("install", "r", "ch", "--timeout", "5 minutes"),
    ("install", "r", "ch", "--timeout=1.5"),
    ("install", "r", "ch", "--timeout", ""),
    ("install", "r", "ch", "--timeout", "1d"),
    ("upgrade", "r", "ch", "--timeout", "300"),
    ("rollback", "r", "--timeout", "10"),
    ("uninstall", "r", "--timeout", "2h-1m"),
    ("test", "r", "--timeout", "5"),
)
LINT_CASES: tuple[tuple[str, ...], ...] = (
    ("-f",),
    ("--strict", "-f"),
    ("-f", "x.yaml,y.yaml"),
    ("--bogus",),
    ("-q",),
    ("--stric",),
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-flags")
    (root / "ch" / "templates").mkdir(parents=True)
    (root / "ch" / "Chart.yaml").write_text("apiVersion: v2\nname: ch\nversion: 0.1.0\n")
    (root / "ch" / "templates" / "cm.yaml").write_text(
        "values: {{ .Values | toJson }}\n"
        "kube: {{ .Capabilities.KubeVersion }} {{ .Capabilities.KubeVersion.Major }} {{ .Capabilities.KubeVersion.Minor }}\n"
    )
    (root / "shown" / "templates").mkdir(parents=True)
    (root / "shown" / "Chart.yaml").write_text("apiVersion: v2\nname: shown\nversion: 0.1.0\n")
    for name in ("a", "b", "!", "a*b", "axb", "]"):
        (root / "shown" / "templates" / f"{name}.yaml").write_text(f"kind: ConfigMap\nname: {name!r}\n")
    (root / "x.yaml").write_text("a: 1\n")
    (root / "y.yaml").write_text("b: 2\n")
    (root / "pr.sh").write_text("#!/bin/sh\nsed s/values:/v:/\n")
    (root / "pr.sh").chmod(0o755)
    return root


@pytest.mark.parametrize("flags", TEMPLATE_CASES, ids=" ".join)
def test_template_flags_as_helm(flags: tuple[str, ...], workdir: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["template", "r", "ch", *flags]
    assert _ours(workdir, argv, monkeypatch) == _helm(workdir, argv)


@pytest.mark.parametrize("pattern", SHOW_ONLY_PATTERNS)
def test_show_only_globs_as_helm(pattern: str, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["template", "r", "shown", "--show-only", pattern]
    assert _ours(workdir, argv, monkeypatch) == _helm(workdir, argv)


@pytest.mark.parametrize("argv", RELEASE_CASES, ids=" ".join)
def test_release_command_flags_as_helm(argv: tuple[str, ...], workdir: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    assert _ours(workdir, list(argv), monkeypatch) == _helm(workdir, list(argv))


@pytest.mark.parametrize("flags", LINT_CASES, ids=" ".join)
def test_lint_flags_as_helm(flags: tuple[str, ...], workdir: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["lint", "ch", *flags]
    assert _ours(workdir, argv, monkeypatch) == _helm(workdir, argv)
