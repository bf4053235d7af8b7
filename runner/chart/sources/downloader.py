"""Finding and downloading charts by reference (Helm's ChartDownloader and LocateChart).

A reference is a local path, `repo/chart` (a repository named in
repositories.yaml), a chart name with `--repo URL`, an absolute chart URL, or
`oci://host/path/chart`.
"""

from __future__ import annotations

import base64
import hashlib
import os
import posixpath
import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from runner.chart.sources import getters, http, oci
from runner.chart.sources.connection import ConnectionOptions
from runner.chart.sources.errors import SourceError
from runner.chart.sources.index import ChartVersion, IndexFile, resolve_reference_url
from runner.chart.sources.messages import Say
from runner.chart.sources.paths import HelmPaths
from runner.chart.sources.repo import (
    check_scheme,
    download_index_file,
    http_options,
    load_cached_index,
)
from runner.chart.sources.repofile import Entry, load_repo_file


@dataclass(frozen=True)
class SourceOptions(ConnectionOptions):
    """Helm's ChartPathOptions: where to look (and, from ConnectionOptions, how to connect)."""

    version: str = ""
    repo_url: str = ""
    plain_http: bool = False
    verify: bool = False
    keyring: str = ""

    def http(self, credentials_url: str = "") -> http.HttpOptions:
        return http_options(_entry_with_flags(Entry(url=credentials_url), self))

    def oci(self) -> oci.OciOptions:
        return oci.OciOptions(plain_http=self.plain_http, **self.connection_fields())


@dataclass(frozen=True)
class Resolved:
    """Where a chart version is, how to fetch it, and the digest its index gives (if any)."""

    url: str
    http: http.HttpOptions
    version: str
    digest: str = ""


@dataclass(frozen=True)
class Download:
    """A chart archive and what Helm prints about it."""

    data: bytes
    file_name: str
    version: str
    oci_reference: str = ""
    oci_digest: str = ""
    prov: bytes | None = None
    prov_url: str = ""
    prov_error: str = ""


def fetch_chart(ref: str, options: SourceOptions, paths: HelmPaths, with_prov: bool = False, *,
                say: Say) -> Download:
    """Download the archive a (non-local) reference names, and its .prov file when asked;
    what Helm prints meanwhile goes to `say`."""
    if oci.is_oci(ref):
        pulled = oci.pull(ref, options.version, options.oci(), say=say)
        download = Download(pulled.data, pulled.file_name, pulled.version,
                            pulled.reference, pulled.manifest_digest)
        if with_prov:
            # Helm fetches the .prov with a second registry pull, reported again.
            if pulled.prov is not None:
                oci.report_pull(pulled.reference, pulled.manifest_digest, say)
            download = replace(download, prov=pulled.prov, prov_url=f"{oci.SCHEME}{pulled.reference}.prov",
                               prov_error="" if pulled.prov else f"manifest does not contain a layer with mediatype {oci.PROV_MEDIA_TYPE}")
        return download
    found = resolve_chart_url(ref, options, paths, say=say)
    url, http_opts = found.url, found.http
    data = content_cache_get(paths, found.digest)
    if data is None:
        data = getters.get(url, http_opts)
    download = Download(data, posixpath.basename(urlsplit(url).path), found.version)
    if with_prov:
        download = replace(download, prov_url=url + ".prov")
        try:
            return replace(download, prov=getters.get(download.prov_url, http_opts))
        except SourceError as exc:
            return replace(download, prov_error=str(exc))
    return download


def content_cache_get(paths: HelmPaths, digest: str) -> bytes | None:
    """Helm 4's content cache: a chart archive stored under its sha256, used when the index names it."""
    if len(digest) != 64:
        return None
    path = paths.content_cache / digest[:2] / f"{digest}.chart"
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == digest else None


def content_cache_put(paths: HelmPaths, data: bytes) -> Path:
    """Store an archive under its sha256 (once) and return where it is."""
    digest = hashlib.sha256(data).hexdigest()
    path = paths.content_cache / digest[:2] / f"{digest}.chart"
    if content_cache_get(paths, digest) is None:  # missing or damaged
        _write(path, data)
    return path


def resolve_chart_url(ref: str, options: SourceOptions, paths: HelmPaths, *, say: Say) -> Resolved:
    """The chart's URL, the options to fetch it with, the version chosen and its index digest
    (the indexes read warn to `say`)."""
    if options.repo_url:
        found = find_in_repo_url(options.repo_url, ref, options, paths, say=say)
        return replace(found, http=_owner_options(found.url, found.http, paths, say))
    if urlsplit(ref).scheme in ("http", "https"):
        return Resolved(ref, _owner_options(ref, options.http(ref), paths, say), options.version)
    if getters.registered(ref) is not None:  # s3://bucket/prefix/name[-VERSION.tgz]
        if getters.is_archive_url(ref):
            return Resolved(ref, _owner_options(ref, options.http(ref), paths, say), options.version)
        version, url = getters.newest_matching(ref, options.version)
        return Resolved(url, options.http(url), version)
    repo_name, _, chart_name = ref.partition("/")
    if not chart_name:
        raise SourceError(
            f"non-absolute URLs should be in form of repo_name/path_to_chart, got: {ref}"
        )
    entry = _named_repository(repo_name, paths)
    index = load_cached_index(entry.name, paths, say=say)
    try:
        cv = index.get(chart_name, options.version, say=say)
    except SourceError as exc:
        raise SourceError(
            f'chart "{chart_name}" matching {options.version} not found in {entry.name} index. '
            f"(try 'helm repo update'): {exc}"
        ) from exc
    url = _chart_url(cv.urls, entry.url, ref)
    merged = _entry_with_flags(entry, options)
    return Resolved(url, http_options(merged), cv.version, cv.digest)


def scan_repos_for_url(url: str, paths: HelmPaths, say: Say) -> Entry | None:
    """scanReposForURL: the configured repository whose cached index lists this chart URL."""
    for entry in load_repo_file(paths.repository_config).repositories:
        path = paths.index_file(entry.name)
        if not path.is_file():
            raise SourceError(
                f"no cached repo found. (try 'helm repo update'): open {path}: no such file or directory"
            )
        index = load_cached_index(entry.name, paths, say=say)
        if any(_same_url(url, u) for versions in index.entries.values() for cv in versions for u in cv.urls):
            return entry
    return None


def _same_url(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    return pa._replace(path=pa.path.rstrip("/")) == pb._replace(path=pb.path.rstrip("/"))


def _owner_options(url: str, given: http.HttpOptions, paths: HelmPaths, say: Say) -> http.HttpOptions:
    """ResolveChartVersion for an absolute URL: a repository listing it lends its TLS files and credentials."""
    owner = scan_repos_for_url(url, paths, say)
    if owner is None:
        return given
    merged = replace(given, credentials_url=owner.url)
    if owner.cert_file or owner.key_file or owner.ca_file:
        merged = replace(merged, cert_file=owner.cert_file, key_file=owner.key_file, ca_file=owner.ca_file)
    if owner.username and owner.password:
        merged = replace(merged, username=owner.username, password=owner.password)
    return merged


def _named_repository(name: str, paths: HelmPaths) -> Entry:
    entry = load_repo_file(paths.repository_config).get(name)
    if entry is None:
        raise SourceError(f"repo {name} not found")
    return entry


def _entry_with_flags(entry: Entry, options: SourceOptions) -> Entry:
    """Flags given on the command line win over the stored repository's settings
    (on a blank Entry: the flags' credentials and TLS settings as they are)."""
    overrides = {
        k: v
        for k, v in {
            "username": options.username,
            "password": options.password,
            "ca_file": options.ca_file,
            "cert_file": options.cert_file,
            "key_file": options.key_file,
        }.items()
        if v
    }
    if options.insecure_skip_tls_verify:
        overrides["insecure_skip_tls_verify"] = True
    if options.pass_credentials_all:
        overrides["pass_credentials_all"] = True
    return replace(entry, **overrides)


def find_in_repo_url(
    repo_url: str, chart_name: str, options: SourceOptions, paths: HelmPaths, *, say: Say
) -> Resolved:
    """FindChartInAuthAndTLSAndPassRepoURL: `--repo URL chart [--version V]`.

    As Helm, the index is cached under a random name, read back from there, and removed.
    """
    name = base64.b64encode(secrets.token_bytes(20)).decode().replace("/", "-")
    entry = _entry_with_flags(Entry(name=name, url=repo_url), options)
    check_scheme(repo_url)
    try:
        cached = download_index_file(entry, paths, say=say)
    except SourceError as exc:
        raise SourceError(
            f'looks like "{repo_url}" is not a valid chart repository or cannot be reached: {exc}'
        ) from exc
    try:
        index = load_cached_index(entry.name, paths, say=say)
    finally:
        cached.unlink(missing_ok=True)
        paths.charts_file(entry.name).unlink(missing_ok=True)
    cv = _get_in_repo(index, chart_name, options.version, repo_url, say)
    url = _chart_url(cv.urls, repo_url, chart_name)
    return Resolved(url, http_options(entry), cv.version, cv.digest)


def _get_in_repo(index: IndexFile, chart_name: str, version: str, repo_url: str, say: Say) -> ChartVersion:
    try:
        return index.get(chart_name, version, say=say)
    except SourceError as exc:
        what = f'chart "{chart_name}"' + (f' version "{version}"' if version else "")
        raise SourceError(f"{what} not found in {repo_url} repository") from exc


def _chart_url(urls: list[str], repo_url: str, chart_name: str) -> str:
    if not urls:
        raise SourceError(f'chart "{chart_name}" has no downloadable URLs')
    return resolve_reference_url(repo_url, urls[0])


def locate_chart(ref: str, options: SourceOptions, paths: HelmPaths | None = None, *, say: Say) -> str:
    """LocateChart: a local path as it is; anything else fetched into Helm 4's content cache
    (what Helm prints meanwhile goes to `say`)."""
    if not oci.is_oci(ref) and not options.repo_url:
        if os.path.exists(ref):
            if options.verify:
                _verify(Path(ref).absolute(), options.keyring)
            return os.path.abspath(ref)
        if os.path.isabs(ref) or ref.startswith("."):
            raise SourceError(f'path "{ref}" not found')
    paths = paths or HelmPaths.from_env()
    download = fetch_chart(ref, options, paths, with_prov=options.verify, say=say)
    if options.verify:
        verify_download(download, options.keyring)
    target = content_cache_put(paths, download.data)
    if download.prov is not None:
        _write(target.with_suffix(".prov"), download.prov)
    return str(target)


def verify_download(download: Download, keyring: str) -> str:
    """Check a downloaded archive against its .prov (under the archive's own name); Helm's report."""
    import tempfile

    if download.prov is None:
        raise SourceError(f'failed to fetch provenance "{download.prov_url}"')
    with tempfile.TemporaryDirectory(prefix="deploy-runner-verify-") as tmp:
        archive = Path(tmp, download.file_name)
        archive.write_bytes(download.data)
        Path(f"{archive}.prov").write_bytes(download.prov)
        return _verify(archive, keyring)


def _verify(archive: Path, keyring: str) -> str:
    from runner.chart.sources.provenance import verify_chart

    return verify_chart(archive, Path(f"{archive}.prov"), Path(keyring)).report()


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    partial.replace(path)
