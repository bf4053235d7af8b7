"""k8s.io/klog/v2's text line, as client-go writes its log to stderr inside Helm:
`I1129 08:03:18.971114   10792 warnings.go:107] "Warning: unknown field \\"spec.x\\""`.

The header is klog's formatHeader: the severity's letter, month and day, the local
time to the microsecond, the process id right-aligned in seven columns, then the
caller's file:line. A structured record (logr's Info, klog.InfoS) quotes its
message with strconv.Quote.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from datetime import datetime


def header(severity: str, when: datetime, pid: int, caller: str) -> str:
    """`Lmmdd hh:mm:ss.uuuuuu threadid file:line] ` (klog's pid stands in for the thread id,
    in seven columns: nDigits keeps the last seven digits)."""
    return (f"{severity[0]}{when.month:02d}{when.day:02d} {when.hour:02d}:{when.minute:02d}:"
            f"{when.second:02d}.{when.microsecond:06d} {pid % 10_000_000:>7d} {caller}] ")


def info_s(message: str, caller: str, when: datetime | None = None, pid: int | None = None) -> str:
    """A structured Info record without key/values: the header, then the quoted message."""
    import os
    from datetime import datetime

    from runner.golang.strconv import quote

    stamp = when if when is not None else datetime.now()
    return header("INFO", stamp, os.getpid() if pid is None else pid, caller) + quote(message)
