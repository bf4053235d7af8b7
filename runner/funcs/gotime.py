"""Go's time package pieces the date functions need: Format and Parse with
reference-time layouts (2006-01-02 15:04:05 -0700 MST), ParseDuration,
time.Local and LoadLocation. Ported from Go's time/format.go and
time/format_rfc3339-free core; Python datetimes carry microseconds, so
nanosecond digits past the sixth are zeros.
"""

from __future__ import annotations

import functools
import os
import time
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from runner.template.gotypes import zone_name

LONG_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
SHORT_DAYS = tuple(d[:3] for d in LONG_DAYS)
LONG_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
SHORT_MONTHS = tuple(m[:3] for m in LONG_MONTHS)

# Layout elements (Go's std* constants, by name).
_NUM_TZ = {"-070000", "-07:00:00", "-0700", "-07:00", "-07"}
_ISO_TZ = {"Z070000", "Z07:00:00", "Z0700", "Z07:00", "Z07"}
_ZERO_X = {"1": "01", "2": "02", "3": "03", "4": "04", "5": "05", "6": "06"}


def _lower_start(s: str) -> bool:
    return bool(s) and "a" <= s[0] <= "z"


def _is_digit(s: str, i: int) -> bool:
    return i < len(s) and "0" <= s[i] <= "9"


def _chunk_at(layout: str, i: int) -> tuple[str, int] | None:
    """The std element starting at layout[i] (name, end offset), if any."""
    c = layout[i]
    rest = layout[i:]
    if c == "J" and rest.startswith("Jan"):
        if rest.startswith("January"):
            return "January", i + 7
        if not _lower_start(layout[i + 3 :]):
            return "Jan", i + 3
    elif c == "M":
        if rest.startswith("Mon"):
            if rest.startswith("Monday"):
                return "Monday", i + 6
            if not _lower_start(layout[i + 3 :]):
                return "Mon", i + 3
        if rest.startswith("MST"):
            return "MST", i + 3
    elif c == "0":
        if len(rest) >= 2 and "1" <= rest[1] <= "6":
            return _ZERO_X[rest[1]], i + 2
        if rest.startswith("002"):
            return "002", i + 3
    elif c == "1":
        return ("15", i + 2) if rest.startswith("15") else ("1", i + 1)
    elif c == "2":
        return ("2006", i + 4) if rest.startswith("2006") else ("2", i + 1)
    elif c == "_":
        if rest.startswith("_2"):
            if rest.startswith("_2006"):
                return None  # a literal '_' followed by 2006
            return "_2", i + 2
        if rest.startswith("__2"):
            return "__2", i + 3
    elif c in "345":
        return c, i + 1
    elif c == "P" and rest.startswith("PM") or c == "p" and rest.startswith("pm"):
        return rest[:2], i + 2
    elif c in "-Z":
        for elem in ("070000", "07:00:00", "0700", "07:00", "07"):
            if rest[1:].startswith(elem):
                return c + elem, i + 1 + len(elem)
    elif c in ".," and len(rest) > 1 and rest[1] in "09":
        j = i + 1
        while j < len(layout) and layout[j] == rest[1]:
            j += 1
        if not _is_digit(layout, j):
            return layout[i:j], j
    return None


def next_chunk(layout: str) -> tuple[str, str, str]:
    """nextStdChunk: (literal prefix, std element or '', remaining layout)."""
    for i in range(len(layout)):
        found = _chunk_at(layout, i)
        if found is not None:
            return layout[:i], found[0], layout[found[1] :]
    return layout, "", ""


def _ceil_div_toward_zero(a: int, b: int) -> int:
    return -(-a // b) if a < 0 else a // b


def _format_zone(std: str, offset: int) -> str:
    if std[0] == "Z" and offset == 0:
        return "Z"
    zone = _ceil_div_toward_zero(offset, 60)
    sign = "-" if zone < 0 else "+"
    zone, absoffset = abs(zone), abs(offset)
    text = f"{sign}{zone // 60:02d}"
    body = std[1:]
    if ":" in body:
        text += ":"
    if body != "07":
        text += f"{zone % 60:02d}"
    if body in ("070000", "07:00:00"):
        if body == "07:00:00":
            text += ":"
        text += f"{absoffset % 60:02d}"
    return text


def _format_frac(std: str, nanos: int) -> str:
    digits = f"{nanos:09d}"[: min(len(std) - 1, 9)]
    if std[1] == "9":
        digits = digits.rstrip("0")
        if not digits:
            return ""
    return std[0] + digits


def _format_std(std: str, t: datetime) -> str:
    if std in _NUM_TZ or std in _ISO_TZ:
        return _format_zone(std, int((t.utcoffset() or timedelta(0)).total_seconds()))
    if std[0] in ".,":
        return _format_frac(std, _nanos(t))
    hour12 = t.hour % 12 or 12
    yday = t.timetuple().tm_yday
    simple = {
        "2006": f"{t.year:04d}", "06": f"{t.year % 100:02d}",
        "January": LONG_MONTHS[t.month - 1], "Jan": SHORT_MONTHS[t.month - 1],
        "1": str(t.month), "01": f"{t.month:02d}",
        "Monday": LONG_DAYS[(t.weekday() + 1) % 7], "Mon": SHORT_DAYS[(t.weekday() + 1) % 7],
        "2": str(t.day), "_2": f"{t.day:2d}", "02": f"{t.day:02d}",
        "__2": f"{yday:3d}", "002": f"{yday:03d}",
        "15": f"{t.hour:02d}", "3": str(hour12), "03": f"{hour12:02d}",
        "4": str(t.minute), "04": f"{t.minute:02d}",
        "5": str(t.second), "05": f"{t.second:02d}",
        "PM": "PM" if t.hour >= 12 else "AM", "pm": "pm" if t.hour >= 12 else "am",
        "MST": zone_name(t),
    }  # fmt: skip
    return simple[std]


def go_format(t: datetime, layout: str) -> str:
    """time.Time.Format(layout)."""
    out: list[str] = []
    while layout:
        prefix, std, layout = next_chunk(layout)
        out.append(prefix)
        if std:
            out.append(_format_std(std, t))
    return "".join(out)


# --------------------------------------------------------------------- zones


def _load_zone(name: str) -> tzinfo | None:
    from zoneinfo import ZoneInfo

    try:
        return ZoneInfo(name)
    except (ValueError, OSError, KeyError):
        return None


@functools.cache
def local_zone() -> tzinfo:
    """time.Local: $TZ ("" means UTC), else /etc/localtime, else UTC."""
    tz = os.environ.get("TZ")
    if tz is None:
        from zoneinfo import ZoneInfo

        try:
            with open("/etc/localtime", "rb") as handle:
                return ZoneInfo.from_file(handle, key="Local")
        except OSError:
            return UTC
    if tz in ("", "UTC"):
        return UTC
    return _load_zone(tz.removeprefix(":")) or UTC


def load_location(name: str) -> tzinfo | None:
    """time.LoadLocation: "" and "UTC" are UTC, "Local" is time.Local."""
    if name in ("", "UTC"):
        return UTC
    if name == "Local":
        return local_zone()
    return _load_zone(name)


def from_unix(seconds: int) -> datetime:
    """time.Unix(seconds, 0) in time.Local."""
    return datetime.fromtimestamp(seconds, UTC).astimezone(local_zone())


_PROCESS_START_NS = time.monotonic_ns()
_TIME_STRING_LAYOUT = "2006-01-02 15:04:05.999999999 -0700 MST"


class GoTime(datetime):
    """A time.Time with nanoseconds: datetime keeps microseconds, `extra_ns`
    the three digits below them, and String() is Go's Time.String()."""

    go_type = "time.Time"
    go_kind = "struct"
    extra_ns: int = 0

    @classmethod
    def wrap(cls, t: datetime, extra_ns: int = 0) -> GoTime:
        made = cls(
            t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond, t.tzinfo, fold=t.fold
        )
        made.extra_ns = extra_ns
        return made

    def String(self) -> str:  # noqa: N802 - Go's method name
        return go_format(self, _TIME_STRING_LAYOUT)


class MonotonicTime(GoTime):
    """A time.Time from time.Now(): it also carries a monotonic clock reading,
    which Time.String() prints as ` m=+0.012345678` (since process start)."""

    mono_ns: int = 0

    def String(self) -> str:  # noqa: N802 - Go's method name
        sign = "-" if self.mono_ns < 0 else "+"
        seconds, nanos = divmod(abs(self.mono_ns), 1_000_000_000)
        return f"{go_format(self, _TIME_STRING_LAYOUT)} m={sign}{seconds}.{nanos:09d}"


def _nanos(t: datetime) -> int:
    return t.microsecond * 1000 + getattr(t, "extra_ns", 0)


def now_in(zone: tzinfo) -> MonotonicTime:
    """time.Now() in a zone, with nanoseconds and its monotonic reading."""
    wall_ns = time.time_ns()
    mono_ns = time.monotonic_ns() - _PROCESS_START_NS
    seconds, nanos = divmod(wall_ns, 1_000_000_000)
    wall = datetime.fromtimestamp(seconds, zone).replace(microsecond=nanos // 1000)
    made = MonotonicTime.wrap(wall, nanos % 1000)
    made.mono_ns = mono_ns
    return made


def in_zone(t: datetime, zone: tzinfo) -> datetime:
    """t.In(zone), keeping the nanoseconds below the microsecond."""
    moved = t.astimezone(zone)
    extra = getattr(t, "extra_ns", 0)
    return GoTime.wrap(moved, extra) if extra else moved


def add_duration(t: datetime, nanos: int) -> datetime:
    """t.Add(d): absolute time arithmetic, nanoseconds, the location and a
    monotonic reading kept."""
    micros, extra = divmod(getattr(t, "extra_ns", 0) + nanos, 1000)
    moved = (t.astimezone(UTC) + timedelta(microseconds=micros)).astimezone(t.tzinfo)
    if isinstance(t, MonotonicTime):
        made = MonotonicTime.wrap(moved, extra)
        made.mono_ns = t.mono_ns + nanos
        return made
    return GoTime.wrap(moved, extra) if extra or isinstance(t, GoTime) else moved


ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)


# ----------------------------------------------------------------- durations

_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,  # U+00B5
    "μs": 1_000,  # U+03BC
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_MAX_NS = 1 << 63


def go_quote(s: str) -> str:
    """time's quote(): double quotes, with \\ and " escaped."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _leading_int(s: str) -> tuple[int, str]:
    i, value = 0, 0
    while i < len(s) and "0" <= s[i] <= "9":
        if value > _MAX_NS // 10:
            raise ValueError("time: bad [0-9]*")
        value = value * 10 + ord(s[i]) - 48
        if value > _MAX_NS:
            raise ValueError("time: bad [0-9]*")
        i += 1
    return value, s[i:]


def _leading_fraction(s: str) -> tuple[int, float, str]:
    i, value, scale, overflow = 0, 0, 1.0, False
    while i < len(s) and "0" <= s[i] <= "9":
        if not overflow:
            if value > (_MAX_NS - 1) // 10:
                overflow = True
            else:
                value = value * 10 + ord(s[i]) - 48
                scale *= 10
        i += 1
    return value, scale, s[i:]


def parse_duration(text: str) -> int:
    """time.ParseDuration: nanoseconds, or ValueError with Go's message."""
    invalid = ValueError("time: invalid duration " + go_quote(text))
    s, neg = text, False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if s == "":
        raise invalid
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            raise invalid
        before = len(s)
        try:
            value, s = _leading_int(s)
        except ValueError:
            raise invalid from None
        pre = before != len(s)
        fraction, scale, post = 0, 1.0, False
        if s and s[0] == ".":
            s = s[1:]
            before = len(s)
            fraction, scale, s = _leading_fraction(s)
            post = before != len(s)
        if not pre and not post:
            raise invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            raise ValueError("time: missing unit in duration " + go_quote(text))
        unit_name, s = s[:i], s[i:]
        unit = _UNITS.get(unit_name)
        if unit is None:
            raise ValueError(f"time: unknown unit {go_quote(unit_name)} in duration {go_quote(text)}")
        if value > _MAX_NS // unit:
            raise invalid
        value *= unit
        if fraction > 0:
            value += int(float(fraction) * (float(unit) / scale))
            if value > _MAX_NS:
                raise invalid
        total += value
        if total > _MAX_NS:
            raise invalid
    if neg:
        return -total
    if total > _MAX_NS - 1:
        raise invalid
    return total


# -------------------------------------------------------------------- parsing


class TimeParseError(ValueError):
    """time.ParseError; str() is Go's message."""


class _Bad(Exception):
    """errBad: the value does not match the layout element."""


def _parse_error(layout: str, value: str, elem: str, value_elem: str, message: str) -> TimeParseError:
    if message:
        return TimeParseError(f"parsing time {go_quote(value)}{message}")
    return TimeParseError(
        f"parsing time {go_quote(value)} as {go_quote(layout)}: "
        f"cannot parse {go_quote(value_elem)} as {go_quote(elem)}"
    )


def _skip(value: str, prefix: str) -> str:
    while prefix:
        if prefix[0] == " ":
            if value and value[0] != " ":
                raise _Bad
            prefix, value = prefix.lstrip(" "), value.lstrip(" ")
            continue
        if not value or value[0] != prefix[0]:
            raise _Bad
        prefix, value = prefix[1:], value[1:]
    return value


def _getnum(s: str, fixed: bool, width: int = 2) -> tuple[int, str]:
    """getnum / getnum3: one to `width` digits (exactly `width` when fixed)."""
    n = 0
    while n < width and _is_digit(s, n):
        n += 1
    if n == 0 or fixed and n < width:
        raise _Bad
    return int(s[:n]), s[n:]


def _lookup(table: tuple[str, ...], value: str) -> tuple[int, str]:
    for index, name in enumerate(table):
        if len(value) >= len(name) and value[: len(name)].lower() == name.lower():
            return index, value[len(name) :]
    raise _Bad


def _nanoseconds(value: str, nbytes: int) -> int:
    if value[0] not in ".,":
        raise _Bad
    if nbytes > 10:
        value, nbytes = value[:10], 10
    digits = value[1:nbytes]
    if not digits.isdigit() or not digits.isascii():
        raise _Bad
    return int(digits) * 10 ** (10 - nbytes)


def _signed_offset_len(value: str) -> int:
    if not value or value[0] not in "+-":
        return 0
    digits = len(value[1:]) - len(value[1:].lstrip("0123456789"))
    if digits == 0 or int(value[1 : 1 + digits]) > 24:
        return 0
    return 1 + digits


def _time_zone_len(value: str) -> int:
    """parseTimeZone: length of a zone abbreviation at the start of value, 0 if none."""
    if len(value) < 3:
        return 0
    if value[:4] in ("ChST", "MeST"):
        return 4
    if value[:3] == "GMT":
        return 3 + _signed_offset_len(value[3:])
    if value[0] in "+-":
        return _signed_offset_len(value)
    upper = 0
    while upper < min(6, len(value)) and "A" <= value[upper] <= "Z":
        upper += 1
    if upper == 3:
        return 3
    if upper == 4 and (value[3] == "T" or value[:4] == "WITA"):
        return 4
    if upper == 5 and value[4] == "T":
        return 5
    return 0


class _Fields:
    """The values parse collects before building the time."""

    def __init__(self) -> None:
        self.year, self.month, self.day, self.yday = 0, -1, -1, -1
        self.hour = self.minute = self.second = self.nsec = 0
        self.am = self.pm = False
        self.utc = False
        self.offset: int | None = None
        self.zone_name = ""


def _parse_zone_offset(std: str, value: str, f: _Fields) -> tuple[str, str]:
    body = std[1:]
    sizes = {"07:00": 6, "07": 3, "07:00:00": 9, "070000": 7, "0700": 5}
    size = sizes[body]
    if len(value) < size:
        raise _Bad
    if body == "07:00" and value[3] != ":" or body == "07:00:00" and (value[3] != ":" or value[6] != ":"):
        raise _Bad
    digits = value[1:size].replace(":", "")
    hh, mm, ss = digits[0:2], digits[2:4] or "00", digits[4:6] or "00"
    hours, _ = _getnum(hh, True)
    minutes, _ = _getnum(mm, True)
    seconds, _ = _getnum(ss, True)
    range_error = ""
    if hours > 24:
        range_error = "time zone offset hour"
    if minutes > 60:
        range_error = "time zone offset minute"
    if seconds > 60:
        range_error = "time zone offset second"
    offset = (hours * 60 + minutes) * 60 + seconds
    if value[0] == "-":
        offset = -offset
    elif value[0] != "+":
        raise _Bad
    f.offset = offset
    return value[size:], range_error


def _parse_std(std: str, value: str, layout_rest: str, f: _Fields) -> tuple[str, str]:
    """Consume one element; returns (remaining value, range error name or '')."""
    if std == "06":
        if len(value) < 2:
            raise _Bad
        year, _ = _getnum(value[:2], True)
        f.year = year + (1900 if year >= 69 else 2000)
        return value[2:], ""
    if std == "2006":
        if len(value) < 4 or not _is_digit(value, 0) or not value[:4].isdigit():
            raise _Bad
        f.year = int(value[:4])
        return value[4:], ""
    if std in ("Jan", "January"):
        index, value = _lookup(SHORT_MONTHS if std == "Jan" else LONG_MONTHS, value)
        f.month = index + 1
        return value, ""
    if std in ("1", "01"):
        f.month, value = _getnum(value, std == "01")
        return value, "month" if not 0 < f.month <= 12 else ""
    if std in ("Mon", "Monday"):
        _, value = _lookup(SHORT_DAYS if std == "Mon" else LONG_DAYS, value)
        return value, ""
    if std in ("2", "_2", "02"):
        if std == "_2" and value[:1] == " ":
            value = value[1:]
        f.day, value = _getnum(value, std == "02")
        return value, ""
    if std in ("__2", "002"):
        for _ in range(2):
            if std == "__2" and value[:1] == " ":
                value = value[1:]
        f.yday, value = _getnum(value, std == "002", 3)
        return value, ""
    if std == "15":
        f.hour, value = _getnum(value, False)
        return value, "hour" if f.hour >= 24 else ""
    if std in ("3", "03"):
        f.hour, value = _getnum(value, std == "03")
        return value, "hour" if f.hour > 12 else ""
    if std in ("4", "04"):
        f.minute, value = _getnum(value, std == "04")
        return value, "minute" if f.minute >= 60 else ""
    if std in ("5", "05"):
        return _parse_seconds(std, value, layout_rest, f)
    if std in ("PM", "pm"):
        marker = value[:2]
        if marker == std:
            f.pm = True
        elif marker == ("AM" if std == "PM" else "am"):
            f.am = True
        else:
            raise _Bad
        return value[2:], ""
    if std in _ISO_TZ and value[:1] == "Z":
        f.utc = True
        return value[1:], ""
    if std in _ISO_TZ or std in _NUM_TZ:
        return _parse_zone_offset(std, value, f)
    if std == "MST":
        if value[:3] == "UTC":
            f.utc = True
            return value[3:], ""
        size = _time_zone_len(value)
        if size == 0:
            raise _Bad
        f.zone_name = value[:size]
        return value[size:], ""
    return _parse_fraction(std, value, f)


def _parse_seconds(std: str, value: str, layout_rest: str, f: _Fields) -> tuple[str, str]:
    f.second, value = _getnum(value, std == "05")
    if f.second >= 60:
        return value, "second"
    if len(value) >= 2 and value[0] in ".," and _is_digit(value, 1):
        _, following, _ = next_chunk(layout_rest)
        if following and following[0] in ".,":
            return value, ""  # the layout parses the fraction itself
        n = 2
        while _is_digit(value, n):
            n += 1
        f.nsec = _nanoseconds(value, n)
        value = value[n:]
    return value, ""


def _parse_fraction(std: str, value: str, f: _Fields) -> tuple[str, str]:
    if std[1] == "0":
        ndigit = len(std)
        if len(value) < ndigit:
            raise _Bad
        f.nsec = _nanoseconds(value, ndigit)
        return value[ndigit:], ""
    if len(value) < 2 or value[0] not in ".," or not _is_digit(value, 1):
        return value, ""  # fractional second omitted
    i = 0
    while _is_digit(value, i + 1):
        i += 1
    f.nsec = _nanoseconds(value, 1 + i)
    return value[1 + i :], ""


def _days_in(month: int, year: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


_DAYS_BEFORE = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365)


def _resolve_yday(f: _Fields) -> str:
    """Turn a day-of-year into month and day; returns an error message or ''."""
    yday, month, day = f.yday, 0, 0
    if _days_in(2, f.year) == 29:
        if yday == 31 + 29:
            month, day = 2, 29
        elif yday > 31 + 29:
            yday -= 1
    if yday < 1 or yday > 365:
        return ": day-of-year out of range"
    if month == 0:
        month = (yday - 1) // 31 + 1
        if _DAYS_BEFORE[month] < yday:
            month += 1
        day = yday - _DAYS_BEFORE[month - 1]
    if f.month >= 0 and f.month != month:
        return ": day-of-year does not match month"
    if f.day >= 0 and f.day != day:
        return ": day-of-year does not match day"
    f.month, f.day = month, day
    return ""


def _build(f: _Fields, local: tzinfo) -> datetime:
    built = _build_micro(f, local)
    return GoTime.wrap(built, f.nsec % 1000) if f.nsec % 1000 else built


def _build_micro(f: _Fields, local: tzinfo) -> datetime:
    micro = f.nsec // 1000
    if f.utc:
        return datetime(f.year, f.month, f.day, f.hour, f.minute, f.second, micro, UTC)
    if f.offset is not None:
        utc = datetime(f.year, f.month, f.day, f.hour, f.minute, f.second, micro, UTC)
        utc -= timedelta(seconds=f.offset)
        in_local = utc.astimezone(local)
        local_offset = int((in_local.utcoffset() or timedelta(0)).total_seconds())
        if local_offset == f.offset and (not f.zone_name or in_local.tzname() == f.zone_name):
            return in_local
        return utc.astimezone(timezone(timedelta(seconds=f.offset), f.zone_name))
    if f.zone_name:
        naive = datetime(f.year, f.month, f.day, f.hour, f.minute, f.second, micro)
        in_local = naive.replace(tzinfo=local)
        if in_local.tzname() == f.zone_name:
            return in_local
        offset = 0
        if len(f.zone_name) > 3 and f.zone_name.startswith("GMT"):
            offset = int(f.zone_name[3:]) * 3600
        # Go keeps the instant read as UTC and only relabels it with the fake zone.
        fake = timezone(timedelta(seconds=offset), f.zone_name)
        return naive.replace(tzinfo=UTC).astimezone(fake)
    return datetime(f.year, f.month, f.day, f.hour, f.minute, f.second, micro, local)


def go_parse(layout: str, value: str, local: tzinfo) -> datetime:
    """time.ParseInLocation(layout, value, local); raises TimeParseError."""
    original_layout, original_value = layout, value
    f = _Fields()
    while True:
        prefix, std, rest = next_chunk(layout)
        try:
            value = _skip(value, prefix)
        except _Bad:
            raise _parse_error(original_layout, original_value, prefix, value, "") from None
        if not std:
            if value:
                message = ": extra text: " + go_quote(value)
                raise _parse_error(original_layout, original_value, "", value, message)
            break
        layout, hold = rest, value
        try:
            value, range_error = _parse_std(std, value, rest, f)
        except _Bad:
            raise _parse_error(original_layout, original_value, std, hold, "") from None
        if range_error:
            message = f": {range_error} out of range"
            raise _parse_error(original_layout, original_value, std, value, message)
    if f.pm and f.hour < 12:
        f.hour += 12
    elif f.am and f.hour == 12:
        f.hour = 0
    if f.yday >= 0:
        message = _resolve_yday(f)
        if message:
            raise _parse_error(original_layout, original_value, "", value, message)
    else:
        f.month = 1 if f.month < 0 else f.month
        f.day = 1 if f.day < 0 else f.day
    if f.day < 1 or f.day > _days_in(f.month, f.year):
        raise _parse_error(original_layout, original_value, "", value, ": day out of range")
    if f.year < 1:
        raise _parse_error(original_layout, original_value, "", value, ": year out of range")
    return _build(f, local)
