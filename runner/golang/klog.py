"""k8s.io/klog/v2's text line, as client-go logs to stderr what it is told to log at its
default level (Helm shows the API server's warnings so):

    I1129 08:46:59.107794   16232 warnings.go:107] "Warning: unrecognized format \"int64\""

The severity letter, the month and day, the local time to the microsecond, the process
id right-aligned in seven columns, the caller's file and line, then the message quoted
(strconv.Quote), as klog's structured logging writes a message without key/values.
"""

from __future__ import annotations

import os
from datetime import datetime

from runner.golang.strconv import quote


def info_line(caller: str, message: str, when: datetime | None = None, pid: int | None = None) -> str:
    now = when or datetime.now()
    return (f"I{now:%m%d %H:%M:%S}.{now.microsecond:06d} {os.getpid() if pid is None else pid:7d} "
            f"{caller}] {quote(message)}")
