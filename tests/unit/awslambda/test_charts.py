"""Which releases a pushed chart deploys (runner.awslambda.charts): the chart is theirs and
their version constraint accepts the pushed version."""

from __future__ import annotations

import pytest

from runner.aws.lambda_events import Push
from runner.aws.s3 import archive_version
from runner.awslambda.charts import matches, pushed_chart
from runner.spec.models import Repository
from runner.spec.resolve import ChartRef, ReleaseSpec

ECR = "123456789012.dkr.ecr.eu-west-1.amazonaws.com"


def release(kind: str, ref: str, version: str = "", repository: Repository | None = None) -> ReleaseSpec:
    return ReleaseSpec("web", "shop", ChartRef(kind, ref, version, repository))


@pytest.mark.parametrize(("key", "found"), [
    ("apps/web-1.2.0.tgz", ("web", "1.2.0")), ("my-chart-1.2.0-rc.1.tgz", ("my-chart", "1.2.0-rc.1")),
    ("a/b/web-2.0.0+build.5.tgz", ("web", "2.0.0+build.5")), ("apps/web.tgz", None), ("web-1.2.tgz", None)])
def test_archive_names_give_the_chart_and_its_version(key: str, found: tuple[str, str] | None) -> None:
    assert archive_version(key) == found


def test_an_s3_push_is_the_chart_at_its_prefix() -> None:
    pushed = pushed_chart(Push("s3", "s3://charts/apps/web-1.2.0.tgz"))
    assert (pushed.location, pushed.name, pushed.version) == ("s3://charts/apps/web", "web", "1.2.0")
    assert matches(release("url", "s3://charts/apps/web", "~1.2"), pushed) == ""
    assert matches(release("url", "s3://charts/apps/web-1.2.0.tgz"), pushed) == ""
    assert "its chart is not s3://charts/apps/web" in matches(release("url", "s3://charts/other/web"), pushed)
    helm_s3 = Repository(name="charts", url="s3://charts/apps/")
    assert matches(release("repo", "web", "^1", helm_s3), pushed) == ""
    assert matches(release("repo", "api", "^1", helm_s3), pushed) != ""


def test_the_version_constraint_decides_and_pre_releases_need_asking() -> None:
    pushed = pushed_chart(Push("s3", "s3://charts/apps/web-2.0.0.tgz"))
    assert "~1.2 does not accept 2.0.0" in matches(release("url", "s3://charts/apps/web", "~1.2"), pushed)
    candidate = pushed_chart(Push("s3", "s3://charts/apps/web-2.1.0-rc.1.tgz"))
    assert "does not accept 2.1.0-rc.1" in matches(release("url", "s3://charts/apps/web"), candidate)
    assert matches(release("url", "s3://charts/apps/web", ">=2.1.0-0"), candidate) == ""


def test_an_ecr_push_is_the_repository_with_its_tag_as_the_version() -> None:
    pushed = pushed_chart(Push("ecr", f"oci://{ECR}/charts/web", tag="1.2.0_build.7", digest="sha256:" + "a" * 64))
    assert (pushed.name, pushed.version) == ("web", "1.2.0+build.7")
    assert matches(release("oci", f"oci://{ECR.upper()}/charts/web", "^1"), pushed) == ""
    assert matches(release("oci", f"oci://{ECR}/charts/web:1.2.0_build.7"), pushed) == ""
    assert matches(release("oci", f"oci://{ECR}/charts/web:1.1.0"), pushed) != ""
    assert matches(release("oci", f"oci://{ECR}/charts/api", "^1"), pushed) != ""
    assert matches(release("path", "/charts/web"), pushed) != ""
