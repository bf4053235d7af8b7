"""Go's time.Parse / ParseInLocation with reference-time layouts, ported
from time/format.go: the same elements, range checks, zone-name handling
(an unknown abbreviation gets a fake zone) and ParseError texts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from runner.golang.time import (
    ISO_TZ,
    LONG_DAYS,
    LONG_MONTHS,
    NUM_TZ,
    SHORT_DAYS,
    SHORT_MONTHS,
    GoTime,
    go_date,
    is_digit,
    next_chunk,
    quote,
)


class TimeParseError(ValueError):
    """time.ParseError; str() is Go's message."""


class _Bad(Exception):
    """errBad: the value does not match the layout element."""


def _parse_error(layout: str, value: str, elem: str, value_elem: str, message: str) -> TimeParseError:
    if message:
        return TimeParseError(f"parsing time {quote(value)}{message}")
    return TimeParseError(
        f"parsing time {quote(value)} as {quote(layout)}: "
        f"cannot parse {quote(value_elem)} as {quote(elem)}"
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
    while n < width and is_digit(s, n):
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


def _parse_year2(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    if len(value) < 2:
        raise _Bad
    year, _ = _getnum(value[:2], True)
    f.year = year + (1900 if year >= 69 else 2000)  # 69..99 -> 19xx
    return value[2:], ""


def _parse_year4(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    if len(value) < 4 or not all(is_digit(value, i) for i in range(4)):
        raise _Bad
    f.year = int(value[:4])
    return value[4:], ""


def _parse_month_name(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    index, value = _lookup(SHORT_MONTHS if std == "Jan" else LONG_MONTHS, value)
    f.month = index + 1
    return value, ""


def _parse_month(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    f.month, value = _getnum(value, std == "01")
    return value, "month" if not 0 < f.month <= 12 else ""


def _parse_weekday(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    _, value = _lookup(SHORT_DAYS if std == "Mon" else LONG_DAYS, value)  # checked, then ignored
    return value, ""


def _parse_day(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    if std == "_2" and value[:1] == " ":
        value = value[1:]
    f.day, value = _getnum(value, std == "02")
    return value, ""  # validated against the month once everything is parsed


def _parse_year_day(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    for _ in range(2):
        if std == "__2" and value[:1] == " ":
            value = value[1:]
    f.yday, value = _getnum(value, std == "002", 3)
    return value, ""


def _parse_hour(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    f.hour, value = _getnum(value, std == "03")
    limit_ok = f.hour < 24 if std == "15" else f.hour <= 12
    return value, "" if limit_ok else "hour"


def _parse_minute(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    f.minute, value = _getnum(value, std == "04")
    return value, "minute" if f.minute >= 60 else ""


def _parse_pm(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    marker = value[:2]
    if marker == std:
        f.pm = True
    elif marker == ("AM" if std == "PM" else "am"):
        f.am = True
    else:
        raise _Bad
    return value[2:], ""


def _parse_zone(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    if std[0] == "Z" and value[:1] == "Z":
        f.utc = True
        return value[1:], ""
    return _parse_zone_offset(std, value, f)


def _parse_zone_name(std: str, value: str, rest: str, f: _Fields) -> tuple[str, str]:
    if value[:3] == "UTC":
        f.utc = True
        return value[3:], ""
    size = _time_zone_len(value)
    if size == 0:
        raise _Bad
    f.zone_name = value[:size]
    return value[size:], ""


_PARSERS: dict[str, Callable[[str, str, str, _Fields], tuple[str, str]]] = {
    "06": _parse_year2, "2006": _parse_year4,
    "Jan": _parse_month_name, "January": _parse_month_name, "1": _parse_month, "01": _parse_month,
    "Mon": _parse_weekday, "Monday": _parse_weekday,
    "2": _parse_day, "_2": _parse_day, "02": _parse_day, "__2": _parse_year_day, "002": _parse_year_day,
    "15": _parse_hour, "3": _parse_hour, "03": _parse_hour, "4": _parse_minute, "04": _parse_minute,
    "PM": _parse_pm, "pm": _parse_pm, "MST": _parse_zone_name,
    **{zone: _parse_zone for zone in (*NUM_TZ, *ISO_TZ)},
}  # fmt: skip


def _parse_std(std: str, value: str, layout_rest: str, f: _Fields) -> tuple[str, str]:
    """Consume one element; returns (remaining value, range error name or '')."""
    if std in ("5", "05"):
        return _parse_seconds(std, value, layout_rest, f)
    parser = _PARSERS.get(std)
    if parser is None:
        return _parse_fraction(std, value, f)
    return parser(std, value, layout_rest, f)


def _parse_seconds(std: str, value: str, layout_rest: str, f: _Fields) -> tuple[str, str]:
    f.second, value = _getnum(value, std == "05")
    if f.second >= 60:
        return value, "second"
    if len(value) >= 2 and value[0] in ".," and is_digit(value, 1):
        _, following, _ = next_chunk(layout_rest)
        if following and following[0] in ".,":
            return value, ""  # the layout parses the fraction itself
        n = 2
        while is_digit(value, n):
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
    if len(value) < 2 or value[0] not in ".," or not is_digit(value, 1):
        return value, ""  # fractional second omitted
    i = 0
    while is_digit(value, i + 1):
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
        local_offset = _local_zone_offset(local, f.zone_name, naive)
        if local_offset is not None:
            # Location.lookupName found the abbreviation: wall time minus its offset, shown in Local.
            return (naive.replace(tzinfo=UTC) - timedelta(seconds=local_offset)).astimezone(local)
        offset = 0
        if len(f.zone_name) > 3 and f.zone_name.startswith("GMT"):
            offset = int(f.zone_name[3:]) * 3600
        # Go keeps the instant read as UTC and only relabels it with the fake zone.
        fake = timezone(timedelta(seconds=offset), f.zone_name)
        return naive.replace(tzinfo=UTC).astimezone(fake)
    return go_date(datetime(f.year, f.month, f.day, f.hour, f.minute, f.second, micro), local)


def _local_zone_offset(local: tzinfo, name: str, naive: datetime) -> int | None:
    """The offset of a zone called `name` in Local (Location.lookupName), probing
    the parsed wall time and mid-winter/mid-summer of its year."""
    for probe in (naive, naive.replace(month=1, day=15), naive.replace(month=7, day=15)):
        aware = probe.replace(tzinfo=local)
        if aware.tzname() == name:
            return int((aware.utcoffset() or timedelta(0)).total_seconds())
    return None


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
                message = ": extra text: " + quote(value)
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
