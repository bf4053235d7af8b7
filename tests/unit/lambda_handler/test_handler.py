"""The Lambda handler turns S3 and ECR push events (CONTRACTS.md §3) into chart references."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "lambda_handler", Path(__file__).resolve().parents[3] / "lambda" / "handler.py"
)
assert _SPEC and _SPEC.loader
handler_module = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(handler_module)


def _s3_event(key: str, name: str = "ObjectCreated:Put") -> dict:
    return {"Records": [{"eventSource": "aws:s3", "eventName": name,
                         "s3": {"bucket": {"name": "charts"}, "object": {"key": key}}}]}


def test_s3_key_is_form_decoded() -> None:
    assert handler_module.handler(_s3_event("my+chart-1.2.0.tgz"))["charts"] == ["s3://charts/my chart-1.2.0.tgz"]


def test_s3_deletes_are_ignored() -> None:
    assert handler_module.chart_references(_s3_event("x.tgz", "ObjectRemoved:Delete")) == []


def test_ecr_helm_push_becomes_an_oci_reference() -> None:
    event = {"source": "aws.ecr", "account": "123456789012", "region": "us-west-2",
             "detail": {"result": "SUCCESS", "action-type": "PUSH", "repository-name": "charts/app",
                        "image-tag": "1.2.0", "image-digest": "sha256:ab",
                        "artifact-media-type": "application/vnd.cncf.helm.config.v1+json"}}
    assert handler_module.chart_references(event) == [
        "oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/charts/app:1.2.0"
    ]


def test_ecr_container_image_push_is_not_a_chart() -> None:
    event = {"source": "aws.ecr", "detail": {"result": "SUCCESS", "action-type": "PUSH",
                                             "artifact-media-type": "application/vnd.oci.image.config.v1+json"}}
    assert handler_module.chart_references(event) == []
