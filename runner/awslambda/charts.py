"""A pushed chart and the releases it deploys.

Which releases: those of the spec whose chart is the pushed chart and whose version
constraint accepts the pushed version:

| pushed | a release's chart that is it |
| --- | --- |
| `s3://bucket/prefix/web-1.2.0.tgz` | `s3://bucket/prefix/web` (its versions are `prefix/web-VERSION.tgz`), that very archive's URL, or `REPO/web` of a repository whose url is `s3://bucket/prefix` (a helm-s3 repository) |
| `oci://ACCOUNT.dkr.ecr.REGION.amazonaws.com/charts/web:1.2.0` | `oci://ACCOUNT.dkr.ecr.REGION.amazonaws.com/charts/web` (without a tag, or with that tag), or `REPO/web` of an `oci: true` repository at `.../charts` |

The pushed chart is fetched once, before the run (S3: with the size limit; ECR: with an
ECR authorization token, by the pushed digest), read as a chart (it must be the chart
and version the push names), stored in Helm's content cache, and handed to the matching
releases as theirs: the run deploys exactly the pushed bytes, whatever happened to the
tag or key since. Its provenance for the GitHub report: the OCI manifest's annotations,
else Chart.yaml's: `org.opencontainers.image.source` (else Chart.yaml's first `sources`
entry) and `org.opencontainers.image.revision`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from runner.aws.lambda_events import Push
from runner.errors import RunnerError
from runner.golang import semver

SOURCE_ANNOTATION = "org.opencontainers.image.source"
REVISION_ANNOTATION = "org.opencontainers.image.revision"


@dataclass(frozen=True)
class PushedChart:
    """What was pushed: the chart's location (without version), name and version."""

    location: str  # s3://bucket/prefix/web or oci://host/repository
    name: str
    version: str
    archive_url: str = ""  # S3: the archive's URL


@dataclass
class Fetched:
    """The pushed chart, fetched and checked."""

    path: str  # the archive in Helm's content cache
    annotations: dict[str, str] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    @property
    def source(self) -> str:
        return self.annotations.get(SOURCE_ANNOTATION) or (self.sources[0] if self.sources else "")

    @property
    def revision(self) -> str:
        return self.annotations.get(REVISION_ANNOTATION, "")


def pushed_chart(push: Push) -> PushedChart:
    """The chart a push names (its name and version from the S3 key or the ECR tag)."""
    if push.kind == "s3":
        from runner.aws.s3 import archive_version

        parsed = archive_version(push.url)
        if parsed is None:
            raise RunnerError(f"{push.url}: not a chart archive named NAME-VERSION.tgz")
        name, version = parsed
        location = push.url.rsplit("/", 1)[0] + "/" + name
        return PushedChart(location, name, version, push.url)
    version = push.tag.replace("_", "+")  # Helm's tag for a version with build metadata
    return PushedChart(push.url, push.url.rsplit("/", 1)[-1], version)


def matches(release: Any, pushed: PushedChart) -> str:
    """Why `release` (runner.spec.resolve.ReleaseSpec) does not take the pushed chart, or ""
    when it does."""
    chart = release.chart
    if not _same_chart(chart, pushed):
        return f"its chart is not {pushed.location}"
    constraint = chart.version or ""
    try:
        accepted = semver.new_constraint(constraint or "*").check(semver.new_version(pushed.version))
    except semver.SemverError as err:
        return f"version {pushed.version} or its constraint {constraint!r} is not SemVer ({err})"
    if not accepted:
        return f"its version constraint {constraint or '(none: stable versions)'} does not accept {pushed.version}"
    return ""


def _same_chart(chart: Any, pushed: PushedChart) -> bool:
    if chart.kind == "url":
        return chart.ref in (pushed.location, pushed.archive_url)
    if chart.kind == "oci":
        ref = chart.ref.removeprefix("oci://")
        location = pushed.location.removeprefix("oci://")
        head, _, tag = ref.rpartition(":") if ":" in ref.rsplit("/", 1)[-1] else (ref, "", "")
        return head.lower() == location.lower() and (not tag or tag.replace("_", "+") == pushed.version)
    if chart.kind == "repo" and chart.repository is not None:
        base = chart.repository.url.rstrip("/")
        return chart.ref == pushed.name and f"{base}/{pushed.name}" == pushed.location
    return False


def deploying(release: Any, pushed: PushedChart, fetched: Fetched) -> Any:
    """`release` with the pushed chart as its chart: that version, those very bytes."""
    return replace(release, chart=replace(release.chart, version=pushed.version, located=fetched.path))


def fetch(push: Push, pushed: PushedChart) -> Fetched:
    """Fetch the pushed chart, check it is what the push says, keep it in the content cache."""
    from runner.chart.sources.downloader import content_cache_put
    from runner.chart.sources.paths import HelmPaths

    annotations: dict[str, str] = {}
    if push.kind == "s3":
        from runner.aws import s3

        data = s3.read(push.url)
    else:
        data, annotations = _pull_from_ecr(push)
    metadata = _metadata(data, push)
    if metadata.name != pushed.name or metadata.version != pushed.version:
        raise RunnerError(f"{push.url}: the archive holds chart {metadata.name} {metadata.version}, "
                          f"not {pushed.name} {pushed.version} as the push names it")
    path = content_cache_put(HelmPaths.from_env(), data)
    return Fetched(str(path), {**dict(metadata.annotations or {}), **annotations}, list(metadata.sources or []))


def _pull_from_ecr(push: Push) -> tuple[bytes, dict[str, str]]:
    """The chart layer of the pushed manifest (by its digest), with an ECR token."""
    from runner.aws import ecr
    from runner.chart.sources import oci
    from runner.chart.sources.messages import quiet

    host, _, repository = push.url.removeprefix("oci://").partition("/")
    login = ecr.login(host)
    pinned = f"{push.tag}@{push.digest}" if push.digest else push.tag
    options = oci.OciOptions(plain_http=login.plain_http, username=login.username, password=login.password)
    pulled = oci.pull(f"oci://{login.host}/{repository}:{pinned}", "", options, say=quiet)
    return pulled.data, dict(pulled.annotations)


def _metadata(data: bytes, push: Push) -> Any:
    """The archive's Chart.yaml, read through the loader's safe archive reader."""
    from runner.chart.loader import load_archive_bytes

    try:
        return load_archive_bytes(data).metadata
    except RunnerError as err:
        raise RunnerError(f"{push.url}: not a chart archive: {err}") from err
