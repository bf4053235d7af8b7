"""`list` beside `helm list` on the same releases: every flag's output byte for byte."""

from __future__ import annotations

import pytest

from tests.e2e.release_helpers import ours
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

CASES = [
    [], ["-q"], ["-o", "json"], ["-o", "yaml"], ["-q", "-o", "json"], ["--no-headers"],
    ["--superseded"], ["--uninstalled"], ["--deployed", "--uninstalled"], ["--pending"],
    ["-d"], ["-d", "-r"], ["-r"], ["-m", "1"], ["--offset", "1"], ["--offset", "9"],
    ["-f", "^b"], ["-f", "a$"], ["--time-format", "2006-01-02 15:04"],
    ["-l", "team=blue"], ["-l", "team!=blue"], ["-l", "name=beta"], ["-l", "status=deployed"],
    ["-l", "team"], ["-l", "!team"],
]


@pytest.fixture
def releases(cluster, namespace, helm, tmp_path):
    """alpha (Helm), beta (ours, upgraded: one superseded revision), gamma (Helm, uninstalled
    with --keep-history), delta (ours, labelled team=blue)."""
    chart = write_chart(tmp_path)
    assert helm("install", "alpha", str(chart), "-n", namespace).returncode == 0
    assert ours(cluster, namespace, "install", "beta", str(chart)).code == 0
    assert ours(cluster, namespace, "upgrade", "beta", str(chart), "--set", "message=two").code == 0
    assert helm("install", "gamma", str(chart), "-n", namespace).returncode == 0
    assert helm("uninstall", "gamma", "-n", namespace, "--keep-history").returncode == 0
    assert ours(cluster, namespace, "install", "delta", str(chart), "--labels", "team=blue").code == 0
    return namespace


@pytest.mark.parametrize("flags", CASES, ids=" ".join)
def test_list_matches_helm(cluster, releases, helm, flags):
    theirs = helm("list", "-n", releases, *flags)
    assert theirs.returncode == 0, theirs.stderr
    mine = ours(cluster, releases, "list", *flags)
    assert mine.err == theirs.stderr
    assert mine.out == theirs.stdout
    assert mine.code == 0


def test_list_across_namespaces_and_errors_match_helm(cluster, releases, helm):
    """-A lists from every namespace. Other tests' namespaces are being deleted meanwhile,
    so this namespace's rows are compared (columns are as wide as every row needs),
    and Helm orders one name across namespaces by map iteration, so as a set."""
    theirs = helm("list", "-A")
    mine = ours(cluster, releases, "list", "-A")
    assert mine.code == theirs.returncode == 0
    assert mine.out.splitlines()[0].split() == theirs.stdout.splitlines()[0].split()
    here = [sorted(" ".join(line.split()) for line in out.splitlines() if f"\t{releases}" in line)
            for out in (mine.out, theirs.stdout)]
    assert here[0] == here[1] and len(here[0]) == 4
    names = [row.split("\t")[0].strip() for row in mine.out.splitlines()[1:]]
    assert names == sorted(names)
    theirs = helm("ls", "-q", "-n", releases)
    assert ours(cluster, releases, "ls", "-q").out == theirs.stdout == "alpha\nbeta\ndelta\ngamma\n"
    theirs = helm("list", "-n", releases, "-f", "(")
    mine = ours(cluster, releases, "list", "-f", "(")
    assert theirs.returncode != 0 and (mine.code != 0, mine.err) == (True, theirs.stderr)
