"""Chart URLs by scheme (runner.chart.sources.getters): http(s) and oci built in, others
registered by a front end (the CLI and the Lambda register s3://); an unknown scheme is
refused in Helm's words. A getter of the test's own stands in for S3 here (the real one is
tested against moto in tests/e2e/test_lambda.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.chart.sources import getters
from runner.chart.sources.downloader import SourceOptions, resolve_chart_url
from runner.chart.sources.errors import SourceError
from runner.chart.sources.index import resolve_reference_url
from runner.chart.sources.messages import quiet
from runner.chart.sources.paths import HelmPaths
from runner.chart.sources.repo import check_scheme


class Shelf:
    """A getter over a dict of URL -> bytes."""

    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects = objects
        self.asked: list[str] = []

    def get(self, url: str) -> bytes:
        self.asked.append(url)
        return self.objects[url]

    def versions(self, url: str) -> dict[str, str]:
        name = url.rsplit("/", 1)[-1]
        return {u.rsplit("/", 1)[-1].removeprefix(f"{name}-").removesuffix(".tgz"): u
                for u in self.objects if u.startswith(f"{url}-")}


@pytest.fixture
def shelf(monkeypatch: pytest.MonkeyPatch) -> Shelf:
    found = Shelf({f"mem://b/apps/web-{v}.tgz": v.encode() for v in ("1.0.0", "1.2.0", "1.10.1", "2.0.0-rc.1")})
    monkeypatch.setattr(getters, "_factories", {"mem": lambda: found})
    monkeypatch.setattr(getters, "_made", {})
    return found


def paths(tmp_path: Path) -> HelmPaths:
    return HelmPaths(tmp_path / "repositories.yaml", tmp_path / "cache", tmp_path / "registry.json", tmp_path / "content")


def test_an_unknown_scheme_has_no_protocol_handler(shelf: Shelf) -> None:
    with pytest.raises(SourceError, match="^could not find protocol handler for: gs$"):
        check_scheme("gs://bucket/charts")
    with pytest.raises(SourceError, match="could not find protocol handler for: gs"):
        getters.get("gs://bucket/web-1.0.0.tgz")
    check_scheme("mem://b/apps")  # registered


def test_a_chart_location_resolves_to_the_newest_version_its_constraint_accepts(shelf: Shelf, tmp_path: Path) -> None:
    found = resolve_chart_url("mem://b/apps/web", SourceOptions(version="^1"), paths(tmp_path), say=quiet)
    assert (found.url, found.version) == ("mem://b/apps/web-1.10.1.tgz", "1.10.1")
    exact = resolve_chart_url("mem://b/apps/web", SourceOptions(version="1.0.0"), paths(tmp_path), say=quiet)
    assert exact.url == "mem://b/apps/web-1.0.0.tgz"
    with pytest.raises(SourceError, match=r"mem://b/apps/web: could not locate a version matching .*\^3"):
        resolve_chart_url("mem://b/apps/web", SourceOptions(version="^3"), paths(tmp_path), say=quiet)
    with pytest.raises(SourceError, match="no chart archives found at mem://b/apps/api"):
        resolve_chart_url("mem://b/apps/api", SourceOptions(), paths(tmp_path), say=quiet)


def test_an_archive_url_is_fetched_as_it_is(shelf: Shelf, tmp_path: Path) -> None:
    found = resolve_chart_url("mem://b/apps/web-1.2.0.tgz", SourceOptions(), paths(tmp_path), say=quiet)
    assert found.url == "mem://b/apps/web-1.2.0.tgz"
    assert getters.get(found.url) == b"1.2.0" and shelf.asked == ["mem://b/apps/web-1.2.0.tgz"]


def test_relative_chart_urls_of_a_repository_resolve_under_any_scheme() -> None:
    assert resolve_reference_url("s3://bucket/charts", "web-1.0.0.tgz") == "s3://bucket/charts/web-1.0.0.tgz"
    assert resolve_reference_url("s3://bucket/charts/", "sub/web-1.0.0.tgz") == "s3://bucket/charts/sub/web-1.0.0.tgz"
    assert resolve_reference_url("https://host/charts?x=1", "web-1.0.0.tgz") == "https://host/charts/web-1.0.0.tgz?x=1"
    assert resolve_reference_url("s3://bucket/charts", "s3://other/web-1.0.0.tgz") == "s3://other/web-1.0.0.tgz"
