"""Malformed and malicious charts against Helm 4.1.4: archives (tests/reliability/
hostile_archives.py) through `template`, `lint`, `install --dry-run` and `pull --untar`,
directories (hostile_dirs.py) through `template`, `lint`, `install --dry-run` and
`package`. Both binaries run as child processes in a bare environment with a timeout
(a crash is an exit code, a hang a failure).

The same exit code and output; the same error, but for one difference kept on purpose:
where Helm 4 says only "unable to load chart archive" we add why (": <reason>"), and the
reason is Go's, the one Helm's own lint prints for that archive. Nothing is written outside
the run's directory; `pull --untar` writes Helm's tree; `package` Helm's archive.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from testbed.helm import helm_binary
from tests.reliability.campaign import FIGURES, FULL, is_python_crash
from tests.reliability.hostile_archives import ARCHIVES
from tests.reliability.hostile_dirs import DIRECTORIES

pytestmark = pytest.mark.conformance

OURS = str(Path(sys.executable).parent / "deploy-runner")
TIMEOUT = 120
LOADING = {
    "template": ["template", "x", "{chart}"],
    "lint": ["lint", "{chart}"],  # an archive is expanded on disk first (chartutil.Expand)
    "install --dry-run": ["install", "x", "{chart}", "--dry-run=client"],
}
# install --dry-run loads an archive as template does: the full profile only
ARCHIVE_COMMANDS = LOADING if FULL else {k: v for k, v in LOADING.items() if k != "install --dry-run"}
DIRECTORY_COMMANDS = {**LOADING, "package": ["package", "{chart}", "-d", "{work}/pkg"]}
UNABLE = "unable to load chart archive"
# Where we still differ from Helm on a chart directory: Helm logs the links it followed
# (level=INFO lines) as it goes, also when loading then fails (a link to a device, a link
# loop); we print those lines only when loading succeeds. The error itself is Helm's.
LOGGED_BEFORE_AN_ERROR = {"symlink loop", "symlink to /dev/zero", "symlink to /dev/null"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A directory served over HTTP on loopback, for `pull URL --untar`."""
    root = tmp_path_factory.mktemp("served")
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        pass


def _run(binary: str, work: Path, argv: list[str]) -> tuple[int, bytes, bytes]:
    """One run in a bare environment under `work`, its output with `work` and the dates of
    a dry run made comparable."""
    (work / "tmp").mkdir(exist_ok=True)  # lint expands an archive here: nothing may stay
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "KUBECONFIG": str(work / "no-kubeconfig"),
           "TMPDIR": str(work / "tmp"),
           "XDG_CACHE_HOME": str(work / "cache"), "XDG_STATE_HOME": str(work / "state"),
           "HELM_CACHE_HOME": str(work / "helm-cache"),
           "HELM_CONFIG_HOME": str(work / "helm-config"), "HELM_DATA_HOME": str(work / "helm-data")}
    proc = subprocess.run([binary, *argv], capture_output=True, cwd=work, env=env, timeout=TIMEOUT,
                          check=False)

    def comparable(data: bytes) -> bytes:
        data = data.replace(os.fsencode(work), b"WORK")
        data = re.sub(rb"WORK/tmp/helm-lint\w+", b"LINTDIR", data)
        return re.sub(rb"LAST DEPLOYED: .*", b"LAST DEPLOYED: -", data)

    return proc.returncode, comparable(proc.stdout), comparable(proc.stderr)


def _both(tmp_path: Path, argv: list[str], prepare) -> dict[str, tuple[int, bytes, bytes, Path]]:
    results = {}
    for who, binary in (("helm", str(helm_binary())), ("ours", OURS)):
        work = tmp_path / who
        work.mkdir()
        chart = prepare(work)
        args = [a.format(chart=chart, work=work) for a in argv]
        results[who] = (*_run(binary, work, args), work)
    return results


def _same_or_with_reason(ours: bytes, helm: bytes, reason: bytes) -> bool:
    """Equal, or Helm's `unable to load chart archive` with `: <reason>` after it."""
    return ours == helm or ours == helm.replace(UNABLE.encode(), UNABLE.encode() + b": " + reason)


def _go_reason(tmp_path: Path, make) -> bytes:
    """Why Go refuses the archive: what Helm's lint prints after `unable to extract tarball: `."""
    work = tmp_path / "reason"
    work.mkdir()
    (work / "hostile-0.1.0.tgz").write_bytes(make())
    _, out, _ = _run(str(helm_binary()), work, ["lint", str(work / "hostile-0.1.0.tgz")])
    found = re.search(rb"unable to extract tarball: (.*)", out)
    return found.group(1) if found else b""


@pytest.mark.parametrize("command", ARCHIVE_COMMANDS)
@pytest.mark.parametrize("case", ARCHIVES)
def test_archives_are_read_as_helm_reads_them(case, command, tmp_path):
    make = ARCHIVES[case]

    def prepare(work: Path) -> Path:
        path = work / "hostile-0.1.0.tgz"
        path.write_bytes(make())
        return path

    results = _both(tmp_path, ARCHIVE_COMMANDS[command], prepare)
    (h_code, h_out, h_err, _), (o_code, o_out, o_err, work) = results["helm"], results["ours"]
    FIGURES.add("hostile charts", "archive runs compared")
    assert not is_python_crash(o_err.decode(errors="replace")), o_err
    assert (o_code, o_out) == (h_code, h_out), (o_err, h_err)
    assert _same_or_with_reason(o_err, h_err, _go_reason(tmp_path, make)), (o_err, h_err)
    assert {p.name for p in work.iterdir()} <= {"cache", "state", "helm-cache", "tmp", "hostile-0.1.0.tgz"}
    assert not list((work / "tmp").iterdir())  # nothing written beside lint's directory


@pytest.mark.parametrize("case", ARCHIVES)
def test_pull_untar_writes_helms_tree_and_nothing_outside(case, served, tmp_path):
    root, url = served
    served_as = re.sub(r"\W+", "_", case) + "-0.1.0.tgz"
    (root / served_as).write_bytes(ARCHIVES[case]())
    argv = ["pull", f"{url}/{served_as}", "--untar", "--untardir", "{work}/out"]
    results = _both(tmp_path, argv, lambda work: work)
    (h_code, _, h_err, h_work), (o_code, _, o_err, o_work) = results["helm"], results["ours"]
    FIGURES.add("hostile charts", "archive runs compared")
    assert not is_python_crash(o_err.decode(errors="replace")), o_err
    assert (o_code, o_err) == (h_code, h_err)
    assert _tree(o_work / "out") == _tree(h_work / "out")
    assert not (tmp_path / "evil.yaml").exists() and not Path("/tmp/evil.yaml").exists()


def _tree(root: Path) -> dict[bytes, bytes | str]:
    return {os.fsencode(p.relative_to(root)): ("dir" if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*"))} if root.exists() else {}


@pytest.mark.parametrize("command", DIRECTORY_COMMANDS)
@pytest.mark.parametrize("case", DIRECTORIES)
def test_chart_directories_are_read_as_helm_reads_them(case, command, tmp_path):
    results = _both(tmp_path, DIRECTORY_COMMANDS[command], lambda work: DIRECTORIES[case](work / "src"))
    (h_code, h_out, h_err, h_work), (o_code, o_out, o_err, o_work) = results["helm"], results["ours"]
    FIGURES.add("hostile charts", "directory runs compared")
    assert not is_python_crash(o_err.decode(errors="replace")), o_err
    if case in LOGGED_BEFORE_AN_ERROR:
        h_err = b"".join(line for line in h_err.splitlines(keepends=True) if not line.startswith(b"level=INFO"))
        h_out = b"".join(line for line in h_out.splitlines(keepends=True) if not line.startswith(b"level=INFO"))
    assert (o_code, o_out, o_err) == (h_code, h_out, h_err)
    if command == "package" and h_code == 0:
        assert _package(o_work) == _package(h_work)


def _package(work: Path) -> list[tuple[str, bytes, int, bytes]]:
    with tarfile.open(next((work / "pkg").glob("*.tgz"))) as tar:
        return [(m.name, m.type, m.mode, tar.extractfile(m).read() if m.isfile() else b"")
                for m in tar]
