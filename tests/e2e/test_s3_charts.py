"""`s3://` charts on the command line (runner.aws.s3 through runner.chart.sources.getters),
against moto's S3 in server mode: a chart location whose versions are its archives
(`s3://bucket/prefix/name`), an archive's URL, and a repository as the helm-s3 plugin keeps
it (index.yaml beside the archives, URLs absolute or relative). The render is compared
with `helm template` of the same archive."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

CONFIGMAP = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                        "data:\n  version: {{ .Chart.Version | quote }}\n"}


@pytest.fixture(scope="module")
def aws() -> Iterator[Any]:
    from testbed.aws import AwsServer

    with AwsServer.start() as server:
        yield server


@pytest.fixture
def bucket(aws: Any, helm: Any, tmp_path: Path) -> str:
    from testbed.aws import REGION

    name = f"charts-{uuid.uuid4().hex[:10]}"
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": REGION})
    out = tmp_path / "packages"
    for version in ("1.0.0", "1.4.0", "1.10.0", "2.0.0"):
        chart = write_chart(tmp_path / "charts", "web", version, templates=CONFIGMAP)
        assert helm("package", str(chart), "-d", str(out)).returncode == 0
        data = (out / f"web-{version}.tgz").read_bytes()
        s3.put_object(Bucket=name, Key=f"apps/web-{version}.tgz", Body=data)
        s3.put_object(Bucket=name, Key=f"repo/web-{version}.tgz", Body=data)
        s3.put_object(Bucket=name, Key=f"relative/web-{version}.tgz", Body=data)
    for prefix, url in (("repo", f"s3://{name}/repo"), ("relative", "")):
        indexed = helm("repo", "index", str(out), *(["--url", url] if url else []))
        assert indexed.returncode == 0, indexed.stderr
        s3.put_object(Bucket=name, Key=f"{prefix}/index.yaml", Body=(out / "index.yaml").read_bytes())
    return name


def ours(aws: Any, tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    from testbed.aws import Keys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "HELM_", "DEPLOY_RUNNER_"))}
    env.update(aws.environment(Keys("testing", "testing", "")), HOME=str(tmp_path / "home"), **extra)
    return subprocess.run([str(Path(sys.executable).parent / "deploy-runner"), *args], env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def version_of(rendered: str) -> str:
    return rendered.split("version: ")[1].split()[0].strip('"')


def test_a_chart_location_renders_the_newest_version_its_constraint_takes(aws: Any, bucket: str, helm: Any,
                                                                          tmp_path: Path) -> None:
    rendered = ours(aws, tmp_path, "template", "web", f"s3://{bucket}/apps/web", "--version", "^1")
    assert rendered.returncode == 0, rendered.stderr
    assert version_of(rendered.stdout) == "1.10.0"
    theirs = helm("template", "web", str(tmp_path / "packages" / "web-1.10.0.tgz"))
    assert rendered.stdout == theirs.stdout
    newest = ours(aws, tmp_path, "template", "web", f"s3://{bucket}/apps/web")
    assert version_of(newest.stdout) == "2.0.0"
    archive = ours(aws, tmp_path, "template", "web", f"s3://{bucket}/apps/web-1.4.0.tgz")
    assert version_of(archive.stdout) == "1.4.0"


def test_a_helm_s3_repository_serves_its_charts(aws: Any, bucket: str, tmp_path: Path) -> None:
    for prefix in ("repo", "relative"):
        rendered = ours(aws, tmp_path, "template", "web", "web", "--repo", f"s3://{bucket}/{prefix}",
                        "--version", "~1.4")
        assert rendered.returncode == 0, rendered.stderr
        assert version_of(rendered.stdout) == "1.4.0"
    added = ours(aws, tmp_path, "repo", "add", "charts", f"s3://{bucket}/repo")
    assert added.returncode == 0, added.stderr
    (tmp_path / "pulled").mkdir()  # as Helm's, pull -d wants the directory to exist
    pulled = ours(aws, tmp_path, "pull", "charts/web", "--version", "2.0.0", "-d", str(tmp_path / "pulled"))
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "pulled" / "web-2.0.0.tgz").read_bytes() == (tmp_path / "packages" / "web-2.0.0.tgz").read_bytes()


def test_what_s3_refuses_is_one_line(aws: Any, bucket: str, tmp_path: Path) -> None:
    missing = ours(aws, tmp_path, "template", "web", f"s3://{bucket}/apps/web-9.9.9.tgz")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1
    assert f"s3:GetObject s3://{bucket}/apps/web-9.9.9.tgz: NoSuchKey" in missing.stderr
    none = ours(aws, tmp_path, "template", "web", f"s3://{bucket}/apps/api")
    assert f"no chart archives found at s3://{bucket}/apps/api" in none.stderr
    large = ours(aws, tmp_path, "template", "web", f"s3://{bucket}/apps/web-1.0.0.tgz",
                 DEPLOY_RUNNER_MAX_CHART_BYTES="100")
    assert large.returncode == 1 and "more than the limit of 100 (DEPLOY_RUNNER_MAX_CHART_BYTES)" in large.stderr
