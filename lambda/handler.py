"""The AWS Lambda function's entry point (`handler.handler`): a chart pushed to S3 or ECR,
or a direct invocation, becomes a run of the spec. The work is runner.awslambda's (see
docs/lambda.md); this file only hands the event over and returns the answer.
"""

from __future__ import annotations

from typing import Any

from runner.awslambda import handle


def handler(event: Any, context: Any = None) -> dict[str, Any]:
    return handle(event, context)
