"""Chart sources against real parts: an HTTP chart repository served from loopback
(index.yaml made by the real `helm repo index`, one variant behind basic auth), the
CNCF distribution registry built from its Go module, and Helm 4.1.4 as the oracle.

Helm and deploy-runner each get their own config and cache directories, so every
comparison starts from the same state on both sides.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO

import pytest

from runner.chart.loader import load_chart
from testbed.helm import helm_binary

# The first registry test builds the registry when `make testbed` has not (minutes on 2 cores).
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1800)]

COMMAND_TIMEOUT = 120
VERSIONS = ("0.1.0", "0.2.0", "1.0.0", "1.1.0-rc.1")
USER, PASSWORD = "chartuser", "s3cret"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


@dataclass
class Homes:
    """Separate Helm-like homes for Helm and for deploy-runner."""

    helm: dict[str, str]
    ours: dict[str, str]


def _env(base: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HELM_CONFIG_HOME": str(base / "config"),
        "HELM_CACHE_HOME": str(base / "cache"),
        "HELM_DATA_HOME": str(base / "data"),
    }


def run_helm(env: dict[str, str], *args: str, cwd: Path | None = None, stdin: IO[str] | None = None) -> Run:
    proc = subprocess.run([str(helm_binary()), *args], capture_output=True, text=True, stdin=stdin,
                          env=env, cwd=cwd, timeout=COMMAND_TIMEOUT, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def run_ours(env: dict[str, str], *args: str, cwd: Path | None = None, stdin: IO[str] | None = None) -> Run:
    """Our program through a link named `helm`, as a user who has it stand in for helm runs
    it: the messages it is compared with name the program as invoked."""
    proc = subprocess.run([str(_helm_link(Path(env["HELM_CONFIG_HOME"]).parent)), *args],
                          capture_output=True, stdin=stdin, text=True, env=env, cwd=cwd,
                          timeout=COMMAND_TIMEOUT, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def _helm_link(base: Path) -> Path:
    link = base / "bin" / "helm"
    if not link.exists():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(Path(sys.executable).with_name("deploy-runner"))
    return link


def both(homes: Homes, *args: str, cwd: Path | None = None) -> tuple[Run, Run]:
    return run_ours(homes.ours, *args, cwd=cwd), run_helm(homes.helm, *args, cwd=cwd)


# ------------------------------------------------------------------ fixtures


class _AuthHandler(SimpleHTTPRequestHandler):
    expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.headers.get("Authorization") != self.expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="charts"')
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _serve(directory: Path, handler: type[SimpleHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def chart_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`helm create` output plus a .helmignore'd file and a plain extra file."""
    base = tmp_path_factory.mktemp("chart")
    env = _env(base / "home")
    assert run_helm(env, "create", "mychart", cwd=base).returncode == 0
    chart = base / "mychart"
    with open(chart / ".helmignore", "a") as ignore:
        ignore.write("secret.txt\n")
    (chart / "secret.txt").write_text("never packaged\n")
    (chart / "extra.txt").write_text("packaged\n")
    return chart


@pytest.fixture(scope="module")
def repo_dir(chart_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A chart repository directory: four versions packaged and indexed by the real Helm."""
    repo = tmp_path_factory.mktemp("repo")
    env = _env(repo.parent / "repo-home")
    for version in VERSIONS:
        assert run_helm(env, "package", str(chart_dir), "--version", version, "-d", str(repo)).returncode == 0
    assert run_helm(env, "repo", "index", str(repo)).returncode == 0
    return repo


@pytest.fixture(scope="module")
def repo_url(repo_dir: Path) -> Iterator[str]:
    yield from _serve(repo_dir, _QuietHandler)


@pytest.fixture(scope="module")
def auth_repo_url(repo_dir: Path) -> Iterator[str]:
    yield from _serve(repo_dir, _AuthHandler)


@pytest.fixture
def homes(tmp_path: Path) -> Homes:
    return Homes(_env(tmp_path / "helm-home"), _env(tmp_path / "our-home"))


@pytest.fixture(scope="module")
def registry() -> Iterator[str]:
    from testbed.registry import running_registry

    with running_registry() as reg:
        yield reg.address


def _added(homes: Homes, url: str, name: str = "myrepo") -> None:
    ours, helm = both(homes, "repo", "add", name, url)
    assert helm.returncode == 0, helm.stderr
    assert ours.returncode == 0, ours.stderr


# ------------------------------------------------------------------ HTTP repositories


def test_repo_add_list_update_state_matches_helm(homes: Homes, repo_url: str) -> None:
    ours, helm = both(homes, "repo", "add", "myrepo", repo_url)
    assert (ours.returncode, ours.stdout) == (helm.returncode, helm.stdout)
    config = [Path(h["HELM_CONFIG_HOME"], "repositories.yaml").read_text() for h in (homes.ours, homes.helm)]
    assert config[0] == config[1]
    caches = [Path(h["HELM_CACHE_HOME"], "repository") for h in (homes.ours, homes.helm)]
    assert sorted(p.name for p in caches[0].iterdir()) == sorted(p.name for p in caches[1].iterdir())
    assert (caches[0] / "myrepo-index.yaml").read_bytes() == (caches[1] / "myrepo-index.yaml").read_bytes()
    for args in (("repo", "list"), ("repo", "add", "myrepo", repo_url), ("repo", "update")):
        ours, helm = both(homes, *args)
        assert (ours.returncode, ours.stdout) == (helm.returncode, helm.stdout), args
    ours, helm = both(homes, "repo", "add", "myrepo", repo_url + "/other")
    assert ours.returncode != 0 and helm.returncode != 0
    assert ours.stderr == helm.stderr


_TIMESTAMP = re.compile(r'"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)"')


def _index_text(path: Path) -> str:
    """An index with its generated/created times (which differ by run) as T."""
    text = path.read_text()
    assert _TIMESTAMP.search(text), text
    return _TIMESTAMP.sub('"T"', text)


@pytest.fixture(scope="module")
def index_source(repo_dir: Path, chart_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Archives to index: repo_dir's four, one in a subdirectory with <&> and UTF-8 in its
    metadata, and a .tgz that is not a chart."""
    source = tmp_path_factory.mktemp("index-source")
    for archive in repo_dir.glob("*.tgz"):
        shutil.copy(archive, source)
    odd = source / "build" / "odd"
    shutil.copytree(chart_dir, odd)
    chart_yaml = odd / "Chart.yaml"
    chart_yaml.write_text(chart_yaml.read_text().replace("name: mychart", "name: odd")
                          + "annotations:\n  note: a <b> & c — ü\n")
    env = _env(tmp_path_factory.mktemp("index-home"))
    assert run_helm(env, "package", str(odd), "-d", str(source / "sub")).returncode == 0
    shutil.rmtree(source / "build")
    (source / "junk.tgz").write_text("not a chart\n")
    return source


@pytest.mark.parametrize("flags", [[], ["--url", "https://charts.example.com/base/"], ["--json"]])
def test_repo_index_writes_helms_index(homes: Homes, index_source: Path, tmp_path: Path, flags: list[str]) -> None:
    dirs = [tmp_path / who for who in ("ours", "helm")]
    for d in dirs:
        shutil.copytree(index_source, d)
    runs = [run(env, "repo", "index", str(d), *flags)
            for run, env, d in zip((run_ours, run_helm), (homes.ours, homes.helm), dirs, strict=True)]
    assert runs[0] == runs[1] and runs[1].returncode == 0, runs
    assert _index_text(dirs[0] / "index.yaml") == _index_text(dirs[1] / "index.yaml")
    assert (dirs[0] / "index.yaml").stat().st_mode & 0o777 == (dirs[1] / "index.yaml").stat().st_mode & 0o777


def test_repo_index_merge_matches_helm(homes: Homes, index_source: Path, repo_dir: Path, tmp_path: Path) -> None:
    """Versions DIR lacks come from --merge (as Helm writes them back); a missing --merge file is made."""
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy(repo_dir / "mychart-0.1.0.tgz", old / "mychart-0.1.0.tgz")
    shutil.copy(repo_dir / "mychart-1.0.0.tgz", old / "mychart-1.0.0.tgz")
    assert run_helm(homes.helm, "repo", "index", str(old), "--url", "https://old.example.com").returncode == 0
    for merge in (old / "index.yaml", tmp_path / "missing.yaml"):
        dirs = [tmp_path / f"{who}-{merge.stem}" for who in ("ours", "helm")]
        targets = [merge, merge.with_name(merge.name + ".helm")]
        if merge.exists():
            shutil.copy(merge, targets[1])
        for d in dirs:
            shutil.copytree(index_source, d)
            (d / "mychart-0.1.0.tgz").unlink()
        runs = [run(env, "repo", "index", str(d), "--merge", str(t))
                for run, env, d, t in zip((run_ours, run_helm), (homes.ours, homes.helm), dirs, targets, strict=True)]
        assert runs[0] == runs[1] and runs[1].returncode == 0, runs
        assert _index_text(dirs[0] / "index.yaml") == _index_text(dirs[1] / "index.yaml")
        assert _index_text(targets[0]) == _index_text(targets[1])


def test_repo_index_errors_are_helms(homes: Homes, tmp_path: Path) -> None:
    for args in (["repo", "index"], ["repo", "index", str(tmp_path / "nodir")]):
        ours, helm = both(homes, *args)
        assert helm.returncode != 0
        assert (ours.returncode, re.sub(r"\d+:", ":", ours.stderr)) == (helm.returncode, re.sub(r"\d+:", ":", helm.stderr))


def test_repo_list_and_update_without_repositories_are_helms(homes: Homes) -> None:
    for args in (("repo", "list"), ("repo", "update")):
        ours, helm = both(homes, *args)
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)


@pytest.mark.parametrize("version", ["", "0.1.0", "^0.1", "~1.1.0-0", ">=0.2.0 <1.0.0"])
def test_pull_from_named_repository_gets_helms_bytes(homes: Homes, repo_url: str, tmp_path: Path, version: str) -> None:
    _added(homes, repo_url)
    ours_dir, helm_dir = tmp_path / "ours", tmp_path / "helm"
    ours_dir.mkdir(), helm_dir.mkdir()
    flags = ["--version", version] if version else []
    ours = run_ours(homes.ours, "pull", "myrepo/mychart", "-d", str(ours_dir), *flags)
    helm = run_helm(homes.helm, "pull", "myrepo/mychart", "-d", str(helm_dir), *flags)
    assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)
    assert _tree(ours_dir) == _tree(helm_dir)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_pull_untar_writes_helms_tree_and_refuses_an_existing_one(homes: Homes, repo_url: str, tmp_path: Path) -> None:
    _added(homes, repo_url)
    ours_dir, helm_dir = tmp_path / "ours", tmp_path / "helm"
    ours = run_ours(homes.ours, "pull", "myrepo/mychart", "--untar", "-d", str(ours_dir))
    helm = run_helm(homes.helm, "pull", "myrepo/mychart", "--untar", "-d", str(helm_dir))
    assert ours.returncode == helm.returncode == 0, ours.stderr
    assert _tree(ours_dir) == _tree(helm_dir)
    ours = run_ours(homes.ours, "pull", "myrepo/mychart", "--untar", "-d", str(ours_dir))
    helm = run_helm(homes.helm, "pull", "myrepo/mychart", "--untar", "-d", str(helm_dir))
    assert ours.returncode != 0
    assert ours.stderr.replace(str(ours_dir), "D") == helm.stderr.replace(str(helm_dir), "D")


_TEMP_SUFFIX = re.compile(r"(\.tgz(?:\.prov)?)\d+: ")


@pytest.fixture
def strict_umask() -> Iterator[None]:
    """umask 077 for the commands run: the archive's mode is then the writer's choice."""
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize("source", ["repo", "oci"])
def test_pull_into_a_missing_directory_fails_and_writes_0644_as_helm(
        homes: Homes, repo_url: str, repo_dir: Path, registry: str, tmp_path: Path, source: str,
        strict_umask: None) -> None:
    """DownloadTo writes with fileutil.AtomicWriteFile: it creates no directory (the error names
    os.CreateTemp's file: random digits, masked here) and gives the archive mode 0644."""
    if source == "repo":
        _added(homes, repo_url)
        ref = ["myrepo/mychart"]
    else:
        pushed = run_helm(homes.helm, "push", str(repo_dir / "mychart-0.1.0.tgz"), f"oci://{registry}/umask",
                          "--plain-http")
        assert pushed.returncode == 0, pushed.stderr
        ref = [f"oci://{registry}/umask/mychart", "--plain-http"]
    ours_dir, helm_dir = tmp_path / "ours", tmp_path / "helm"
    ours_dir.mkdir(), helm_dir.mkdir()
    ours = run_ours(homes.ours, "pull", *ref, "-d", "missing/deeper", cwd=ours_dir)
    helm = run_helm(homes.helm, "pull", *ref, "-d", "missing/deeper", cwd=helm_dir)
    assert helm.returncode == ours.returncode == 1
    assert "missing/deeper/mychart-" in helm.stderr
    assert _TEMP_SUFFIX.sub(r"\1N: ", ours.stderr) == _TEMP_SUFFIX.sub(r"\1N: ", helm.stderr)
    assert _listing(ours_dir) == _listing(helm_dir) == []
    ours = run_ours(homes.ours, "pull", *ref, "-d", str(ours_dir))
    helm = run_helm(homes.helm, "pull", *ref, "-d", str(helm_dir))
    assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)
    assert _tree(ours_dir) == _tree(helm_dir)
    modes = [{p.name: oct(p.stat().st_mode & 0o777) for p in side.iterdir()} for side in (ours_dir, helm_dir)]
    assert modes[0] == modes[1]
    assert set(modes[1].values()) == {"0o644"}


@pytest.mark.parametrize(
    "args",
    [
        ["mychart", "--repo", "{url}"],
        ["mychart", "--repo", "{url}", "--version", "1.1.0-rc.1"],
        ["mychart", "--repo", "{url}", "--version", "~0.2"],
        ["mychart", "--repo", "{url}", "--version", "9.9.9"],
        ["nochart", "--repo", "{url}"],
        ["myrepo/mychart", "--version", "^0.1"],
        ["myrepo/mychart", "--version", "5"],
        ["myrepo/mychart", "--devel"],  # admits 1.1.0-rc.1
        ["myrepo/mychart", "--devel", "--version", "^0.1"],  # --version wins
        ["myrepo/nochart"],
        ["norepo/mychart"],
    ],
)
def test_template_remote_chart_is_identical_to_helm(homes: Homes, repo_url: str, args: list[str]) -> None:
    _added(homes, repo_url)
    argv = ["template", "rel", *[a.format(url=repo_url) for a in args], "--namespace", "ns"]
    ours, helm = both(homes, *argv)
    assert ours.returncode == helm.returncode
    assert ours.stdout == helm.stdout
    assert ours.stderr == helm.stderr


@pytest.mark.parametrize("args", [
    ["all", "myrepo/mychart"],
    ["chart", "myrepo/mychart", "--devel"],
    ["values", "mychart", "--repo", "{url}", "--version", "0.2.0"],
    ["readme", "myrepo/nochart"],
])
def test_show_remote_chart_is_identical_to_helm(homes: Homes, repo_url: str, args: list[str]) -> None:
    _added(homes, repo_url)
    ours, helm = both(homes, "show", *[a.format(url=repo_url) for a in args])
    assert ours == helm


@pytest.fixture(scope="module")
def search_repos(chart_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """Two repositories (indexed by Helm) whose charts differ in name, description,
    keywords and versions (pre-releases included)."""
    charts = {
        "one": [("web", "1.0.0", "Serves NGINX pages", ["web", "nginx"]),
                ("web", "1.2.0-rc.1", "Serves NGINX pages", ["web", "nginx"]),
                ("database", "0.3.0", "A database", ["db"])],
        "two": [("web", "0.9.0", "Another web server", []),
                ("webhook", "2.0.0", "Receives webhooks for the web", ["hooks"]),
                ("zeta", "0.1.0", "Last in line " + "long text " * 8, [])],
    }
    env = _env(tmp_path_factory.mktemp("search-home"))
    urls: list[str] = []
    with contextlib.ExitStack() as stack:
        for repo_name, entries in charts.items():
            repo = tmp_path_factory.mktemp(f"search-{repo_name}")
            for name, version, description, keywords in entries:
                source = tmp_path_factory.mktemp("src") / name
                shutil.copytree(chart_dir, source)
                chart_yaml = source / "Chart.yaml"
                text = re.sub(r"(?m)^(name|description):.*$", "", chart_yaml.read_text())
                chart_yaml.write_text(text + f"name: {name}\ndescription: {description}\n"
                                      + (f"keywords: {keywords}\n" if keywords else ""))
                packaged = run_helm(env, "package", str(source), "--version", version, "-d", str(repo))
                assert packaged.returncode == 0, packaged.stderr
            assert run_helm(env, "repo", "index", str(repo)).returncode == 0
            urls.append(stack.enter_context(contextlib.contextmanager(_serve)(repo, _QuietHandler)))
        yield urls


@pytest.mark.parametrize("args", [
    [], ["web"], ["NGINX"], ["database"], ["hooks"], ["web", "server"], ["zzz"],
    ["zzz", "--fail-on-no-result"], ["-r", "^we.h"], ["-r", "("], ["-l"], ["web", "--versions"],
    ["--devel"], ["--version", "^0.1"], ["--version", "nonsense"], ["-o", "json"],
    ["web", "-o", "yaml", "-l"], ["zzz", "-o", "json"], ["--max-col-width", "8"],
])
def test_search_repo_matches_helm(homes: Homes, search_repos: list[str], args: list[str]) -> None:
    for name, url in zip(("one", "two"), search_repos, strict=True):
        _added(homes, url, name)
    ours, helm = both(homes, "search", "repo", *args)
    assert ours == helm


def test_search_repo_without_or_with_broken_repositories_is_helms(homes: Homes, search_repos: list[str]) -> None:
    ours, helm = both(homes, "search", "repo")
    assert helm.returncode != 0 and ours == helm
    for name, url in zip(("one", "two"), search_repos, strict=True):
        _added(homes, url, name)
    for env in (homes.ours, homes.helm):
        Path(env["HELM_CACHE_HOME"], "repository", "one-index.yaml").write_text("apiVersion: ''\n")
        Path(env["HELM_CACHE_HOME"], "repository", "two-index.yaml").unlink()
    ours, helm = both(homes, "search", "repo", "web")
    assert (ours.returncode, ours.stdout) == (helm.returncode, helm.stdout)
    homes_gone = [run.stderr.replace(env["HELM_CACHE_HOME"], "CACHE")
                  for run, env in ((ours, homes.ours), (helm, homes.helm))]
    assert homes_gone[0] == homes_gone[1]


def test_basic_auth_repository(homes: Homes, auth_repo_url: str, tmp_path: Path) -> None:
    ours, helm = both(homes, "repo", "add", "private", auth_repo_url)
    assert ours.returncode != 0 and helm.returncode != 0
    assert ours.stderr == helm.stderr
    creds = ["--username", USER, "--password", PASSWORD]
    ours, helm = both(homes, "repo", "add", "private", auth_repo_url, *creds)
    assert ours.returncode == helm.returncode == 0, ours.stderr
    ours, helm = both(homes, "template", "rel", "private/mychart", "--version", "0.2.0")
    assert (ours.returncode, ours.stdout) == (helm.returncode, helm.stdout) and ours.returncode == 0
    ours, helm = both(homes, "template", "rel", "mychart", "--repo", auth_repo_url, *creds)
    assert (ours.returncode, ours.stdout) == (0, helm.stdout)
    ours, helm = both(homes, "template", "rel", "mychart", "--repo", auth_repo_url)
    assert ours.returncode != 0 and ours.stderr == helm.stderr


# ------------------------------------------------------------------ package


@pytest.mark.parametrize("flags", [[], ["-d", "out"], ["-d", "./"]])
def test_package_reports_where_it_saved_as_helm(homes: Homes, chart_dir: Path, tmp_path: Path, flags: list[str]) -> None:
    """The default destination is reported as an absolute path, -d as given."""
    cwds = [tmp_path / "ours", tmp_path / "helm"]
    for cwd in cwds:
        (cwd / "out").mkdir(parents=True)
    ours = run_ours(homes.ours, "package", str(chart_dir), *flags, cwd=cwds[0])
    helm = run_helm(homes.helm, "package", str(chart_dir), *flags, cwd=cwds[1])
    assert helm.returncode == 0 and ours.returncode == 0, ours.stderr
    assert ours.stdout.replace(str(cwds[0]), "CWD") == helm.stdout.replace(str(cwds[1]), "CWD")


@pytest.mark.parametrize("flags", [[], ["--version", "2.3.4+meta", "--app-version", "v9"]])
def test_package_reads_back_as_helms_package(homes: Homes, chart_dir: Path, tmp_path: Path, flags: list[str]) -> None:
    ours = run_ours(homes.ours, "package", str(chart_dir), "-d", str(tmp_path / "ours"), *flags)
    helm = run_helm(homes.helm, "package", str(chart_dir), "-d", str(tmp_path / "helm"), *flags)
    assert ours.returncode == helm.returncode == 0, ours.stderr
    assert ours.stdout.replace("/ours/", "/D/") == helm.stdout.replace("/helm/", "/D/")
    [ours_tgz] = (tmp_path / "ours").iterdir()
    [helm_tgz] = (tmp_path / "helm").iterdir()
    assert ours_tgz.name == helm_tgz.name
    ours_chart, helm_chart = load_chart(ours_tgz), load_chart(helm_tgz)
    assert ours_chart.metadata == helm_chart.metadata
    assert _files(ours_chart) == _files(helm_chart)
    assert "secret.txt" not in _files(ours_chart) and "extra.txt" in _files(ours_chart)
    assert _archive_names(ours_tgz) == _archive_names(helm_tgz)
    # Same tar stream as Helm 4 (names, modes, file times, framing); only the deflate bytes differ.
    assert gzip.decompress(ours_tgz.read_bytes()) == gzip.decompress(helm_tgz.read_bytes())


def _files(chart: object) -> dict[str, bytes]:
    return {f.name: f.data for f in [*chart.templates, *chart.files, *chart.raw]}  # type: ignore[attr-defined]


def _archive_names(path: Path) -> list[str]:
    import tarfile

    with tarfile.open(path) as tar:
        return tar.getnames()


# ------------------------------------------------------------------ dependencies

_DEPENDENCIES = """dependencies:
- name: mychart
  version: ~0.1.0
  repository: {url}
- name: mychart
  alias: second
  version: ">=0.2.0"
  repository: "@myrepo"
- name: local
  version: 0.3.0
  repository: file://../local
"""


def _parents(homes: Homes, chart_dir: Path, repo_url: str, tmp_path: Path) -> tuple[Path, Path]:
    parents = []
    for side, env in (("ours", homes.ours), ("helm", homes.helm)):
        base = tmp_path / side
        base.mkdir()
        assert run_helm(env, "create", "parent", cwd=base).returncode == 0
        assert run_helm(env, "create", "local", cwd=base).returncode == 0
        chart_yaml = base / "local" / "Chart.yaml"
        chart_yaml.write_text(chart_yaml.read_text().replace("version: 0.1.0", "version: 0.3.0"))
        with open(base / "parent" / "Chart.yaml", "a") as out:
            out.write(_DEPENDENCIES.format(url=repo_url))
        parents.append(base / "parent")
    return parents[0], parents[1]


def _lock_without_time(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if not line.startswith("generated:")]


def test_dependency_update_build_list_match_helm(homes: Homes, chart_dir: Path, repo_url: str, tmp_path: Path) -> None:
    _added(homes, repo_url)
    ours_parent, helm_parent = _parents(homes, chart_dir, repo_url, tmp_path)
    for args in (["dependency", "list"], ["dependency", "update"], ["dependency", "list"]):
        ours = run_ours(homes.ours, *args, str(ours_parent))
        helm = run_helm(homes.helm, *args, str(helm_parent))
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr), args
    assert _lock_without_time(ours_parent / "Chart.lock") == _lock_without_time(helm_parent / "Chart.lock")
    assert _tree(ours_parent / "charts").keys() == _tree(helm_parent / "charts").keys()
    ours_render = run_ours(homes.ours, "template", "rel", str(ours_parent)).stdout
    helm_render = run_helm(homes.helm, "template", "rel", str(helm_parent)).stdout
    assert ours_render == helm_render

    for parent in (ours_parent, helm_parent):
        for archive in (parent / "charts").glob("mychart-*.tgz"):
            archive.unlink()
    ours = run_ours(homes.ours, "dependency", "build", str(ours_parent))
    helm = run_helm(homes.helm, "dependency", "build", str(helm_parent))
    assert (ours.returncode, ours.stdout) == (helm.returncode, helm.stdout) and ours.returncode == 0
    assert _tree(ours_parent / "charts").keys() == _tree(helm_parent / "charts").keys()

    for parent in (ours_parent, helm_parent):
        chart_yaml = parent / "Chart.yaml"
        chart_yaml.write_text(chart_yaml.read_text().replace("~0.1.0", "~0.2.0"))
    ours = run_ours(homes.ours, "dependency", "build", str(ours_parent))
    helm = run_helm(homes.helm, "dependency", "build", str(helm_parent))
    assert ours.returncode != 0 and ours.stderr == helm.stderr


def test_dependency_update_without_a_matching_version_is_helms_error(homes: Homes, chart_dir: Path, repo_url: str, tmp_path: Path) -> None:
    _added(homes, repo_url)
    ours_parent, helm_parent = _parents(homes, chart_dir, repo_url, tmp_path)
    for parent in (ours_parent, helm_parent):
        chart_yaml = parent / "Chart.yaml"
        chart_yaml.write_text(chart_yaml.read_text().replace("~0.1.0", "~7.0.0"))
    ours = run_ours(homes.ours, "dependency", "update", str(ours_parent))
    helm = run_helm(homes.helm, "dependency", "update", str(helm_parent))
    assert ours.returncode != 0
    assert ours.stderr == helm.stderr


# ------------------------------------------------------------------ OCI registry


def test_helm_push_then_our_pull_and_template(homes: Homes, repo_dir: Path, registry: str, tmp_path: Path) -> None:
    remote = f"oci://{registry}/helm-pushed"
    for version in ("0.1.0", "1.0.0"):
        pushed = run_helm(homes.helm, "push", str(repo_dir / f"mychart-{version}.tgz"), remote, "--plain-http")
        assert pushed.returncode == 0, pushed.stderr
    for version in ("", "0.1.0", "^0.1", ">5"):
        flags = ["--version", version] if version else []
        ours_dir, helm_dir = tmp_path / f"o{version}", tmp_path / f"h{version}"
        ours_dir.mkdir(), helm_dir.mkdir()
        ours = run_ours(homes.ours, "pull", f"{remote}/mychart", "--plain-http", "-d", str(ours_dir), *flags)
        helm = run_helm(homes.helm, "pull", f"{remote}/mychart", "--plain-http", "-d", str(helm_dir), *flags)
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)
        assert _tree(ours_dir) == _tree(helm_dir)
    ours, helm = both(homes, "template", "rel", f"{remote}/mychart", "--version", "1.0.0", "--plain-http")
    assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)


def test_our_push_then_helm_pull_and_template(homes: Homes, chart_dir: Path, registry: str, tmp_path: Path) -> None:
    packaged = run_helm(homes.helm, "package", str(chart_dir), "--version", "3.0.0+build.7", "-d", str(tmp_path))
    assert packaged.returncode == 0
    archive = tmp_path / "mychart-3.0.0+build.7.tgz"
    remote = f"oci://{registry}/ours-pushed"
    ours = run_ours(homes.ours, "push", str(archive), remote, "--plain-http")
    assert ours.returncode == 0, ours.stderr
    assert ours.stderr.startswith(f"Pushed: {registry}/ours-pushed/mychart:3.0.0_build.7\nDigest: sha256:")
    pulled = tmp_path / "pulled"
    pulled.mkdir()
    helm = run_helm(homes.helm, "pull", f"{remote}/mychart", "--version", "3.0.0+build.7",
                    "--plain-http", "-d", str(pulled))
    assert helm.returncode == 0, helm.stderr
    assert (pulled / archive.name).read_bytes() == archive.read_bytes()
    assert ours.stderr.splitlines()[1] in helm.stderr
    ours, helm = both(homes, "template", "rel", f"{remote}/mychart", "--plain-http")
    assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)
    assert helm.returncode == 0
    show = run_helm(homes.helm, "show", "chart", f"{remote}/mychart", "--plain-http")
    assert "version: 3.0.0+build.7" in show.stdout


def test_oci_errors_are_helms(homes: Homes, registry: str) -> None:
    for args in (["pull", f"oci://{registry}/none/mychart"],
                 ["pull", f"oci://{registry}/none/mychart", "--version", "1.0.0"]):
        ours, helm = both(homes, *args, "--plain-http")
        assert ours.returncode != 0 and ours.stderr == helm.stderr, args


def _listing(root: Path) -> list[str]:
    """Every path under root, directories (even empty ones) included."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture(scope="module")
def pinned(chart_dir: Path, registry: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """mychart 1.0.0 and 2.0.0 pushed by Helm: the repository and each version's digest."""
    work = tmp_path_factory.mktemp("pinned")
    env = _env(work / "home")
    digests = []
    for version in ("1.0.0", "2.0.0"):
        assert run_helm(env, "package", str(chart_dir), "--version", version, "-d", str(work)).returncode == 0
        pushed = run_helm(env, "push", str(work / f"mychart-{version}.tgz"), f"oci://{registry}/pinned", "--plain-http")
        assert pushed.returncode == 0, pushed.stderr
        digests.append(pushed.stderr.splitlines()[1].removeprefix("Digest: "))
    return f"oci://{registry}/pinned/mychart", digests[0], digests[1]


def test_pull_by_digest_matches_helm(homes: Homes, pinned: tuple[str, str, str], tmp_path: Path) -> None:
    """A digest pins the manifest: alone, after a tag, or with --version; same files and report."""
    remote, first, second = pinned
    cases = [
        [f"{remote}@{first}"],
        [f"{remote}:1.0.0@{first}"],
        [f"{remote}@{first}", "--version", "1.0.0"],
        [f"{remote}@{first}", "--version", "9.9.9"],  # an unknown tag does not stop a digest pull
        [f"{remote}:@{first}"],
        [f"{remote}@"],  # an empty digest is no digest
    ]
    for n, args in enumerate(cases):
        dirs = [tmp_path / f"{who}{n}" for who in ("ours", "helm")]
        for d in dirs:
            d.mkdir()
        runs = [run(env, "pull", *args, "--plain-http", "-d", str(d))
                for run, env, d in zip((run_ours, run_helm), (homes.ours, homes.helm), dirs, strict=True)]
        assert runs[1].returncode == 0, runs[1].stderr
        assert runs[0] == runs[1], args
        assert _tree(dirs[0]) == _tree(dirs[1]), args


def test_digest_errors_are_helms(homes: Homes, pinned: tuple[str, str, str], tmp_path: Path) -> None:
    remote, first, second = pinned
    cases = [
        [f"{remote}@{first}", "--version", "2.0.0"],  # the tag names another manifest
        [f"{remote}:2.0.0@{first}"],
        [f"{remote}:1.0.0", "--version", "2.0.0"],
        [f"{remote}@sha256:" + "0" * 64],  # well formed, not in the registry
        [f"{remote}@sha256:abc"],
        [f"{remote}@sha256:" + "G" * 64],
        [f"{remote}@md5:abc"],
        [f"{remote}@sha256"],
    ]
    for args in cases:
        ours, helm = both(homes, "pull", *args, "--plain-http", "-d", str(tmp_path))
        assert helm.returncode != 0
        assert ours == helm, args
    archive = tmp_path / "again.tgz"
    assert run_helm(homes.helm, "pull", f"{remote}:1.0.0", "--plain-http", "-d", str(tmp_path)).returncode == 0
    (tmp_path / "mychart-1.0.0.tgz").rename(archive)
    ours, helm = both(homes, "push", str(archive), f"{remote.rsplit('/', 1)[0]}@{first}", "--plain-http")
    assert helm.returncode != 0 and ours == helm


def test_template_and_untar_by_digest_match_helm(homes: Homes, pinned: tuple[str, str, str], tmp_path: Path) -> None:
    remote, first, _ = pinned
    ours, helm = both(homes, "template", "rel", f"{remote}@{first}", "--plain-http")
    assert helm.returncode == 0, helm.stderr
    assert ours == helm
    for ref in (f"{remote}@{first}", f"{remote}:1.0.0"):
        dirs = [tmp_path / who / ref.rsplit("/", 1)[-1] for who in ("ours", "helm")]
        for d in dirs:
            d.mkdir(parents=True)
        runs = [run(env, "pull", ref, "--plain-http", "--untar", "-d", str(d))
                for run, env, d in zip((run_ours, run_helm), (homes.ours, homes.helm), dirs, strict=True)]
        assert runs[0] == runs[1] and runs[1].returncode == 0, ref
        assert _listing(dirs[0]) == _listing(dirs[1]), ref
        assert _tree(dirs[0]) == _tree(dirs[1]), ref


# ------------------------------------------------------------------ TLS options


@pytest.fixture(scope="module")
def tls_repo(repo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object]]:
    """The repository over HTTPS on loopback, requiring a client certificate from the test CA."""
    import ssl

    from testbed.pki import create_pki

    pki = create_pki(tmp_path_factory.mktemp("pki"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki.kwok.cert, pki.kwok.key)
    context.load_verify_locations(pki.ca.cert)
    context.verify_mode = ssl.CERT_REQUIRED
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(repo_dir)))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", pki
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_tls_repository_with_ca_and_client_certificate(homes: Homes, tls_repo: tuple[str, object], tmp_path: Path) -> None:
    url, pki = tls_repo
    client = ["--cert-file", str(pki.admin.cert), "--key-file", str(pki.admin.key)]  # type: ignore[attr-defined]
    ours, helm = both(homes, "repo", "add", "secure", url, *client)
    assert ours.returncode != 0 and helm.returncode != 0
    assert ours.stderr == helm.stderr
    ours, helm = both(homes, "repo", "add", "secure", url, "--ca-file", str(pki.ca.cert), *client)  # type: ignore[attr-defined]
    assert ours.returncode == helm.returncode == 0, ours.stderr
    ours, helm = both(homes, "template", "rel", "secure/mychart", "--version", "0.2.0")
    assert (ours.returncode, ours.stdout) == (0, helm.stdout)
    for flags in (["--insecure-skip-tls-verify", *client],
                  ["--ca-file", str(pki.ca.cert), *client]):  # type: ignore[attr-defined]
        ours, helm = both(homes, "template", "rel", "mychart", "--repo", url, *flags)
        assert (ours.returncode, ours.stdout) == (0, helm.stdout), ours.stderr
    ours, helm = both(homes, "template", "rel", "mychart", "--repo", url, "--insecure-skip-tls-verify")
    assert ours.returncode != 0 and helm.returncode != 0


def test_dependency_update_and_build_from_oci_match_helm(homes: Homes, repo_dir: Path, registry: str, tmp_path: Path) -> None:
    remote = f"oci://{registry}/deps"
    for version in ("0.1.0", "0.2.0", "1.0.0"):
        assert run_helm(homes.helm, "push", str(repo_dir / f"mychart-{version}.tgz"), remote, "--plain-http").returncode == 0
    parents = []
    for side in ("ours", "helm"):
        (tmp_path / side).mkdir()
        assert run_helm(homes.helm, "create", "parent", cwd=tmp_path / side).returncode == 0
        with open(tmp_path / side / "parent" / "Chart.yaml", "a") as out:
            out.write(f"dependencies:\n- name: mychart\n  version: ~0.1.0\n  repository: {remote}\n"
                      f"- name: mychart\n  alias: exact\n  version: 0.2.0\n  repository: {remote}\n")
        parents.append(tmp_path / side / "parent")
    ours_parent, helm_parent = parents
    for command in ("update", "build"):
        ours = run_ours(homes.ours, "dependency", command, str(ours_parent), "--plain-http")
        helm = run_helm(homes.helm, "dependency", command, str(helm_parent), "--plain-http")
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)
        assert _lock_without_time(ours_parent / "Chart.lock") == _lock_without_time(helm_parent / "Chart.lock")
        assert _tree(ours_parent / "charts") == _tree(helm_parent / "charts")


# ------------------------------------------------------------------ archive safety


def _evil_archive() -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in (("evil/Chart.yaml", b"apiVersion: v2\nname: evil\nversion: 1.0.0\n"),
                           ("evil/../../escape.txt", b"outside\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def evil_repo_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    repo = tmp_path_factory.mktemp("evil-repo")
    (repo / "evil-1.0.0.tgz").write_bytes(_evil_archive())
    (repo / "index.yaml").write_text(
        "apiVersion: v1\nentries:\n  evil:\n  - apiVersion: v2\n    name: evil\n    version: 1.0.0\n"
        "    urls: [evil-1.0.0.tgz]\n"
    )
    yield from _serve(repo, _QuietHandler)


def test_unsafe_downloads_never_write_outside(homes: Homes, evil_repo_url: str, tmp_path: Path) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    pulled = run_ours(homes.ours, "pull", "evil", "--repo", evil_repo_url, "--untar", "-d", str(work))
    assert pulled.returncode != 0 and "Traceback" not in pulled.stderr
    rendered = run_ours(homes.ours, "template", "rel", "evil", "--repo", evil_repo_url)
    assert rendered.returncode != 0 and "Traceback" not in rendered.stderr
    parent = work / "parent"
    (parent / "templates").mkdir(parents=True)
    (parent / "Chart.yaml").write_text(
        f"apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n- name: evil\n  version: 1.0.0\n"
        f"  repository: {evil_repo_url}\n"
    )
    run_ours(homes.ours, "dependency", "update", str(parent))
    assert not list((parent / "charts").glob("*.tgz"))
    assert not [p for p in tmp_path.rglob("escape.txt")]


def test_pull_by_absolute_url_gets_helms_bytes(homes: Homes, repo_url: str, tmp_path: Path) -> None:
    ours_dir, helm_dir = tmp_path / "ours", tmp_path / "helm"
    ours_dir.mkdir(), helm_dir.mkdir()
    url = f"{repo_url}/mychart-0.2.0.tgz"
    ours = run_ours(homes.ours, "pull", url, "-d", str(ours_dir))
    helm = run_helm(homes.helm, "pull", url, "-d", str(helm_dir))
    assert (ours.returncode, ours.stderr) == (helm.returncode, helm.stderr)
    assert _tree(ours_dir) == _tree(helm_dir)
    ours, helm = both(homes, "pull", f"{repo_url}/missing-0.1.0.tgz", "-d", str(ours_dir))
    assert ours.returncode != 0 and ours.stderr == helm.stderr


# ------------------------------------------------------------------ registry with basic auth


@pytest.fixture(scope="module")
def auth_registry() -> Iterator[str]:
    from testbed.registry import running_registry

    with running_registry(users={USER: PASSWORD}) as reg:
        yield reg.address


def _no_digests(text: str) -> str:
    import re

    return re.sub(r"sha256:[0-9a-f]{64}", "sha256:D", text)


def test_registry_basic_auth_both_ways(homes: Homes, repo_dir: Path, auth_registry: str, tmp_path: Path) -> None:
    remote = f"oci://{auth_registry}/private"
    creds = ["--username", USER, "--password", PASSWORD]
    archive = str(repo_dir / "mychart-0.1.0.tgz")
    ours, helm = both(homes, "push", archive, remote, "--plain-http")
    assert ours.returncode != 0 and _no_digests(ours.stderr) == _no_digests(helm.stderr)
    assert run_helm(homes.helm, "push", archive, remote, "--plain-http", *creds).returncode == 0
    ours = run_ours(homes.ours, "push", str(repo_dir / "mychart-1.0.0.tgz"), remote, "--plain-http", *creds)
    assert ours.returncode == 0, ours.stderr
    for flags in ([], ["--username", USER, "--password", "wrong"], ["--version", "1.0.0"]):
        ours, helm = both(homes, "pull", f"{remote}/mychart", "--plain-http", "-d", str(tmp_path), *flags)
        assert ours.returncode != 0 and ours.stderr == helm.stderr, flags
    for version in ("0.1.0", "1.0.0"):
        ours_dir, helm_dir = tmp_path / f"o{version}", tmp_path / f"h{version}"
        ours_dir.mkdir(), helm_dir.mkdir()
        flags = ["--version", version, "--plain-http", *creds]
        ours = run_ours(homes.ours, "pull", f"{remote}/mychart", "-d", str(ours_dir), *flags)
        helm = run_helm(homes.helm, "pull", f"{remote}/mychart", "-d", str(helm_dir), *flags)
        assert (ours.returncode, ours.stderr) == (helm.returncode, helm.stderr)
        assert _tree(ours_dir) == _tree(helm_dir) == {f"mychart-{version}.tgz": (repo_dir / f"mychart-{version}.tgz").read_bytes()}


def test_registry_login_credentials_are_used(homes: Homes, repo_dir: Path, auth_registry: str, tmp_path: Path) -> None:
    """`helm registry login` stores credentials; our pull and push find them in the same config."""
    remote = f"oci://{auth_registry}/login"
    login = run_helm(homes.ours, "registry", "login", auth_registry, "--username", USER,
                     "--password", PASSWORD, "--plain-http")
    assert login.returncode == 0, login.stderr
    pushed = run_ours(homes.ours, "push", str(repo_dir / "mychart-0.2.0.tgz"), remote, "--plain-http")
    assert pushed.returncode == 0, pushed.stderr
    pulled = run_ours(homes.ours, "pull", f"{remote}/mychart", "--plain-http", "-d", str(tmp_path))
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "mychart-0.2.0.tgz").read_bytes() == (repo_dir / "mychart-0.2.0.tgz").read_bytes()


def _run_with_stdin(run: Callable[..., Run], env: dict[str, str], stdin: str, *args: str) -> Run:
    """`run` with `stdin` as the process's standard input."""
    with tempfile.TemporaryFile("w+") as handle:
        handle.write(stdin)
        handle.seek(0)
        return run(env, *args, stdin=handle)


def _registry_config(env: dict[str, str]) -> tuple[str, int] | None:
    path = Path(env["HELM_CONFIG_HOME"], "registry", "config.json")
    return (path.read_text(), path.stat().st_mode & 0o777) if path.exists() else None


def test_registry_login_logout_match_helm(homes: Homes, auth_registry: str) -> None:
    """Same messages, exit codes and credentials file (content and mode) after each step."""
    steps: list[tuple[str, list[str]]] = [
        ("", ["login", auth_registry, "-u", USER, "-p", "wrong", "--plain-http"]),
        ("", ["login", auth_registry, "-u", USER, "-p", PASSWORD, "--plain-http"]),
        (PASSWORD + "\n", ["login", auth_registry, "-u", USER, "--password-stdin", "--plain-http"]),
        ("", ["login", auth_registry, "-u", USER, "--password-stdin", "--plain-http"]),
        ("", ["login", auth_registry, "--plain-http"]),  # prompts, then EOF
        ("", ["login", "--plain-http"]),
        ("", ["login", auth_registry, "-u", USER, "-p", PASSWORD]),  # HTTPS to a plain registry
        ("", ["login", "127.0.0.1:1", "-u", USER, "-p", PASSWORD, "--plain-http"]),
        ("", ["logout", auth_registry]),
        ("", ["logout", auth_registry]),
        ("", ["logout"]),
    ]
    for stdin, args in steps:
        ours = _run_with_stdin(run_ours, homes.ours, stdin, "registry", *args)
        helm = _run_with_stdin(run_helm, homes.helm, stdin, "registry", *args)
        assert ours == helm, args
        assert _registry_config(homes.ours) == _registry_config(homes.helm), args


def test_our_login_serves_helm_pull(homes: Homes, repo_dir: Path, auth_registry: str, tmp_path: Path) -> None:
    remote = f"oci://{auth_registry}/ours-login"
    login = run_ours(homes.helm, "registry", "login", auth_registry, "-u", USER, "-p", PASSWORD, "--plain-http")
    assert login.returncode == 0, login.stderr
    assert run_helm(homes.helm, "push", str(repo_dir / "mychart-0.2.0.tgz"), remote, "--plain-http").returncode == 0
    pulled = run_helm(homes.helm, "pull", f"{remote}/mychart", "--plain-http", "-d", str(tmp_path))
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "mychart-0.2.0.tgz").read_bytes() == (repo_dir / "mychart-0.2.0.tgz").read_bytes()


def test_template_dependency_update_fetches_missing_subcharts_as_helm(homes: Homes, chart_dir: Path, repo_url: str, tmp_path: Path) -> None:
    _added(homes, repo_url)
    ours_parent, helm_parent = _parents(homes, chart_dir, repo_url, tmp_path)
    plain_ours = run_ours(homes.ours, "template", "rel", str(ours_parent))
    plain_helm = run_helm(homes.helm, "template", "rel", str(helm_parent))
    assert plain_ours.returncode != 0
    assert plain_ours.stderr.replace(str(ours_parent), "P") == plain_helm.stderr.replace(str(helm_parent), "P")
    ours = run_ours(homes.ours, "template", "rel", str(ours_parent), "--dependency-update")
    helm = run_helm(homes.helm, "template", "rel", str(helm_parent), "--dependency-update")
    assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)
    assert ours.returncode == 0 and "Saving 3 charts" in ours.stdout


# ------------------------------------------------------------------ provenance

_KEY_PARAMS = """%no-protection
Key-Type: RSA
Key-Length: 2048
Name-Real: {name}
Name-Email: {email}
Expire-Date: 0
%commit
"""


def _gpg_keyrings(home: Path, name: str) -> tuple[Path, Path]:
    """A fresh key in its own GnuPG home, exported as Helm's legacy pubring/secring files."""
    import shutil

    # gpg ships with the machine image; a missing one must fail loudly, not skip provenance tests.
    assert shutil.which("gpg") is not None, "gpg (Debian package gnupg) is needed for provenance tests"
    home.mkdir(mode=0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    params = home / "params"
    params.write_text(_KEY_PARAMS.format(name=name, email=f"{name.lower().replace(' ', '.')}@example.com"))
    try:
        for args, out in ((["--batch", "--gen-key", str(params)], None),
                          (["--export"], "pubring.gpg"), (["--export-secret-keys"], "secring.gpg")):
            proc = subprocess.run(["gpg", *args], env=env, capture_output=True, timeout=COMMAND_TIMEOUT, check=True)
            if out:
                (home.parent / f"{home.name}-{out}").write_bytes(proc.stdout)
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, capture_output=True, timeout=30, check=False)
    return home.parent / f"{home.name}-pubring.gpg", home.parent / f"{home.name}-secring.gpg"


@pytest.fixture(scope="module")
def signed_repo(chart_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, Path, Path]]:
    """A repository whose 0.5.0 is signed (helm package --sign) and whose 0.6.0 has a tampered archive."""
    base = tmp_path_factory.mktemp("signed")
    pubring, secring = _gpg_keyrings(base / "signer", "Chart Signer")
    other_pubring, _ = _gpg_keyrings(base / "other", "Someone Else")
    repo = base / "repo"
    env = _env(base / "home")
    for version in ("0.5.0", "0.6.0"):
        signed = run_helm(env, "package", str(chart_dir), "--version", version, "--sign", "--key", "Chart Signer",
                          "--keyring", str(secring), "-d", str(repo))
        assert signed.returncode == 0, signed.stderr
    tampered = repo / "mychart-0.6.0.tgz"
    tampered.write_bytes(tampered.read_bytes() + b"\0")
    assert run_helm(env, "repo", "index", str(repo)).returncode == 0
    for url in _serve(repo, _QuietHandler):
        yield url, pubring, other_pubring, secring


def test_pull_verify_matches_helm(homes: Homes, signed_repo: tuple[str, Path, Path, Path], tmp_path: Path) -> None:
    url, pubring, other, _ = signed_repo
    cases = [
        ["--version", "0.5.0", "--verify", "--keyring", str(pubring)],
        ["--version", "0.6.0", "--verify", "--keyring", str(pubring)],
        ["--version", "0.5.0", "--verify", "--keyring", str(other)],
        ["--version", "0.5.0", "--verify", "--keyring", str(tmp_path / "missing.gpg")],
        ["--version", "0.5.0", "--prov"],
    ]
    codes = []
    for i, flags in enumerate(cases):
        ours_dir, helm_dir = tmp_path / f"o{i}", tmp_path / f"h{i}"
        ours_dir.mkdir(), helm_dir.mkdir()
        ours = run_ours(homes.ours, "pull", "mychart", "--repo", url, "-d", str(ours_dir), *flags)
        helm = run_helm(homes.helm, "pull", "mychart", "--repo", url, "-d", str(helm_dir), *flags)
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr), flags
        if ours.returncode == 0:
            assert _tree(ours_dir) == _tree(helm_dir)
        codes.append(helm.returncode)
    # Verified pulls succeed and the others fail: both halves of the comparison ran.
    assert codes[0] == 0 and codes[-1] == 0 and all(codes[2:4]), codes


def test_verify_command_and_template_verify_match_helm(homes: Homes, signed_repo: tuple[str, Path, Path, Path], chart_dir: Path, tmp_path: Path) -> None:
    url, pubring, other, _ = signed_repo
    pulled = run_helm(homes.helm, "pull", "mychart", "--repo", url, "--version", "0.5.0", "--prov", "-d", str(tmp_path))
    assert pulled.returncode == 0, pulled.stderr
    archive = str(tmp_path / "mychart-0.5.0.tgz")
    cases = [
        ["verify", archive, "--keyring", str(pubring)],
        ["verify", archive, "--keyring", str(other)],
        ["verify", str(chart_dir), "--keyring", str(pubring)],
        ["template", "rel", archive, "--verify", "--keyring", str(pubring)],
        ["template", "rel", archive, "--verify", "--keyring", str(other)],
        ["template", "rel", "mychart", "--repo", url, "--version", "0.5.0", "--verify", "--keyring", str(pubring)],
        ["template", "rel", "mychart", "--repo", url, "--version", "0.6.0", "--verify", "--keyring", str(pubring)],
    ]
    for args in cases:
        ours, helm = both(homes, *args)
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr), args


def test_package_sign_is_verified_by_helm(homes: Homes, signed_repo: tuple[str, Path, Path, Path], chart_dir: Path, tmp_path: Path) -> None:
    _, pubring, other, secring = signed_repo
    ours = run_ours(homes.ours, "package", str(chart_dir), "--sign", "--key", "Chart Signer",
                    "--keyring", str(secring), "-d", str(tmp_path))
    assert ours.returncode == 0, ours.stderr
    archive = str(tmp_path / "mychart-0.1.0.tgz")
    for keyring in (pubring, other):
        ours, helm = both(homes, "verify", archive, "--keyring", str(keyring))
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)
    assert helm.returncode != 0 and ours.returncode != 0
    for flags in (["--sign"], ["--sign", "--key", "Nobody", "--keyring", str(secring)]):
        ours, helm = both(homes, "package", str(chart_dir), "-d", str(tmp_path / "x"), *flags)
        assert (ours.returncode, ours.stderr) == (helm.returncode, helm.stderr), flags


def test_oci_provenance_layer_both_ways(homes: Homes, signed_repo: tuple[str, Path, Path, Path], registry: str, chart_dir: Path, tmp_path: Path) -> None:
    url, pubring, _, secring = signed_repo
    fetched = run_helm(homes.helm, "pull", "mychart", "--repo", url, "--version", "0.5.0", "--prov", "-d", str(tmp_path))
    assert fetched.returncode == 0, fetched.stderr
    assert run_helm(homes.helm, "push", str(tmp_path / "mychart-0.5.0.tgz"), f"oci://{registry}/prov-helm",
                    "--plain-http").returncode == 0
    signed = tmp_path / "ours"
    assert run_ours(homes.ours, "package", str(chart_dir), "--version", "0.7.0", "--sign", "--key", "Chart Signer",
                    "--keyring", str(secring), "-d", str(signed)).returncode == 0
    pushed = run_ours(homes.ours, "push", str(signed / "mychart-0.7.0.tgz"), f"oci://{registry}/prov-ours", "--plain-http")
    assert pushed.returncode == 0, pushed.stderr
    for ref, version in ((f"oci://{registry}/prov-helm/mychart", "0.5.0"), (f"oci://{registry}/prov-ours/mychart", "0.7.0")):
        ours_dir, helm_dir = tmp_path / f"o{version}", tmp_path / f"h{version}"
        ours_dir.mkdir(), helm_dir.mkdir()
        flags = ["--version", version, "--verify", "--keyring", str(pubring), "--plain-http"]
        ours = run_ours(homes.ours, "pull", ref, "-d", str(ours_dir), *flags)
        helm = run_helm(homes.helm, "pull", ref, "-d", str(helm_dir), *flags)
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr)
        assert ours.returncode == 0 and _tree(ours_dir) == _tree(helm_dir)


def test_dependency_update_verify_matches_helm(homes: Homes, signed_repo: tuple[str, Path, Path, Path], tmp_path: Path) -> None:
    import re

    url, pubring, _, _ = signed_repo
    for version in ("0.5.0", "0.6.0"):
        outputs, trees = [], []
        for side, runner in (("ours", run_ours), ("helm", run_helm)):
            base = tmp_path / version / side
            base.mkdir(parents=True)
            assert run_helm(homes.helm, "create", "parent", cwd=base).returncode == 0
            with open(base / "parent" / "Chart.yaml", "a") as out:
                out.write(f"dependencies:\n- name: mychart\n  version: {version}\n  repository: {url}\n")
            env = homes.ours if side == "ours" else homes.helm
            run = runner(env, "dependency", "update", "parent", "--verify", "--keyring", str(pubring), cwd=base)
            outputs.append((run.returncode, re.sub(r"tmpcharts-\d+", "tmpcharts-N", run.stdout + run.stderr)))
            trees.append(_tree(base / "parent" / "charts"))
        assert outputs[0] == outputs[1], version
        assert trees[0] == trees[1]


@pytest.mark.parametrize(
    "args",
    [
        ["repo", "add", "x", "oci://127.0.0.1:9/charts"],
        ["repo", "add", "x", "ftp://127.0.0.1/x"],
        ["repo", "add", "a/b", "http://127.0.0.1:9"],
        ["repo", "add", "x", "http://127.0.0.1:9"],
        ["repo", "remove", "nope"],
        ["repo", "update", "nope"],
        ["template", "rel", "x", "--repo", "ftp://127.0.0.1/x"],
        ["pull", "oci://127.0.0.1:9/x/y", "--plain-http", "--version", "1.0.0"],
        ["push", "missing.tgz", "oci://127.0.0.1:9/x"],
        ["push", "only-one.tgz"],
        ["dependency", "update", "no-such-chart"],
        ["dependency", "build", "no-such-chart"],
        ["package", "no-such-chart"],
        ["verify", "no-such-chart.tgz"],
    ],
)
def test_user_errors_are_helms(homes: Homes, args: list[str]) -> None:
    ours, helm = both(homes, *args)
    assert ours.returncode != 0 and helm.returncode != 0
    assert ours.stderr == helm.stderr


_BAD_INDEX = """apiVersion: v1
entries:
  mychart:
  - {name: mychart, version: 0.1.0, apiVersion: v2, urls: [mychart-0.1.0.tgz]}
  - {name: mychart, version: not-semver, urls: [x.tgz]}
  - {name: "", version: 0.3.0, urls: [y.tgz]}
  - {name: mychart, version: 0.4.0, urls: []}
"""


@pytest.fixture(scope="module")
def bad_index_url(repo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    repo = tmp_path_factory.mktemp("bad-index")
    (repo / "mychart-0.1.0.tgz").write_bytes((repo_dir / "mychart-0.1.0.tgz").read_bytes())
    (repo / "index.yaml").write_text(_BAD_INDEX)
    yield from _serve(repo, _QuietHandler)


def _masked(run: Run, env: dict[str, str]) -> tuple[int, str, str]:
    import re

    err = run.stderr.replace(env["HELM_CACHE_HOME"], "CACHE")
    err = re.sub(r"repository/[A-Za-z0-9+=_-]{28}-index\.yaml", "repository/RANDOM-index.yaml", err)
    return run.returncode, run.stdout, err


def test_invalid_index_entries_are_skipped_with_helms_warnings(homes: Homes, bad_index_url: str) -> None:
    for args in (["repo", "add", "bad", bad_index_url],
                 ["template", "rel", "bad/mychart", "--version", "0.1.0"],
                 ["template", "rel", "bad/mychart"],
                 ["template", "rel", "mychart", "--repo", bad_index_url, "--version", "0.1.0"]):
        ours, helm = both(homes, *args)
        assert _masked(ours, homes.ours) == _masked(helm, homes.helm), args


def test_empty_dependency_list_is_not_a_missing_one(homes: Homes, tmp_path: Path) -> None:
    """Go tells `dependencies: []` from no key: update writes a Chart.lock, list prints an empty table."""
    parents = []
    for side in ("ours", "helm"):
        (tmp_path / side).mkdir()
        assert run_helm(homes.helm, "create", "parent", cwd=tmp_path / side).returncode == 0
        with open(tmp_path / side / "parent" / "Chart.yaml", "a") as out:
            out.write("dependencies: []\n")
        parents.append(tmp_path / side / "parent")
    for args in (["dependency", "list"], ["dependency", "update"], ["dependency", "build"]):
        ours = run_ours(homes.ours, *args, "parent", cwd=parents[0].parent)
        helm = run_helm(homes.helm, *args, "parent", cwd=parents[1].parent)
        assert (ours.returncode, ours.stdout, ours.stderr) == (helm.returncode, helm.stdout, helm.stderr), args
    assert _lock_without_time(parents[0] / "Chart.lock") == _lock_without_time(parents[1] / "Chart.lock")


def test_cache_and_config_files_match_helms(homes: Homes, repo_url: str, signed_repo: tuple[str, Path, Path, Path]) -> None:
    """Helm 4 keeps remote charts in its content cache (<sha256>.chart, .prov) and locks repositories.yaml."""
    signed_url, pubring, _, _ = signed_repo
    for args in (["repo", "add", "myrepo", repo_url],
                 ["template", "rel", "myrepo/mychart", "--version", "0.2.0"],
                 ["template", "rel", "mychart", "--repo", signed_url, "--version", "0.5.0", "--verify",
                  "--keyring", str(pubring)]):
        ours, helm = both(homes, *args)
        assert (ours.returncode, ours.stdout) == (helm.returncode, helm.stdout), args

    def files(env: dict[str, str]) -> list[str]:
        roots = [Path(env["HELM_CONFIG_HOME"]), Path(env["HELM_CACHE_HOME"])]
        return sorted(f"{i}/{p.relative_to(root)}" for i, root in enumerate(roots) for p in root.rglob("*") if p.is_file())

    assert files(homes.ours) == files(homes.helm)


def test_content_cache_serves_repeated_renders(homes: Homes, repo_url: str) -> None:
    _added(homes, repo_url)
    first = run_ours(homes.ours, "template", "rel", "myrepo/mychart", "--version", "0.2.0")
    [cached] = Path(homes.ours["HELM_CACHE_HOME"], "content").rglob("*.chart")
    data = cached.read_bytes()
    cached.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # a damaged entry is fetched again
    second = run_ours(homes.ours, "template", "rel", "myrepo/mychart", "--version", "0.2.0")
    assert first.returncode == second.returncode == 0 and first.stdout == second.stdout
