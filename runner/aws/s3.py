"""Charts and specs in S3: `s3://bucket/key` read whole with a size limit, and a chart's
versions under a prefix, as the helm-s3 plugin keeps them.

- `s3://bucket/prefix/web-1.2.0.tgz` is an archive, fetched as it is;
- `s3://bucket/prefix/web` names the chart `web` kept as `prefix/web-VERSION.tgz`
  objects: its versions are those objects (a version constraint picks one);
- `s3://bucket/prefix` as a repository URL is a helm-s3 repository: its `index.yaml`
  lists the charts, whose URLs are relative or `s3://` (read through this getter too).

runner.chart.sources.getters loads this getter for `s3://` URLs; botocore is imported
when an S3 URL is first read. A body larger than the limit
(DEPLOY_RUNNER_MAX_CHART_BYTES, default 20 MiB) is refused before it is read whole.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import urlsplit

from runner.aws import clients
from runner.chart.sources.errors import SourceError

SCHEME = "s3"
MAX_BYTES_VARIABLE = "DEPLOY_RUNNER_MAX_CHART_BYTES"
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
# name-VERSION.tgz, VERSION a SemVer (Helm's archive names): the name is the shortest
# prefix followed by `-<digits>.`, so `my-chart-1.2.0-rc.1.tgz` is my-chart 1.2.0-rc.1.
ARCHIVE_NAME = re.compile(r"(?P<name>.+?)-(?P<version>v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?)\.tgz")
_PAGE_LIMIT = 50  # ListObjectsV2 pages of 1000: a chart with more versions is cut there


def split(url: str) -> tuple[str, str]:
    """(bucket, key) of `s3://bucket/key`; an error naming what is wrong otherwise."""
    parts = urlsplit(url)
    if parts.scheme != SCHEME or not _BUCKET.fullmatch(parts.netloc or ""):
        raise SourceError(f"{url}: not an S3 URL (s3://BUCKET/KEY)")
    key = parts.path.lstrip("/")
    if parts.query or parts.fragment:
        raise SourceError(f"{url}: an S3 URL has no query or fragment")
    return parts.netloc, key


def max_bytes() -> int:
    text = os.environ.get(MAX_BYTES_VARIABLE, "")
    return int(text) if text.isdigit() and int(text) > 0 else DEFAULT_MAX_BYTES


def read(url: str, limit: int | None = None) -> bytes:
    """The object at `url`, at most `limit` bytes (default: max_bytes())."""
    bucket, key = split(url)
    if not key or key.endswith("/"):
        raise SourceError(f"{url}: names no object")
    limit = max_bytes() if limit is None else limit
    s3 = clients.client("s3")
    try:
        answer = clients.call(f"s3:GetObject {url}", lambda: s3.get_object(Bucket=bucket, Key=key))
    except clients.AwsError as err:
        raise SourceError(str(err)) from err
    body = answer["Body"]
    try:
        size = int(answer.get("ContentLength") or 0)
        if size > limit:
            raise SourceError(f"{url}: {size} bytes, more than the limit of {limit} ({MAX_BYTES_VARIABLE})")
        data = body.read(limit + 1)
    finally:
        body.close()
    if len(data) > limit:
        raise SourceError(f"{url}: more than the limit of {limit} bytes ({MAX_BYTES_VARIABLE})")
    return bytes(data)


def archive_version(key: str) -> tuple[str, str] | None:
    """(chart name, version) of an archive key `prefix/name-VERSION.tgz`, or None."""
    found = ARCHIVE_NAME.fullmatch(key.rsplit("/", 1)[-1])
    return (found["name"], found["version"]) if found else None


def chart_versions(url: str) -> dict[str, str]:
    """The versions of chart `s3://bucket/prefix/name`: version -> its archive's URL."""
    bucket, key = split(url)
    name = key.rsplit("/", 1)[-1]
    if not name:
        raise SourceError(f"{url}: names no chart (s3://BUCKET/PREFIX/NAME)")
    s3 = clients.client("s3")
    found: dict[str, str] = {}
    token = ""
    for _ in range(_PAGE_LIMIT):
        kwargs: dict[str, Any] = {"Bucket": bucket, "Prefix": f"{key}-"}
        if token:
            kwargs["ContinuationToken"] = token
        try:
            page = clients.call(f"s3:ListObjectsV2 {url}-*", lambda kwargs=kwargs: s3.list_objects_v2(**kwargs))
        except clients.AwsError as err:
            raise SourceError(str(err)) from err
        for item in page.get("Contents") or []:
            parsed = archive_version(str(item.get("Key") or ""))
            if parsed is not None and parsed[0] == name:
                found[parsed[1]] = f"s3://{bucket}/{item['Key']}"
        token = str(page.get("NextContinuationToken") or "")
        if not page.get("IsTruncated") or not token:
            break
    return found


class S3Getter:
    """runner.chart.sources.getters' getter of `s3://` URLs (its PROVIDERS name this class)."""

    def get(self, url: str) -> bytes:
        return read(url)

    def versions(self, url: str) -> dict[str, str]:
        return chart_versions(url)
