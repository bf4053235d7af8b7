"""botocore clients for the Lambda's AWS calls (S3, ECR, SSM, Secrets Manager), made once per
process and reused: a warm Lambda container keeps their connections between invocations.

The credentials and the region are the environment's, as botocore finds them (a Lambda
function's role and AWS_REGION; AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE> are
honoured: the tests point them at moto). Every failure becomes one line naming the call
(`AwsError`), never a traceback. The EKS login keeps its own session (runner.aws.eks), which
may assume a role for the cluster only.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from runner.errors import RunnerError

EXTRA_HINT = "pip install 'deploy-runner[aws]'"
_MESSAGE_LIMIT = 400

_lock = threading.Lock()
_session: Any = None
_clients: dict[tuple[str, str], Any] = {}


class AwsError(RunnerError):
    """An AWS call failed: one line naming the call and AWS's code and message."""


def botocore_modules() -> Any:
    """botocore, or the one line that says how to get it."""
    try:
        import botocore.config
        import botocore.exceptions
        import botocore.session
    except ImportError as err:
        raise AwsError(f"this needs the AWS SDK (botocore), which is not installed: {EXTRA_HINT}") from err
    return botocore


def client(service: str, region: str = "") -> Any:
    """The process's client of `service` (in `region`, else AWS_REGION as Lambda sets it, else
    botocore's: AWS_DEFAULT_REGION, the profile's)."""
    global _session
    botocore = botocore_modules()
    region = region or os.environ.get("AWS_REGION", "")
    with _lock:
        key = (service, region)
        if key not in _clients:
            if _session is None:
                _session = botocore.session.Session()
            config = botocore.config.Config(retries={"mode": "standard"}, connect_timeout=10, read_timeout=30)
            _clients[key] = call(f"{service} client", lambda: _session.create_client(
                service, region_name=region or None, config=config))
        return _clients[key]


def call(action: str, request: Callable[[], Any]) -> Any:
    """`request()`, its failure turned into one line naming `action` (e.g. `s3:GetObject
    s3://bucket/key`)."""
    errors = botocore_modules().exceptions
    try:
        return request()
    except errors.ClientError as err:
        raise AwsError(f"{action}: {refusal(err)}") from err
    except errors.NoCredentialsError as err:
        raise AwsError(f"{action}: no AWS credentials found ({err})") from err
    except errors.NoRegionError as err:
        raise AwsError(f"{action}: no AWS region: set AWS_REGION") from err
    except errors.BotoCoreError as err:
        raise AwsError(f"{action}: {one_line(str(err))}") from err


def refusal(err: Any) -> str:
    """AWS's code and message of a ClientError."""
    error = err.response.get("Error") or {}
    code = str(error.get("Code") or err.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or "error")
    message = one_line(str(error.get("Message") or ""))
    return f"{code}: {message}" if message else code


def error_code(err: BaseException) -> str:
    """The AWS error code behind an AwsError ("" when there is none)."""
    cause = err.__cause__
    response = getattr(cause, "response", None)
    return str(((response or {}).get("Error") or {}).get("Code") or "")


def one_line(text: str, limit: int = _MESSAGE_LIMIT) -> str:
    """AWS's words on one line (an answer botocore could not parse arrives whole)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def reset() -> None:
    """Forget the clients (a test that changes the environment between calls)."""
    global _session
    with _lock:
        _session = None
        _clients.clear()
