"""Template functions: Sprig's date.go (now, date, dateInZone, dateModify, ago,
duration, durationRound, toDate, unixEpoch, htmlDate ...).

Go semantics kept: `date` takes time.Time or unix seconds as int, int64 or
int32 and falls back to time.Now() for anything else; unknown zone names
fall back to UTC; `duration` only reads strings and int64 (a literal int is
0s); toDate parses in time.Local and returns the zero time on error.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from runner.funcs.cast import wrap_int64
from runner.funcs.registry import alias, gofunc
from runner.golang.gofunc import ANY, FuncError
from runner.golang.time import (
    ZERO_TIME,
    add_duration,
    duration_string,
    from_unix,
    go_format,
    in_zone,
    load_location,
    local_zone,
    now_in,
    parse_duration,
)
from runner.golang.timeparse import TimeParseError, go_parse
from runner.golang.types import Duration, Int64

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_SECOND = 1_000_000_000
_MINUTE = 60 * _SECOND
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR
_MONTH = 30 * _DAY
_YEAR = 365 * _DAY
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _now() -> datetime:
    return now_in(local_zone())


def _is_go_int(value: Any) -> bool:
    """A Go int (Python int that is not bool/int64): unix seconds for dates."""
    return type(value) is int


def _as_time(value: Any) -> datetime:
    """formatDate's and dateAgo's type switch; anything else is time.Now()."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if type(value) is Int64 or _is_go_int(value):
        return from_unix(int(value))
    return _now()


@gofunc("now", (), returns="time.Time")
def now() -> datetime:
    return _now()


@gofunc("dateInZone", ("string", ANY, "string"), returns="string")
def date_in_zone(fmt: str, date: Any, zone: str) -> str:
    location = load_location(zone) or UTC
    return go_format(in_zone(_as_time(date), location), fmt)


alias("date_in_zone", "dateInZone")


@gofunc("date", ("string", ANY), returns="string")
def date(fmt: str, value: Any) -> str:
    return date_in_zone(fmt, value, "Local")


@gofunc("htmlDate", (ANY,), returns="string")
def html_date(value: Any) -> str:
    return date_in_zone("2006-01-02", value, "Local")


@gofunc("htmlDateInZone", (ANY, "string"), returns="string")
def html_date_in_zone(value: Any, zone: str) -> str:
    return date_in_zone("2006-01-02", value, zone)


@gofunc("dateModify", ("string", "time.Time"), returns="time.Time")
def date_modify(fmt: str, value: datetime) -> datetime:
    try:
        return add_duration(value, parse_duration(fmt))
    except ValueError:
        return value


alias("date_modify", "dateModify")


@gofunc("mustDateModify", ("string", "time.Time"), returns="time.Time", fallible=True)
def must_date_modify(fmt: str, value: datetime) -> datetime:
    try:
        return add_duration(value, parse_duration(fmt))
    except ValueError as err:
        raise FuncError(str(err)) from None


alias("must_date_modify", "mustDateModify")


def _since(t: datetime) -> int:
    """time.Since(t) in nanoseconds (microsecond resolution here)."""
    delta = _now() - t
    return (delta.days * 86_400 + delta.seconds) * _SECOND + delta.microseconds * 1000


def _round_seconds(d: int) -> int:
    """Duration.Round(time.Second): halves away from zero."""
    remainder = abs(d) % _SECOND
    magnitude = abs(d) - remainder + (_SECOND if remainder * 2 >= _SECOND else 0)
    return magnitude if d >= 0 else -magnitude


@gofunc("ago", (ANY,), returns="string")
def ago(value: Any) -> str:
    # dateAgo accepts time.Time, int64 and int only (no int32).
    if isinstance(value, datetime) or type(value) is Int64 or _is_go_int(value):
        return duration_string(_round_seconds(_since(_as_time(value))))
    return "0s"


@gofunc("duration", (ANY,), returns="string")
def duration(sec: Any) -> str:
    seconds = 0
    if isinstance(sec, str):
        seconds = int(sec) if _is_base10_int64(sec) else 0
    elif type(sec) is Int64:
        seconds = int(sec)
    return duration_string(wrap_int64(seconds * _SECOND))


def _is_base10_int64(text: str) -> bool:
    """strconv.ParseInt(text, 10, 64) succeeds."""
    digits = text[1:] if text[:1] in "+-" else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return False
    return -(1 << 63) <= int(text) <= (1 << 63) - 1


def _duration_of(value: Any) -> int:
    """durationRound's type switch (Sprig v3.3.0): strings parse as durations,
    int64 and time.Duration are nanoseconds, a time.Time is the time since it;
    everything else (a Go int, float64, ...) is 0."""
    if isinstance(value, str):
        try:
            return parse_duration(value)
        except ValueError:
            return 0
    if type(value) is Int64 or type(value) is Duration:
        return int(value)
    if isinstance(value, datetime):
        return _since(_as_time(value))
    return 0


@gofunc("durationRound", (ANY,), returns="string")
def duration_round(value: Any) -> str:
    magnitude = abs(_duration_of(value))  # uint64(-d): MinInt64 becomes 1<<63
    for unit, suffix in (
        (_YEAR, "y"), (_MONTH, "mo"), (_DAY, "d"), (_HOUR, "h"), (_MINUTE, "m"), (_SECOND, "s"),
    ):  # fmt: skip
        if magnitude > unit:
            return f"{magnitude // unit}{suffix}"
    return "0s"


@gofunc("toDate", ("string", "string"), returns="time.Time")
def to_date(fmt: str, text: str) -> datetime:
    try:
        return go_parse(fmt, text, local_zone())
    except TimeParseError:
        return ZERO_TIME


@gofunc("mustToDate", ("string", "string"), returns="time.Time", fallible=True)
def must_to_date(fmt: str, text: str) -> datetime:
    try:
        return go_parse(fmt, text, local_zone())
    except TimeParseError as err:
        raise FuncError(str(err)) from None


@gofunc("unixEpoch", ("time.Time",), returns="string")
def unix_epoch(value: datetime) -> str:
    return str((value - _EPOCH) // timedelta(seconds=1))
