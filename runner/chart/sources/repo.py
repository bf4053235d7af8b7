"""Named chart repositories (Helm's pkg/repo ChartRepository): fetch and cache index.yaml."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from runner.chart.sources import getters, http
from runner.chart.sources.errors import SourceError
from runner.chart.sources.index import IndexFile, load_index
from runner.chart.sources.messages import Say
from runner.chart.sources.paths import HelmPaths
from runner.chart.sources.repofile import Entry


def index_url(repo_url: str) -> str:
    """The repository URL with /index.yaml joined to its path (query kept)."""
    parts = urlsplit(repo_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/index.yaml"))


def http_options(entry: Entry) -> http.HttpOptions:
    return http.HttpOptions(**entry.connection_fields(), credentials_url=entry.url)


def check_scheme(url: str) -> None:
    """NewChartRepository: a getter must exist for the URL's scheme (http, https, oci, and
    those registered: runner.chart.sources.getters)."""
    getters.check_scheme(url)


def fetch_index(entry: Entry, *, say: Say) -> tuple[bytes, IndexFile]:
    """Download and parse a repository's index (DownloadIndexFile without the cache write);
    its skipped entries are warned of to `say`."""
    data = getters.get(index_url(entry.url), http_options(entry))
    return data, load_index(data, entry.url, say=say)


def download_index_file(entry: Entry, paths: HelmPaths, *, say: Say) -> Path:
    """DownloadIndexFile: cache <name>-index.yaml and <name>-charts.txt."""
    data, index = fetch_index(entry, say=say)
    charts = "".join(f"{name}\n" for name in index.entries)
    _atomic_write(paths.charts_file(entry.name), charts.encode())
    target = paths.index_file(entry.name)
    _atomic_write(target, data)
    return target


def load_cached_index(repo_name: str, paths: HelmPaths, *, say: Say) -> IndexFile:
    path = paths.index_file(repo_name)
    if not path.is_file():
        raise SourceError(f"no cached repository for {repo_name} found. (try 'helm repo update')")
    return load_index(path.read_bytes(), str(path), say=say)


def validate_repository(entry: Entry, paths: HelmPaths, *, say: Say) -> None:
    """`repo add`'s reachability check with Helm's wording."""
    check_scheme(entry.url)
    try:
        if urlsplit(entry.url).scheme == "oci":  # Helm's OCI getter cannot fetch an index
            raise SourceError('failed to perform "FetchReference" on source: invalid reference')
        download_index_file(entry, paths, say=say)
    except SourceError as exc:
        raise SourceError(
            f'looks like "{entry.url}" is not a valid chart repository or cannot be reached: {exc}'
        ) from exc


def _atomic_write(path: Path, data: bytes) -> None:
    """DownloadIndexFile: the cache directory made, then fileutil.AtomicWriteFile (0644)."""
    from runner.chart.sources.fileutil import atomic_write_file

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_file(path, data, 0o644)
