"""lambda/handler.py hands the event to runner.awslambda and returns its answer: events
that ask nothing of the function get why, without touching AWS or a cluster; nothing
escapes as an exception."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "lambda_handler", Path(__file__).resolve().parents[3] / "lambda" / "handler.py"
)
assert _SPEC and _SPEC.loader
handler_module = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(handler_module)


class Context:
    function_name = "deploy-runner"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:deploy-runner"
    aws_request_id = "c6af9ac6-7b61-11e6-9a41-93e812345678"

    def get_remaining_time_in_millis(self) -> int:
        return 60_000


@pytest.fixture(autouse=True)
def _private_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name))
    monkeypatch.setenv("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")


def test_an_ecr_image_push_is_skipped_and_logged_as_powertools_logs(capsys: pytest.CaptureFixture[str]) -> None:
    event = {"source": "aws.ecr", "detail-type": "ECR Image Action", "account": "123456789012",
             "region": "us-west-2", "detail": {"result": "SUCCESS", "action-type": "PUSH",
                                               "repository-name": "web", "image-tag": "1.0.0",
                                               "artifact-media-type": "application/vnd.oci.image.config.v1+json"}}
    answer = handler_module.handler(event, Context())
    assert answer["error"] is None and answer["releases"] == [] and "not a Helm chart" in answer["skipped"]
    [line] = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert line["level"] == "INFO" and line["message"] == "event skipped"
    assert line["service"] == "deploy-runner" and line["function_name"] == "deploy-runner"
    assert line["function_request_id"] == Context.aws_request_id and line["function_memory_size"] == 512
    assert line["xray_trace_id"] == "1-5759e988-bd862e3fe1be46a994272793"
    assert line["location"].startswith("_skipped:") and line["timestamp"].endswith("+0000")


def test_an_event_not_understood_is_an_error_answer_not_an_exception() -> None:
    answer = handler_module.handler({"detail": {"x": 1}}, Context())
    assert answer["releases"] == [] and "does not take" in answer["error"]


def test_a_batch_of_sqs_messages_answers_with_the_ones_that_failed() -> None:
    event = {"Records": [{"messageId": "ok", "eventSource": "aws:sqs", "body": json.dumps({"Event": "s3:TestEvent"})},
                         {"messageId": "bad", "eventSource": "aws:sqs", "body": "[]"}]}
    answer = handler_module.handler(event, Context())
    assert answer["batchItemFailures"] == [{"itemIdentifier": "bad"}]
    assert [run.get("skipped") is not None for run in answer["runs"]] == [True, False]
