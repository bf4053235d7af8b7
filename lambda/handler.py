"""AWS Lambda entry point: a chart pushed to S3 or ECR becomes a deploy request.

Thin by design (DESIGN.md): it reads the event into a plain request and hands
it on; the deploy itself is filled in by the Lambda issue. Until then it
reports what it would deploy, so the event wiring can be tested end to end.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_plus

HELM_CONFIG_MEDIA_TYPE = "application/vnd.cncf.helm.config.v1+json"


def chart_references(event: dict[str, Any]) -> list[str]:
    """The charts an S3 notification or an EventBridge ECR push names."""
    if event.get("source") == "aws.ecr":
        detail = event.get("detail") or {}
        if detail.get("action-type") != "PUSH" or detail.get("result") != "SUCCESS":
            return []
        if detail.get("artifact-media-type") not in (None, HELM_CONFIG_MEDIA_TYPE):
            return []
        registry = f"{event.get('account')}.dkr.ecr.{event.get('region')}.amazonaws.com"
        tag = detail.get("image-tag") or detail.get("image-digest", "")
        separator = ":" if detail.get("image-tag") else "@"
        return [f"oci://{registry}/{detail.get('repository-name')}{separator}{tag}"]
    references = []
    for record in event.get("Records") or []:
        if record.get("eventSource") != "aws:s3" or not record.get("eventName", "").startswith("ObjectCreated"):
            continue
        s3 = record["s3"]
        references.append(f"s3://{s3['bucket']['name']}/{unquote_plus(s3['object']['key'])}")
    return references


def handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    return {"charts": chart_references(event), "deployed": []}
