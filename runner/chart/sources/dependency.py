"""`dependency build/update/list` (Helm's downloader.Manager, resolver and action.Dependency).

update resolves every Chart.yaml dependency against its repository (named in
repositories.yaml, a plain URL, oci:// or file://), downloads the archives
into charts/ and writes Chart.lock with Helm's digest; build downloads what
Chart.lock names after checking that digest against Chart.yaml.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from runner.chart.errors import ChartError
from runner.chart.model import API_VERSION_V1, Chart, Dependency, Lock
from runner.chart.sources import oci
from runner.chart.sources.downloader import SourceOptions
from runner.chart.sources.errors import SourceError
from runner.chart.sources.getters import get as fetch_url
from runner.chart.sources.index import IndexFile, resolve_reference_url
from runner.chart.sources.lockfile import hash_req, now_text, write_lock
from runner.chart.sources.messages import NOTICE, Say
from runner.chart.sources.paths import HelmPaths
from runner.chart.sources.repo import (
    download_index_file,
    fetch_index,
    http_options,
    load_cached_index,
)
from runner.chart.sources.repofile import Entry, load_repo_file
from runner.golang import semver

MANAGER_PREFIX = "helm-manager-"
_NON_URL_NOTE = """
Note that repositories must be URLs or aliases. For example, to refer to the "example"
repository, use "https://charts.example.com/" or "@example" instead of
"example". Don't forget to add the repo, too ('helm repo add')."""


def _load(path: Path) -> Chart:
    from runner.chart.loader import load_chart

    return load_chart(path)


def _urls_equal(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    return pa._replace(path=pa.path.rstrip("/")) == pb._replace(path=pb.path.rstrip("/"))


def _alias(repository: str) -> str | None:
    """The repository name of `@name` or `alias:name`, else None."""
    if repository.startswith("@"):
        return repository[1:]
    if repository.startswith("alias:"):
        return repository.removeprefix("alias:")
    return None


def _find_repository(repos: list[Entry], repository: str, alias: str | None) -> Entry | None:
    for entry in repos:
        if (alias is not None and entry.name == alias) or _urls_equal(entry.url, repository):
            return entry
    return None


def _content_type(data: bytes) -> str:
    """The two answers of Go's http.DetectContentType that matter here."""
    try:
        text = data[:512].decode()
    except UnicodeDecodeError:
        return "application/octet-stream"
    binary = any(ord(c) < 0x20 and c not in "\t\n\x0c\r\x1b" for c in text)
    return "application/octet-stream" if binary else "text/plain; charset=utf-8"


def _check_gzip(path: Path) -> None:
    """The archive loader's first check, with the content type Helm names."""
    data = path.read_bytes()
    if not data.startswith(b"\x1f\x8b"):
        raise ChartError(f"file '{path}' does not appear to be a gzipped archive; got '{_content_type(data)}'")


def _constraint(dep: Dependency) -> semver.Constraints:
    try:
        return semver.new_constraint(dep.version)
    except semver.SemverError as exc:
        raise SourceError(
            f'dependency "{dep.name}" has an invalid version/constraint format: {exc}'
        ) from exc


def _satisfies(constraint: semver.Constraints, version: str) -> bool:
    try:
        return constraint.check(semver.new_version(version))
    except semver.SemverError:
        return False


@dataclass
class Manager:
    """One chart directory's dependency work; what Helm prints meanwhile goes to `say`."""

    chart_dir: Path
    options: SourceOptions = field(default_factory=SourceOptions)
    paths: HelmPaths = field(default_factory=HelmPaths.from_env)
    skip_refresh: bool = False
    say: Say = field(kw_only=True)
    _repo_for: dict[str, Entry] = field(default_factory=dict)
    _indexes: dict[str, IndexFile] = field(default_factory=dict)

    # ------------------------------------------------------------ update / build
    def update(self) -> None:
        chart = _load(self.chart_dir)
        if not chart.metadata.dependencies_declared:  # Go: a nil Dependencies slice, nothing to do
            return
        req = self._resolve_repo_names(chart.metadata.dependencies)
        self._update_unmanaged(req)
        self._refresh_repositories()
        lock = self._resolve(req)
        self._download_all(lock.dependencies)
        lock.digest = hash_req(req, lock.dependencies)
        if chart.lock is not None and chart.lock.digest == lock.digest:
            return
        write_lock(self.chart_dir, lock, chart.metadata.api_version == API_VERSION_V1)

    def build(self) -> None:
        chart = _load(self.chart_dir)
        if chart.lock is None:
            self.update()
            return
        req = self._resolve_repo_names(chart.metadata.dependencies)
        declared = req if chart.metadata.dependencies_declared else None
        if hash_req(declared, chart.lock.dependencies) != chart.lock.digest:
            names = (
                ("requirements.lock", "requirements.yaml")
                if chart.metadata.api_version == API_VERSION_V1
                else ("Chart.lock", "Chart.yaml")
            )
            raise SourceError(
                f"the lock file ({names[0]}) is out of sync with the dependencies file ({names[1]}). "
                "Please update the dependencies"
            )
        self._refresh_repositories()
        self._download_all([d.replace() for d in chart.lock.dependencies])

    # ------------------------------------------------------------ repositories
    def _resolve_repo_names(self, req: list[Dependency]) -> list[Dependency]:
        """resolveRepoNames: map each dependency to a named repository; @alias becomes its URL."""
        repos = load_repo_file(self.paths.repository_config).repositories
        resolved, missing = [], []
        for dep in req:
            dep = dep.replace(tags=list(dep.tags), import_values=list(dep.import_values))
            resolved.append(dep)
            repo_ref = dep.repository
            if not repo_ref or repo_ref.startswith(("file://", oci.SCHEME)):
                continue
            alias = _alias(repo_ref)
            entry = _find_repository(repos, repo_ref, alias)
            if entry is not None:
                if alias is not None:
                    dep.repository = entry.url
                self._repo_for[dep.name] = entry
            elif urlsplit(repo_ref).scheme and urlsplit(repo_ref).netloc:
                self._repo_for[dep.name] = Entry(name="", url=repo_ref)
            else:
                missing.append(repo_ref)
        if missing:
            message = f"no repository definition for {', '.join(missing)}. Please add them via 'helm repo add'"
            if any("//" not in m and not m.startswith(("@", "alias:")) for m in missing):
                message += _NON_URL_NOTE
            raise SourceError(message)
        return resolved

    def _refresh_repositories(self) -> None:
        """UpdateRepositories: every configured repository, as Helm does, unless --skip-refresh."""
        repos = load_repo_file(self.paths.repository_config).repositories
        if not repos or self.skip_refresh:
            return
        self.say(NOTICE, "Hang tight while we grab the latest from your chart repositories...")
        for entry in repos:
            self._update_one(entry, shown=entry.name)
        self.say(NOTICE, "Update Complete. ⎈Happy Helming!⎈")

    def _update_unmanaged(self, req: list[Dependency]) -> None:
        """ensureMissingRepos: URL repositories not in repositories.yaml are cached as helm-manager-<sha256>."""
        unmanaged: dict[str, Entry] = {}
        for dep in req:
            entry = self._repo_for.get(dep.name)
            if entry is not None and not entry.name:
                unmanaged[entry.url] = replace(entry, name=MANAGER_PREFIX + hashlib.sha256(entry.url.encode()).hexdigest())
                self._repo_for[dep.name] = unmanaged[entry.url]
        if not unmanaged or self.skip_refresh:
            return
        self.say(NOTICE, "Getting updates for unmanaged Helm repositories...")
        for entry in unmanaged.values():
            self._update_one(entry, shown=entry.url)

    def _update_one(self, entry: Entry, shown: str) -> None:
        try:
            download_index_file(self._with_flags(entry), self.paths, say=self.say)
            self.say(NOTICE, f'...Successfully got an update from the "{shown}" chart repository')
        except SourceError as exc:
            self.say(NOTICE, f'...Unable to get an update from the "{shown}" chart repository ({entry.url}):\n\t{exc}')

    def _index(self, entry: Entry) -> IndexFile:
        key = entry.name or entry.url
        if key not in self._indexes:
            managed = entry.name and not entry.name.startswith(MANAGER_PREFIX)
            if managed or (entry.name and self.paths.index_file(entry.name).is_file()):
                self._indexes[key] = load_cached_index(entry.name, self.paths, say=self.say)
            else:  # an unmanaged repository not refreshed (--skip-refresh, build): fetched directly
                self._indexes[key] = fetch_index(self._with_flags(entry), say=self.say)[1]
        return self._indexes[key]

    def _with_flags(self, entry: Entry) -> Entry:
        o = self.options
        return replace(
            entry,
            username=entry.username or o.username,
            password=entry.password or o.password,
            ca_file=entry.ca_file or o.ca_file,
            cert_file=entry.cert_file or o.cert_file,
            key_file=entry.key_file or o.key_file,
            insecure_skip_tls_verify=entry.insecure_skip_tls_verify or o.insecure_skip_tls_verify,
        )

    # ------------------------------------------------------------ resolve
    def _resolve(self, req: list[Dependency]) -> Lock:
        locked: list[Dependency] = []
        missing: list[str] = []
        for dep in req:
            version = self._resolve_one(dep)
            if version is None:
                missing.append(
                    f'"{dep.name}" (repository "{dep.repository}", version "{dep.version}")'
                )
                version = ""
            locked.append(Dependency(name=dep.name, version=version, repository=dep.repository))
        if missing:
            raise SourceError(
                f"can't get a valid version for {len(missing)} subchart(s): {', '.join(missing)}. "
                "Make sure a matching chart version exists in the repo, or change the version constraint in Chart.yaml"
            )
        return Lock(generated=now_text(), digest=hash_req(req, locked), dependencies=locked)

    def _resolve_one(self, dep: Dependency) -> str | None:
        constraint = _constraint(dep)
        if not dep.repository:
            if not (self.chart_dir / "charts" / dep.name).exists():
                raise SourceError(f"directory {self.chart_dir / 'charts' / dep.name} not found")
            return dep.version
        if dep.repository.startswith("file://"):
            local = _load(self._local_path(dep.repository))
            return (
                local.metadata.version if _satisfies(constraint, local.metadata.version) else None
            )
        if dep.repository.startswith(oci.SCHEME):
            ref = oci.parse_reference(f"{dep.repository.rstrip('/')}/{dep.name}")
            try:
                semver.new_version(dep.version)
                candidates = [dep.version]
            except semver.SemverError:
                candidates = oci.tags(ref, self.options.oci())
            return next((v for v in candidates if _satisfies(constraint, v)), None)
        index = self._index(self._repo_for[dep.name])
        versions = index.entries.get(dep.name)
        if versions is None:
            raise SourceError(f"{dep.name} chart not found in repo {dep.repository}")
        return next(
            (cv.version for cv in versions if cv.urls and _satisfies(constraint, cv.version)), None
        )

    def _local_path(self, repository: str) -> Path:
        path = Path(repository.removeprefix("file://"))
        path = path if path.is_absolute() else self.chart_dir / path
        if not path.exists():
            raise SourceError(f"directory {path} not found")
        return path

    # ------------------------------------------------------------ download
    def _download_all(self, deps: list[Dependency]) -> None:
        dest = self.chart_dir / "charts"
        tmp = self.chart_dir / f"tmpcharts-{os.getpid()}"
        dest.mkdir(exist_ok=True)
        tmp.mkdir(exist_ok=True)
        try:
            self.say(NOTICE, f"Saving {len(deps)} charts")
            for dep in deps:
                self._download_one(dep, tmp)
            self._move_into(deps, tmp, dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _download_one(self, dep: Dependency, tmp: Path) -> None:
        if not dep.repository:
            self.say(NOTICE, f"Dependency {dep.name} did not declare a repository. Assuming it exists in the "
                             "charts directory")
            self._check_local(dep)
            return
        if dep.repository.startswith("file://"):
            self._archive_local(dep, tmp)
            return
        self.say(NOTICE, f"Downloading {dep.name} from repo {dep.repository}")
        try:
            name, data, prov, url = self._fetch(dep)
            (tmp / name).write_bytes(data)
            if self.options.verify:
                self._verify(tmp / name, prov, url)
        except SourceError as exc:
            self.say(NOTICE, f"Save error occurred:  {exc}")
            raise

    def _verify(self, archive: Path, prov: bytes | None, url: str) -> None:
        """--verify: the .prov lands beside the archive (as Helm's downloader leaves it) and is checked."""
        from runner.chart.sources.provenance import verify_chart

        if prov is None:
            raise SourceError(f'could not download {url}: failed to fetch provenance "{url}.prov"')
        prov_path = Path(f"{archive}.prov")
        prov_path.write_bytes(prov)
        try:
            verify_chart(archive, prov_path, Path(self.options.keyring))
        except SourceError as exc:
            raise SourceError(f"could not download {url}: {exc}") from exc

    def _fetch(self, dep: Dependency) -> tuple[str, bytes, bytes | None, str]:
        """(file name, archive, .prov when --verify, URL) of one dependency."""
        if dep.repository.startswith(oci.SCHEME):
            ref = f"{dep.repository.rstrip('/')}/{dep.name}"
            pulled = oci.pull(ref, dep.version, self.options.oci(), say=self.say)
            if self.options.verify and pulled.prov is not None:
                oci.report_pull(pulled.reference, pulled.manifest_digest, self.say)
            return f"{dep.name}-{pulled.version}.tgz", pulled.data, pulled.prov, f"{oci.SCHEME}{pulled.reference}"
        entry = self._with_flags(self._repo_for[dep.name])
        index = self._index(entry)
        try:
            cv = index.get(dep.name, dep.version, say=self.say)
        except SourceError as exc:
            raise SourceError(
                f"could not find : chart {dep.name} not found in {dep.repository}: {exc}"
            ) from exc
        if not cv.urls:
            raise SourceError(f'chart "{dep.name}" has no downloadable URLs')
        url = resolve_reference_url(entry.url, cv.urls[0])
        try:
            data = fetch_url(url, http_options(entry))
        except SourceError as exc:
            raise SourceError(f"could not download {url}: {exc}") from exc
        prov = None
        if self.options.verify:
            try:
                prov = fetch_url(url + ".prov", http_options(entry))
            except SourceError:
                prov = None
        return os.path.basename(urlsplit(url).path), data, prov, url

    def _check_local(self, dep: Dependency) -> None:
        path = self.chart_dir / "charts" / dep.name
        try:
            local = _load(path)
        except ChartError as exc:
            raise SourceError(f"unable to load chart '{path}': {exc}") from exc
        if not _satisfies(_constraint(dep), local.metadata.version):
            raise SourceError(
                f"dependency {dep.name} at version {local.metadata.version} does not satisfy the constraint {dep.version}"
            )

    def _archive_local(self, dep: Dependency, tmp: Path) -> None:
        from runner.chart.package import save

        local = _load(self._local_path(dep.repository))
        if not _satisfies(_constraint(dep), local.metadata.version):
            raise SourceError(f"can't get a valid version for dependency {dep.name}")
        save(local, tmp)
        dep.version = local.metadata.version

    def _move_into(self, deps: list[Dependency], tmp: Path, dest: Path) -> None:
        """safeMoveDeps: verified archives replace old ones; outdated archives are deleted."""
        from runner.chart.loader import load_archive_file

        local_names = {d.name for d in deps if not d.repository}
        moved = set()
        # Helm ends these without a newline: they run into the line that follows.
        unverified = ""
        for source in sorted(p for p in tmp.iterdir() if p.is_file()):
            moved.add(source.name)
            try:
                _check_gzip(source)
                load_archive_file(source)
            except ChartError as exc:
                unverified += f"Could not verify {source} for moving: {exc} (Skipping)"
                continue
            source.replace(dest / source.name)
        self.say(NOTICE, unverified + "Deleting outdated charts")
        for old in sorted(p for p in dest.iterdir() if p.is_file() and p.name not in moved):
            try:
                chart = load_archive_file(old)
            except ChartError as exc:
                self.say(NOTICE, f"Could not verify {old} for deletion: {exc} (Skipping)")
                continue
            if chart.name() not in local_names:
                old.unlink()
