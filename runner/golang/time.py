"""Go's time package: Format with reference-time layouts (2006-01-02
15:04:05 -0700 MST), Duration.String, Time.String, ParseDuration, time.Local
and LoadLocation, ported from time/format.go and time.go (GoTime keeps the
nanoseconds a datetime cannot). Parsing is in runner.golang.timeparse, the
methods templates call on a time.Time in runner.golang.timemethods.

Importing this module imports `datetime` (~1 ms): code that may run on a
render that makes no time value imports it inside the function that needs it.
"""

from __future__ import annotations

import functools
import os
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo

LONG_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
SHORT_DAYS = tuple(d[:3] for d in LONG_DAYS)
LONG_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
SHORT_MONTHS = tuple(m[:3] for m in LONG_MONTHS)

# Layout elements (Go's std* constants, by name).
NUM_TZ = {"-070000", "-07:00:00", "-0700", "-07:00", "-07"}
ISO_TZ = {"Z070000", "Z07:00:00", "Z0700", "Z07:00", "Z07"}
_ZERO_X = {"1": "01", "2": "02", "3": "03", "4": "04", "5": "05", "6": "06"}


# ------------------------------------------------ Duration.String, Time.String


def _frac_text(value: int, prec: int) -> tuple[str, int]:
    """time's fmtFrac: '.ddd' without trailing zeros (or ''), and value // 10**prec."""
    whole, frac = divmod(value, 10**prec)
    if frac == 0:
        return "", whole
    return "." + f"{frac:0{prec}d}".rstrip("0"), whole


def duration_string(d: int) -> str:
    """time.Duration.String(): 1h2m3.5s, 1.5ms, 12µs, 0s."""
    neg = d < 0
    u = -d if neg else d
    if u < 1_000_000_000:
        if u == 0:
            return "0s"
        if u < 1_000:
            text = f"{u}ns"
        elif u < 1_000_000:
            frac, whole = _frac_text(u, 3)
            text = f"{whole}{frac}µs"
        else:
            frac, whole = _frac_text(u, 6)
            text = f"{whole}{frac}ms"
    else:
        frac, secs = _frac_text(u, 9)
        text = f"{secs % 60}{frac}s"
        mins = secs // 60
        if mins > 0:
            text = f"{mins % 60}m{text}"
            if mins // 60 > 0:
                text = f"{mins // 60}h{text}"
    return "-" + text if neg else text


_PY_FIXED_ZONE = r"^UTC[+-]\d\d:\d\d(:\d\d)?$"  # compiled (and cached by re) on first use


def zone_name(t: datetime) -> str:
    """The zone abbreviation Go prints for MST; numeric (+0200) for unnamed zones."""
    name = t.tzname() or ""
    if name and not re.match(_PY_FIXED_ZONE, name):
        return name
    return zone_offset(t, "")


def zone_offset(t: datetime, sep: str = "") -> str:
    """-0700 (or -07:00 with sep=':') for t's UTC offset."""
    offset = t.utcoffset()
    minutes = int(offset.total_seconds()) // 60 if offset else 0
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}{sep}{mins:02d}"


def time_string(t: datetime) -> str:
    """time.Time.String(): 2006-01-02 15:04:05.999999999 -0700 MST."""
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    frac = f".{t.microsecond:06d}".rstrip("0").rstrip(".") if t.microsecond else ""
    return (
        f"{t.year:04d}-{t.month:02d}-{t.day:02d} "
        f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}{frac} "
        f"{zone_offset(t)} {zone_name(t)}"
    )



def _lower_start(s: str) -> bool:
    return bool(s) and "a" <= s[0] <= "z"


def is_digit(s: str, i: int) -> bool:
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
        if not is_digit(layout, j):
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


def _hour12(t: datetime) -> int:
    return t.hour % 12 or 12


def _yday(t: datetime) -> int:
    return t.timetuple().tm_yday


def _weekday(t: datetime) -> int:
    return (t.weekday() + 1) % 7  # Go counts from Sunday


_ELEMENTS: dict[str, Callable[[datetime], str]] = {
    "2006": lambda t: f"{t.year:04d}", "06": lambda t: f"{t.year % 100:02d}",
    "January": lambda t: LONG_MONTHS[t.month - 1], "Jan": lambda t: SHORT_MONTHS[t.month - 1],
    "1": lambda t: str(t.month), "01": lambda t: f"{t.month:02d}",
    "Monday": lambda t: LONG_DAYS[_weekday(t)], "Mon": lambda t: SHORT_DAYS[_weekday(t)],
    "2": lambda t: str(t.day), "_2": lambda t: f"{t.day:2d}", "02": lambda t: f"{t.day:02d}",
    "__2": lambda t: f"{_yday(t):3d}", "002": lambda t: f"{_yday(t):03d}",
    "15": lambda t: f"{t.hour:02d}", "3": lambda t: str(_hour12(t)), "03": lambda t: f"{_hour12(t):02d}",
    "4": lambda t: str(t.minute), "04": lambda t: f"{t.minute:02d}",
    "5": lambda t: str(t.second), "05": lambda t: f"{t.second:02d}",
    "PM": lambda t: "PM" if t.hour >= 12 else "AM", "pm": lambda t: "pm" if t.hour >= 12 else "am",
    "MST": zone_name,
}  # fmt: skip


def _format_std(std: str, t: datetime) -> str:
    element = _ELEMENTS.get(std)
    if element is not None:
        return element(t)
    if std[0] in ".,":
        return _format_frac(std, _nanos(t))
    return _format_zone(std, int((t.utcoffset() or timedelta(0)).total_seconds()))


@functools.lru_cache(maxsize=256)
def _layout_chunks(layout: str) -> tuple[tuple[str, str], ...]:
    """A layout split once into (literal, element) pairs; layouts repeat a lot."""
    chunks = []
    while layout:
        prefix, std, layout = next_chunk(layout)
        chunks.append((prefix, std))
    return tuple(chunks)


def go_format(t: datetime, layout: str) -> str:
    """time.Time.Format(layout)."""
    out: list[str] = []
    for prefix, std in _layout_chunks(layout):
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


def go_date(naive: datetime, zone: tzinfo) -> datetime:
    """time.Date(..., zone): the wall time read with the offset in effect, the
    way Go resolves it (a time in a DST gap moves back, e.g. 02:30 -> 01:30 EST)."""
    as_utc = naive.replace(tzinfo=UTC)
    first = as_utc.astimezone(zone).utcoffset() or timedelta(0)
    instant = as_utc - first
    second = instant.astimezone(zone).utcoffset() or timedelta(0)
    if second != first:  # the guess crossed a transition: use the offset found there
        instant = as_utc - second
    return instant.astimezone(zone)


def from_unix(seconds: int) -> datetime:
    """time.Unix(seconds, 0): the instant (kept in UTC here; callers format it
    in the zone they need, so instants near year 9999 stay representable)."""
    return datetime.fromtimestamp(seconds, UTC)


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


def quote(s: str) -> str:
    """time's own quote() (not strconv.Quote): `\\` and `"` escaped, and every
    byte of a rune below ' ' or beyond ASCII (an invalid byte too) as \\xNN."""
    out = ['"']
    for ch in s:
        if ch < " " or ch >= "\x80":
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogateescape"))
        else:
            if ch in '"\\':
                out.append("\\")
            out.append(ch)
    out.append('"')
    return "".join(out)


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
    invalid = ValueError("time: invalid duration " + quote(text))
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
            raise ValueError("time: missing unit in duration " + quote(text))
        unit_name, s = s[:i], s[i:]
        unit = _UNITS.get(unit_name)
        if unit is None:
            raise ValueError(f"time: unknown unit {quote(unit_name)} in duration {quote(text)}")
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
