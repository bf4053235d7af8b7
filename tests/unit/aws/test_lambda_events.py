"""What each Lambda event asks (runner.aws.lambda_events), from events in AWS's documented
shapes (CONTRACTS.md section 3): pushes, direct runs, skips with their reason, and what is
not understood named, never an exception."""

from __future__ import annotations

import json
from typing import Any

import pytest

from runner.aws.lambda_events import (
    HELM_CONFIG_MEDIA_TYPE,
    DirectRun,
    Invalid,
    Push,
    Skipped,
    parse,
)

DIGEST = "sha256:" + "ab" * 32


def s3_record(key: str, name: str = "ObjectCreated:Put", bucket: str = "charts") -> dict[str, Any]:
    return {"eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": "us-east-1", "eventName": name,
            "s3": {"s3SchemaVersion": "1.0", "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}"},
                   "object": {"key": key, "size": 1024, "sequencer": "0A1B2C3D4E5F678901"}}}


def ecr(**detail: Any) -> dict[str, Any]:
    base = {"result": "SUCCESS", "repository-name": "charts/app", "image-digest": DIGEST, "action-type": "PUSH",
            "image-tag": "1.2.0", "manifest-media-type": "application/vnd.oci.image.manifest.v1+json",
            "artifact-media-type": HELM_CONFIG_MEDIA_TYPE}
    base.update(detail)
    return {"version": "0", "id": "ev-1", "detail-type": "ECR Image Action", "source": "aws.ecr",
            "account": "123456789012", "time": "2026-05-04T10:00:00Z", "region": "us-west-2", "resources": [],
            "detail": {k: v for k, v in base.items() if v is not None}}


def only(event: Any) -> Any:
    [item] = parse(event).items
    return item.what


def test_an_s3_notification_is_a_push_of_its_form_decoded_key() -> None:
    assert only({"Records": [s3_record("apps/my+chart-1.2.0.tgz")]}) == Push(
        "s3", "s3://charts/apps/my chart-1.2.0.tgz", event_id="0A1B2C3D4E5F678901")


def test_s3_records_that_are_not_chart_pushes_are_skipped_with_why() -> None:
    removed = only({"Records": [s3_record("apps/web-1.0.0.tgz", "ObjectRemoved:Delete")]})
    assert isinstance(removed, Skipped) and "ObjectRemoved:Delete is not a push" in removed.reason
    text = only({"Records": [s3_record("apps/index.yaml")]})
    assert isinstance(text, Skipped) and "not a chart archive" in text.reason


@pytest.mark.parametrize(("key", "problem"), [
    ("apps/../web-1.0.0.tgz", "'..' segment"), ("./web-1.0.0.tgz", "'.' or '..' segment"),
    ("apps/%00web-1.0.0.tgz", "control character"), ("a" * 1100 + ".tgz", "longer than 1024 bytes"),
    ("apps//web-1.0.0.tgz", "empty segment"), ("", "empty")])
def test_hostile_object_keys_are_refused(key: str, problem: str) -> None:
    found = only({"Records": [s3_record(key)]})
    assert isinstance(found, Invalid) and problem in found.error


def test_an_eventbridge_object_created_event_keeps_its_key_as_it_is() -> None:
    event = {"version": "0", "id": "e-1", "detail-type": "Object Created", "source": "aws.s3",
             "account": "111122223333", "region": "ca-central-1", "resources": ["arn:aws:s3:::charts"],
             "detail": {"version": "0", "bucket": {"name": "charts"},
                        "object": {"key": "apps/web+x-1.0.0.tgz", "size": 5, "sequencer": "00617F"},
                        "request-id": "N4N7GDK58NMKJ12R", "requester": "123456789012", "reason": "PutObject"}}
    assert only(event) == Push("s3", "s3://charts/apps/web+x-1.0.0.tgz", event_id="e-1")


def test_the_chart_media_type_is_the_oci_clients() -> None:
    from runner.chart.sources.oci import CONFIG_MEDIA_TYPE

    assert HELM_CONFIG_MEDIA_TYPE == CONFIG_MEDIA_TYPE


def test_an_ecr_push_of_a_helm_chart_is_a_push_with_its_tag_and_digest() -> None:
    assert only(ecr()) == Push("ecr", "oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/charts/app",
                               tag="1.2.0", digest=DIGEST, event_id="ev-1")


@pytest.mark.parametrize(("detail", "reason"), [
    ({"artifact-media-type": "application/vnd.oci.image.config.v1+json"}, "not a Helm chart"),
    ({"artifact-media-type": None}, "no artifact media type, not a Helm chart"),
    ({"action-type": "DELETE"}, "DELETE SUCCESS is not a successful push"),
    ({"result": "FAILURE"}, "PUSH FAILURE is not a successful push"),
    ({"image-tag": ""}, "pushed without a tag")])
def test_ecr_events_that_are_not_chart_pushes_are_skipped_with_why(detail: dict[str, Any], reason: str) -> None:
    found = only(ecr(**detail))
    assert isinstance(found, Skipped) and reason in found.reason
    assert found.trigger is not None and found.trigger["kind"] == "ecr"


@pytest.mark.parametrize(("event", "problem"), [
    ({**ecr(), "account": "me"}, "account: must be a 12-digit"),
    (ecr(**{"repository-name": "../etc"}), "repository-name"),
    (ecr(**{"image-digest": "md5:00"}), "sha256 digest"),
    ({**ecr(), "detail": "push"}, "without a detail object")])
def test_malformed_ecr_events_are_named(event: dict[str, Any], problem: str) -> None:
    found = only(event)
    assert isinstance(found, Invalid) and problem in found.error


def test_sqs_messages_keep_their_ids_and_bad_bodies_are_errors() -> None:
    event = {"Records": [
        {"messageId": "m1", "eventSource": "aws:sqs", "body": json.dumps({"Records": [s3_record("a/web-1.0.0.tgz")]})},
        {"messageId": "m2", "eventSource": "aws:sqs", "body": "{not json"},
        {"messageId": "m3", "eventSource": "aws:sqs", "body": json.dumps(ecr())},
        {"messageId": "m4", "eventSource": "aws:sqs", "body": json.dumps({"Event": "s3:TestEvent"})}]}
    parsed = parse(event)
    assert parsed.sqs
    assert [(i.message_id, type(i.what).__name__) for i in parsed.items] == [
        ("m1", "Push"), ("m2", "Invalid"), ("m3", "Push"), ("m4", "Skipped")]


def test_a_direct_invocation_is_checked_key_by_key() -> None:
    assert only({"spec": {"releases": []}, "environment": "prod", "releases": ["web"], "plan": True}) == DirectRun(
        {"releases": []}, "", "prod", ("web",), True)
    assert only({"specRef": "ssm:/spec"}) == DirectRun(None, "ssm:/spec")
    assert only({"releases": ["web"]}) == DirectRun(None, "", "", ("web",))  # the configured spec
    for event, problem in (({"spec": [1]}, "spec: must be a mapping"),
                           ({"spec": {}, "specRef": "x"}, "not both"),
                           ({"spec": {}, "plan": "yes"}, "plan: must be true or false"),
                           ({"spec": {}, "releases": "web"}, "releases: must be a list"),
                           ({"spec": {}, "environment": 3}, "environment: must be a string"),
                           ({"spec": {}, "deploy": True}, "unknown key 'deploy'")):
        found = only(event)
        assert isinstance(found, Invalid) and problem in found.error, event


@pytest.mark.parametrize(("event", "problem"), [
    ({"foo": 1}, "an event this function does not take (keys: foo)"),
    ({"source": "aws.ec2", "detail-type": "EC2 Instance State-change Notification"}, "source 'aws.ec2'"),
    ([1, 2], "not an object"), ("text", "not an object"),
    ({"spec": {"big": "x" * (2 * 1024 * 1024)}}, "more than the 1048576"),
    ({"spec": {1, 2}}, "not JSON data"),
    ({"Records": "x"}, "Records: must be a non-empty list")])
def test_what_is_not_understood_is_an_error_naming_it(event: Any, problem: str) -> None:
    found = only(event)
    assert isinstance(found, Invalid) and problem in found.error
