"""Methods of Go's time.Time that templates can call on a time value (`now.Unix`,
`(toDate "2006-01-02" "2024-01-02").Year`, `now.Add 5`).

Time values are Python datetimes (GoTime / MonotonicTime when they carry
nanoseconds or a monotonic reading); the executor looks a method up here when
a field of a datetime is asked for (runner.template.sites).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from datetime import UTC as UTC_ZONE
from datetime import datetime, timedelta

from runner.golang.gofunc import gomethod
from runner.golang.time import (
    LONG_DAYS,
    LONG_MONTHS,
    ZERO_TIME,
    GoTime,
    MonotonicTime,
    add_duration,
    go_format,
    in_zone,
)
from runner.golang.types import Duration, Int64

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_NS = 1_000_000_000


class GoMonth(int):
    """time.Month: prints its English name."""

    __slots__ = ()
    go_type = "time.Month"
    go_kind = "int"

    def String(self) -> str:  # noqa: N802 - Go's method name
        return LONG_MONTHS[self - 1] if 1 <= self <= 12 else f"%!Month({int(self)})"


class GoWeekday(int):
    """time.Weekday: prints its English name."""

    __slots__ = ()
    go_type = "time.Weekday"
    go_kind = "int"

    def String(self) -> str:  # noqa: N802
        return LONG_DAYS[self] if 0 <= self <= 6 else f"%!Weekday({int(self)})"


def _nanos(t: datetime) -> int:
    return t.microsecond * 1000 + getattr(t, "extra_ns", 0)


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC_ZONE)


def _since_zero(t: datetime) -> int:
    """Nanoseconds since Go's zero time (January 1, year 1, UTC)."""
    delta = _aware(t).astimezone(UTC_ZONE).replace(microsecond=0) - ZERO_TIME
    return (delta.days * 86400 + delta.seconds) * _NS + _nanos(t)


def _unix_ns(t: datetime) -> int:
    epoch = datetime(1970, 1, 1, tzinfo=UTC_ZONE)
    delta = _aware(t).astimezone(UTC_ZONE).replace(microsecond=0) - epoch
    return (delta.days * 86400 + delta.seconds) * _NS + _nanos(t)


def _plain_copy(t: datetime) -> datetime:
    """The time without its monotonic reading (Go's stripMono)."""
    extra = getattr(t, "extra_ns", 0)
    if isinstance(t, MonotonicTime) or extra:
        return GoTime.wrap(t, extra)
    return t


def _shift(t: datetime, nanos: int) -> datetime:
    return add_duration(_plain_copy(t), nanos)


@gomethod(returns="int")
def Year(t: datetime) -> int:  # noqa: N802 - Go's method names
    return t.year


@gomethod(returns="time.Month")
def Month(t: datetime) -> GoMonth:  # noqa: N802
    return GoMonth(t.month)


@gomethod(returns="int")
def Day(t: datetime) -> int:  # noqa: N802
    return t.day


@gomethod(returns="int")
def Hour(t: datetime) -> int:  # noqa: N802
    return t.hour


@gomethod(returns="int")
def Minute(t: datetime) -> int:  # noqa: N802
    return t.minute


@gomethod(returns="int")
def Second(t: datetime) -> int:  # noqa: N802
    return t.second


@gomethod(returns="int")
def Nanosecond(t: datetime) -> int:  # noqa: N802
    return _nanos(t)


@gomethod(returns="int")
def YearDay(t: datetime) -> int:  # noqa: N802
    return t.timetuple().tm_yday


@gomethod(returns="time.Weekday")
def Weekday(t: datetime) -> GoWeekday:  # noqa: N802
    return GoWeekday((t.weekday() + 1) % 7)


@gomethod(returns="int64")
def Unix(t: datetime) -> Int64:  # noqa: N802
    return Int64(_unix_ns(t) // _NS)


@gomethod(returns="int64")
def UnixMilli(t: datetime) -> Int64:  # noqa: N802
    return Int64(_unix_ns(t) // 1_000_000)


@gomethod(returns="int64")
def UnixMicro(t: datetime) -> Int64:  # noqa: N802
    return Int64(_unix_ns(t) // 1000)


@gomethod(returns="int64")
def UnixNano(t: datetime) -> Int64:  # noqa: N802
    return Int64(_unix_ns(t))


@gomethod(("string",), returns="string")
def Format(t: datetime, layout: str) -> str:  # noqa: N802
    return go_format(t, layout)


@gomethod(returns="string")
def String(t: datetime) -> str:  # noqa: N802
    method = getattr(t, "String", None)
    return method() if callable(method) else go_format(t, "2006-01-02 15:04:05.999999999 -0700 MST")


@gomethod(returns="time.Time")
def UTC(t: datetime) -> datetime:  # noqa: N802
    return in_zone(_plain_copy(t), UTC_ZONE)


@gomethod(returns="bool")
def IsZero(t: datetime) -> bool:  # noqa: N802
    return _since_zero(t) == 0


@gomethod(("time.Duration",), returns="time.Time")
def Add(t: datetime, d: int) -> datetime:  # noqa: N802
    return add_duration(t, int(d))


@gomethod(("time.Time",), returns="time.Duration")
def Sub(t: datetime, u: datetime) -> Duration:  # noqa: N802
    if isinstance(t, MonotonicTime) and isinstance(u, MonotonicTime):
        return Duration(_clamp(t.mono_ns - u.mono_ns))
    return Duration(_clamp(_since_zero(t) - _since_zero(u)))


def _clamp(ns: int) -> int:
    return max(-(1 << 63), min((1 << 63) - 1, ns))


@gomethod(("int", "int", "int"), returns="time.Time")
def AddDate(t: datetime, years: int, months: int, days: int) -> datetime:  # noqa: N802
    month0 = t.month - 1 + months
    year, month0 = t.year + years + month0 // 12, month0 % 12
    first = t.replace(year=year, month=month0 + 1, day=1)  # Go normalises day overflow
    moved = first + timedelta(days=t.day - 1 + days)
    return GoTime.wrap(moved, getattr(t, "extra_ns", 0))


@gomethod(("time.Time",), returns="bool")
def Before(t: datetime, u: datetime) -> bool:  # noqa: N802
    return _since_zero(t) < _since_zero(u)


@gomethod(("time.Time",), returns="bool")
def After(t: datetime, u: datetime) -> bool:  # noqa: N802
    return _since_zero(t) > _since_zero(u)


@gomethod(("time.Time",), returns="bool")
def Equal(t: datetime, u: datetime) -> bool:  # noqa: N802
    return _since_zero(t) == _since_zero(u)


@gomethod(("time.Duration",), returns="time.Time")
def Truncate(t: datetime, d: int) -> datetime:  # noqa: N802
    if d <= 0:
        return _plain_copy(t)
    return _shift(t, -(_since_zero(t) % int(d)))


@gomethod(("time.Duration",), returns="time.Time")
def Round(t: datetime, d: int) -> datetime:  # noqa: N802
    if d <= 0:
        return _plain_copy(t)
    rest = _since_zero(t) % int(d)
    return _shift(t, -rest if rest + rest < d else int(d) - rest)


TIME_METHODS: dict[str, Callable[..., Any]] = {
    "Year": Year, "Month": Month, "Day": Day, "Hour": Hour, "Minute": Minute,
    "Second": Second, "Nanosecond": Nanosecond, "YearDay": YearDay, "Weekday": Weekday,
    "Unix": Unix, "UnixMilli": UnixMilli, "UnixMicro": UnixMicro, "UnixNano": UnixNano,
    "Format": Format, "String": String, "UTC": UTC, "IsZero": IsZero, "Add": Add,
    "Sub": Sub, "AddDate": AddDate, "Before": Before, "After": After, "Equal": Equal,
    "Truncate": Truncate, "Round": Round,
}  # fmt: skip


def time_method(t: datetime, name: str) -> Any:
    """The bound method `name` of a time value, or None."""
    fn = TIME_METHODS.get(name)
    return None if fn is None else types.MethodType(fn, t)
