"""Chart-source pieces that need no network: index lookups, digests, tables, references, packaging."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from runner.chart.loader import load_chart
from runner.chart.model import Dependency
from runner.chart.package import PackageOptions, gzip_with_header, package_chart
from runner.chart.sources import oci
from runner.chart.sources.errors import SourceError
from runner.chart.sources.http import HttpOptions
from runner.chart.sources.index import load_index, resolve_reference_url
from runner.chart.sources.lockfile import hash_req
from runner.chart.sources.messages import WARNING, quiet
from runner.chart.sources.paths import HelmPaths
from runner.chart.sources.repofile import Entry, RepoFile, load_repo_file, write_repo_file
from runner.encoding.uitable import render_table

INDEX = b"""apiVersion: v1
entries:
  web:
  - name: web
    version: 0.2.0
    urls: [web-0.2.0.tgz]
  - name: web
    version: 1.0.0-rc.1
    urls: [web-1.0.0-rc.1.tgz]
  - name: web
    version: 0.10.0
    urls: [https://cdn.example/web-0.10.0.tgz]
  - name: web
    version: not-semver
    urls: [x.tgz]
  empty: []
"""


def _collector() -> tuple[list[tuple[str, str]], Callable[[str, str], None]]:
    said: list[tuple[str, str]] = []
    return said, lambda kind, text: said.append((kind, text))


def test_index_entries_are_sorted_newest_first_and_invalid_ones_skipped() -> None:
    said, say = _collector()
    index = load_index(INDEX, "test", say=say)
    assert [cv.version for cv in index.entries["web"]] == ["1.0.0-rc.1", "0.10.0", "0.2.0"]
    [(kind, warning)] = said
    assert kind == WARNING  # on stderr, where Helm's slog writes it
    assert warning.startswith('level=WARN msg="skipping loading invalid entry for chart \\"web\\" \\"not-semver\\" from test')
    assert warning.endswith('validation: chart.metadata.version \\"not-semver\\" is invalid"')


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [("", "0.10.0"), ("0.2.0", "0.2.0"), ("~0.2", "0.2.0"), ("^1.0.0-0", "1.0.0-rc.1")],
)
def test_index_get_picks_exact_then_newest_match(constraint: str, expected: str) -> None:
    said, say = _collector()
    assert load_index(INDEX, "test", say=quiet).get("web", constraint, say=say).version == expected
    if constraint and constraint != expected:  # Helm warns that it fell back to the closest version
        [(kind, warning)] = said
        assert kind == WARNING and warning.startswith('level=WARN msg="unable to find exact version requested;')
        assert warning.endswith(f"selected={expected}")
    else:
        assert said == []


def test_index_get_errors_are_helms() -> None:
    index = load_index(INDEX, "test", say=quiet)
    with pytest.raises(SourceError, match="^no chart name found$"):
        index.get("nope", "", say=quiet)
    with pytest.raises(SourceError, match="^no chart version found$"):
        index.get("empty", "", say=quiet)
    with pytest.raises(SourceError, match="^no chart version found for web-9$"):
        index.get("web", "9", say=quiet)


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"", "empty index.yaml file"), (b"entries: {}\n", "no API version specified")],
)
def test_bad_indexes_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        load_index(data, "test", say=quiet)


@pytest.mark.parametrize(
    ("base", "ref", "expected"),
    [
        ("http://h/charts", "web-1.tgz", "http://h/charts/web-1.tgz"),
        ("http://h/charts/", "sub/web-1.tgz", "http://h/charts/sub/web-1.tgz"),
        ("http://h/charts?token=1", "web-1.tgz", "http://h/charts/web-1.tgz?token=1"),
        ("http://h/charts", "https://cdn/web-1.tgz", "https://cdn/web-1.tgz"),
    ],
)
def test_chart_urls_resolve_under_the_repository(base: str, ref: str, expected: str) -> None:
    assert resolve_reference_url(base, ref) == expected


def test_lock_digest_is_helms() -> None:
    """The digest `helm dependency update` wrote for this Chart.yaml (alias @repo already rewritten)."""
    url = "http://127.0.0.1:18765"
    req = [
        Dependency(name="mychart", version="~0.1.0", repository=url),
        Dependency(name="mychart", version=">=0.2.0", repository=url, alias="second"),
    ]
    locked = [
        Dependency(name="mychart", version="0.1.0", repository=url),
        Dependency(name="mychart", version="1.0.0", repository=url),
    ]
    assert (
        hash_req(req, locked)
        == "sha256:86aaca46668979f37e6cc944b8978604975311c70c702e9a9ca67ef333f1be12"
    )


def test_table_pads_every_cell_like_uitable() -> None:
    text = render_table([["NAME", "URL"], ["stable", "http://x"]])
    assert text == "NAME  \tURL     \nstable\thttp://x"
    assert render_table([["a" * 10]], max_col_width=6) == "aaa..."


def test_repositories_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "config" / "repositories.yaml"
    entry = Entry(
        name="stable",
        url="https://charts.example",
        username="u",
        password="p",
        insecure_skip_tls_verify=True,
    )
    write_repo_file(RepoFile(repositories=[entry]), path)
    text = path.read_text()
    assert text.startswith(
        'apiVersion: ""\ngenerated: "0001-01-01T00:00:00Z"\nrepositories:\n- caFile: ""\n'
    )
    assert load_repo_file(path).repositories == [entry]
    assert path.stat().st_mode & 0o777 == 0o600


def test_helm_paths_follow_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HELM_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "k"))
    monkeypatch.delenv("HELM_REPOSITORY_CONFIG", raising=False)
    monkeypatch.setenv("HELM_REPOSITORY_CACHE", str(tmp_path / "rc"))
    paths = HelmPaths.from_env()
    assert paths.repository_config == tmp_path / "c" / "repositories.yaml"
    assert paths.index_file("x") == tmp_path / "rc" / "x-index.yaml"


def test_credentials_go_only_to_the_repository_host() -> None:
    opts = HttpOptions(username="u", password="p", credentials_url="https://charts.example/sub")
    assert opts.sends_credentials_to("https://charts.example/sub/a.tgz")
    assert not opts.sends_credentials_to("https://cdn.example/a.tgz")
    opts = HttpOptions(
        username="u", credentials_url="https://charts.example", pass_credentials_all=True
    )
    assert opts.sends_credentials_to("https://cdn.example/a.tgz")


def test_oci_references_and_tags() -> None:
    ref = oci.parse_reference("oci://127.0.0.1:5000/team/charts/web:1.2.3_meta")
    assert (ref.host, ref.repository, ref.tag, ref.chart_name) == (
        "127.0.0.1:5000",
        "team/charts/web",
        "1.2.3_meta",
        "web",
    )
    assert oci.version_to_tag("1.0.0+build.1") == "1.0.0_build.1"
    tags = ["2.0.0-rc.1", "1.5.0", "1.0.0"]
    assert oci.matching_tag(tags, "") == "1.5.0"
    assert oci.matching_tag(tags, "~1.0") == "1.0.0"
    assert oci.matching_tag(tags, "2.0.0-rc.1") == "2.0.0-rc.1"
    with pytest.raises(
        SourceError, match="could not locate a version matching provided version string >3"
    ):
        oci.matching_tag(tags, ">3")
    with pytest.raises(SourceError, match="repository name must be specified"):
        oci.parse_reference("oci://host-only")


def test_oci_annotations_carry_the_chart_metadata() -> None:
    from runner.chart.model import Maintainer, Metadata

    md = Metadata(
        name="web",
        version="1.0.0",
        description="d",
        home="https://h",
        maintainers=[Maintainer(name="Ann", email="a@x")],
        annotations={"x": "y"},
    )
    notes = oci.oci_annotations(md)
    assert notes["org.opencontainers.image.title"] == "web"
    assert notes["org.opencontainers.image.authors"] == "Ann (a@x)"
    assert notes["x"] == "y" and "org.opencontainers.image.source" not in notes


def _write_chart(root: Path) -> Path:
    chart = root / "web"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(
        "apiVersion: v2\nname: web\nversion: 0.1.0\ndescription: ''\n"
    )
    (chart / "values.yaml").write_text("a: 1 # kept as written\n")
    (chart / "templates" / "cm.yaml").write_text("kind: ConfigMap\n")
    (chart / ".helmignore").write_text("*.bak\n")
    (chart / "notes.bak").write_text("ignored\n")
    return chart


def test_package_writes_a_chart_the_loader_reads_back(tmp_path: Path) -> None:
    chart = _write_chart(tmp_path)
    saved = package_chart(
        str(chart),
        PackageOptions(version="1.2.3+x", app_version="v2", destination=str(tmp_path / "out")),
    )
    assert saved.name == "web-1.2.3+x.tgz"
    loaded = load_chart(saved)
    assert (loaded.metadata.version, loaded.metadata.app_version) == ("1.2.3+x", "v2")
    with tarfile.open(saved) as tar:
        names = tar.getnames()
        chart_yaml = tar.extractfile("web/Chart.yaml").read()  # type: ignore[union-attr]
    assert names[:2] == ["web/Chart.yaml", "web/values.yaml"] and "web/notes.bak" not in names
    assert chart_yaml == b"apiVersion: v2\nappVersion: v2\nname: web\nversion: 1.2.3+x\n"


def test_package_refuses_bad_versions_and_missing_dependencies(tmp_path: Path) -> None:
    from runner.chart.errors import ChartError

    chart = _write_chart(tmp_path)
    with pytest.raises(ChartError, match="invalid semantic version"):
        package_chart(str(chart), PackageOptions(version="one"))
    with open(chart / "Chart.yaml", "a") as out:
        out.write("dependencies:\n- name: db\n  version: 1.x\n  repository: https://x\n")
    with pytest.raises(ChartError, match="missing in charts/ directory: db"):
        package_chart(str(chart), PackageOptions(destination=str(tmp_path)))


def test_gzip_header_carries_helms_extra_and_comment() -> None:
    data = gzip_with_header(b"payload")
    assert data[:4] == b"\x1f\x8b\x08\x14"
    assert b"+aHR0cHM6Ly95b3V0dS5iZS96OVV6MWljandyTQo=Helm\x00" in data[:80]
    assert gzip.GzipFile(fileobj=io.BytesIO(data)).read() == b"payload"


def test_rendering_a_local_chart_imports_no_network_code(tmp_path: Path) -> None:
    import subprocess
    import sys

    chart = _write_chart(tmp_path)
    probe = (
        "import sys, io, contextlib\n"
        "from runner.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['template', 'rel', {str(chart)!r}]) == 0\n"
        "print(sorted(m for m in ('requests', 'oras', 'urllib3', 'runner.chart.sources') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parents[4], check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_package_is_reproducible_with_file_times(tmp_path: Path) -> None:
    import os

    chart = _write_chart(tmp_path)
    for path in chart.rglob("*"):
        os.utime(path, (1_600_000_000.6, 1_600_000_000.6))
    first = package_chart(str(chart), PackageOptions(destination=str(tmp_path / "a"))).read_bytes()
    second = package_chart(str(chart), PackageOptions(destination=str(tmp_path / "b"))).read_bytes()
    assert first == second
    with tarfile.open(fileobj=io.BytesIO(first)) as tar:
        assert {m.mtime for m in tar.getmembers()} == {1_600_000_001}  # rounded as Go's tar writer
