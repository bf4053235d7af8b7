"""Which getter fetches a URL, by its scheme (Helm's getter.Providers).

`http` and `https` are built in (runner.chart.sources.http); `oci` is the registry
client's (runner.chart.sources.oci). `s3://` is served by runner.aws.s3 (the `aws`
extra), as Helm's helm-s3 plugin serves it: like a Helm getter plugin, its provider is
named here and loaded when an `s3://` URL is first fetched, so this layer imports no
cloud SDK and a run that fetches none loads nothing for it. `register` adds or replaces a
scheme's provider (a factory). A getter is an object with two methods:

- `get(url) -> bytes`: the object's bytes (a chart archive, a repository's index.yaml);
- `versions(url) -> dict[str, str]`: the chart versions kept under a location that is not
  an archive (`s3://bucket/prefix/web` -> `web-1.2.0.tgz`, ...), each version's URL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from runner.chart.sources.errors import SourceError

# Nothing else is imported here at start: the CLI registers its getters at every start.
if TYPE_CHECKING:
    from runner.chart.sources.http import HttpOptions

BUILT_IN = ("http", "https", "oci")
ARCHIVE_SUFFIX = ".tgz"

# scheme -> the module and class of its getter, loaded on first use (the aws extra's)
PROVIDERS = {"s3": ("runner.aws.s3", "S3Getter")}

_factories: dict[str, Callable[[], Any]] = {}
_made: dict[str, Any] = {}


def _provider(module: str, name: str) -> Callable[[], Any]:
    def make() -> Any:
        import importlib

        return getattr(importlib.import_module(module), name)()

    return make


for _scheme_name, (_module, _class) in PROVIDERS.items():
    _factories[_scheme_name] = _provider(_module, _class)


def register(scheme: str, factory: Callable[[], Any]) -> None:
    """Serve `scheme://` URLs with the getter `factory()` makes (see the module's docstring)."""
    _factories[scheme] = factory
    _made.pop(scheme, None)


def registered(url: str) -> Any:
    """The registered getter of the URL's scheme, or None (http, https, oci, a path)."""
    scheme = _scheme(url)
    if scheme not in _made and scheme in _factories:
        _made[scheme] = _factories[scheme]()
    return _made.get(scheme)


def supports(url: str) -> bool:
    """A getter exists for the URL's scheme (NewChartRepository's check)."""
    scheme = _scheme(url)
    return scheme in BUILT_IN or scheme in _factories


def check_scheme(url: str) -> None:
    if not supports(url):
        raise SourceError(f"could not find protocol handler for: {_scheme(url)}")


def _scheme(url: str) -> str:
    scheme, separator, _ = url.partition("://")
    return scheme.lower() if separator else ""


def get(url: str, options: HttpOptions | None = None) -> bytes:
    """The bytes at `url`: HTTP(S) as Helm's HTTPGetter, a registered scheme through its getter."""
    from runner.chart.sources import http

    getter = registered(url)
    if getter is not None:
        return bytes(getter.get(url))
    scheme = _scheme(url)
    if scheme not in ("http", "https"):
        raise SourceError(f"could not find protocol handler for: {scheme}")
    return http.get(url, options)


def is_archive_url(url: str) -> bool:
    from urllib.parse import urlsplit

    return urlsplit(url).path.endswith(ARCHIVE_SUFFIX)


def newest_matching(url: str, constraint: str) -> tuple[str, str]:
    """(version, archive URL) of the newest chart under a registered location `url` that
    `constraint` accepts (the exact version first, as Helm's index lookup)."""
    from runner.chart.sources.oci import matching_tag

    found = dict(registered(url).versions(url))
    if not found:
        raise SourceError(f"no chart archives found at {url} (looked for {url.rsplit('/', 1)[-1]}-VERSION.tgz)")
    newest_first = sorted(found, key=_Order, reverse=True)
    try:
        version = matching_tag(newest_first, constraint)
    except SourceError as err:
        raise SourceError(f"{url}: {err} (versions there: {', '.join(newest_first[:10])})") from None
    return version, found[version]


class _Order:
    """SemVer order of version strings (plain string order when either is not SemVer)."""

    def __init__(self, version: str) -> None:
        self.version = version

    def __lt__(self, other: _Order) -> bool:
        from runner.chart.sources.index import ChartVersion, compare_versions

        return compare_versions(ChartVersion("", self.version), ChartVersion("", other.version)) < 0
