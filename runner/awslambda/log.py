"""Structured log lines as AWS Lambda Powertools' Logger writes them, so the CloudWatch
Logs Insights queries teams already have work unchanged:

    {"level": "INFO", "location": "report:42", "message": "...",
     "timestamp": "2026-05-04 10:00:03,120+0000", "service": "deploy-runner",
     "cold_start": true, "function_name": "...", "function_memory_size": 512,
     "function_arn": "...", "function_request_id": "...", "xray_trace_id": "1-...", ...}

The keys after the Powertools ones are the line's own (a release's name, status,
revision...). One line per release deployed (or not), one per event not taken. Written
to standard output, which Lambda sends to CloudWatch Logs; every value has passed the
run's redactor first.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from typing import Any

SERVICE_VARIABLE = "POWERTOOLS_SERVICE_NAME"  # Powertools' own variable for `service`
DEFAULT_SERVICE = "deploy-runner"


class Logger:
    """The log of one invocation: the Powertools context keys, then each line's."""

    def __init__(self, context: Any, cold_start: bool, out: Any = None) -> None:
        self.out = out
        self.base: dict[str, Any] = {
            "service": os.environ.get(SERVICE_VARIABLE) or DEFAULT_SERVICE,
            "cold_start": cold_start,
            "function_name": getattr(context, "function_name", None) or os.environ.get("AWS_LAMBDA_FUNCTION_NAME", ""),
            "function_memory_size": _memory(context),
            "function_arn": getattr(context, "invoked_function_arn", "") or "",
            "function_request_id": getattr(context, "aws_request_id", "") or "",
        }
        trace = xray_trace_id()
        if trace:
            self.base["xray_trace_id"] = trace

    def line(self, level: str, message: str, **keys: Any) -> dict[str, Any]:
        caller = sys._getframe(1)  # noqa: SLF001 - Powertools' `location`: the caller's function:line
        record = {"level": level, "location": f"{caller.f_code.co_name}:{caller.f_lineno}",
                  "message": message, "timestamp": timestamp(), **self.base, **keys}
        out = self.out or sys.stdout
        out.write(json.dumps(record, default=str) + "\n")
        out.flush()
        return record


def timestamp(now: datetime | None = None) -> str:
    """Powertools' time format: `2026-05-04 10:00:03,120+0000` (UTC, milliseconds)."""
    now = now or datetime.now(UTC)
    return now.strftime("%Y-%m-%d %H:%M:%S,") + f"{now.microsecond // 1000:03d}" + now.strftime("%z")


def xray_trace_id() -> str:
    """The Root of _X_AMZN_TRACE_ID (`Root=1-...;Parent=...;Sampled=1`), as Powertools logs it."""
    header = os.environ.get("_X_AMZN_TRACE_ID", "")
    for part in header.split(";"):
        name, _, value = part.partition("=")
        if name.strip() == "Root":
            return value.strip()
    return ""


def _memory(context: Any) -> int | None:
    value = getattr(context, "memory_limit_in_mb", None) or os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
