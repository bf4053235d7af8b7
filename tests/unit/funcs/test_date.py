"""Sprig's date functions on Go's time semantics. Expectations come from
Sprig v3's date_test.go (TestDateInZone, TestDuration, TestDurationRound,
TestDateModify), Go's time package documentation and format_test.go
(reference layouts, ParseDuration/Duration.String examples), cited per test.
Time-dependent functions (now, ago, date without a time) are checked by
property."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest

from runner.funcs import date as d
from runner.funcs.registry import registered
from runner.golang import time as gotime
from runner.golang import timeparse as gotime_parse
from runner.golang.gofunc import FuncError
from runner.golang.time import time_string
from runner.golang.types import Duration, Int64

SPRIG_UNIX = 1560458379  # Sprig's TestDateInZone: 13 Jun 19 20:39:39 UTC


@pytest.fixture(autouse=True)
def utc_local(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run with time.Local = UTC (TZ=UTC), as Sprig's CI does."""
    monkeypatch.setenv("TZ", "UTC")
    gotime.local_zone.cache_clear()
    yield
    gotime.local_zone.cache_clear()


def test_every_date_function_is_registered() -> None:
    names = ["now", "date", "dateInZone", "date_in_zone", "dateModify", "date_modify", "mustDateModify", "must_date_modify", "ago", "duration", "durationRound", "toDate", "mustToDate", "unixEpoch", "htmlDate", "htmlDateInZone"]
    funcs = registered()
    assert all(name in funcs for name in names)
    assert funcs["dateModify"].params == ("string", "time.Time")
    assert funcs["mustToDate"].fallible and not funcs["toDate"].fallible


def test_date_in_zone_accepts_time_and_unix_seconds() -> None:
    # TestDateInZone: time.Time, int64, int all print "13 Jun 19 20:39 +0000".
    layout = "02 Jan 06 15:04 -0700"
    moment = datetime.fromtimestamp(SPRIG_UNIX, UTC)
    for value in (moment, Int64(SPRIG_UNIX), SPRIG_UNIX):
        assert d.date_in_zone(layout, value, "UTC") == "13 Jun 19 20:39 +0000"


def test_unknown_zone_falls_back_to_utc() -> None:
    # TestDateInZone "invalid timezone" case.
    moment = datetime.fromtimestamp(SPRIG_UNIX, UTC)
    assert d.date_in_zone("02 Jan 06 15:04 -0700", moment, "foobar") == "13 Jun 19 20:39 +0000"
    assert registered()["date_in_zone"].impl is d.date_in_zone


def test_named_zones_use_the_tz_database() -> None:
    moment = datetime(2024, 7, 1, 12, 0, tzinfo=UTC)
    assert d.date_in_zone("15:04 MST -07:00", moment, "America/New_York") == "08:00 EDT -04:00"
    assert d.html_date_in_zone(moment, "Asia/Tokyo") == "2024-07-01"


def test_date_of_an_unsupported_value_is_now() -> None:
    # formatDate's default branch uses time.Now().
    before = datetime.now(UTC).strftime("%Y-%m-%d")
    formatted = d.date("2006-01-02", "not a date")
    assert formatted in {before, datetime.now(UTC).strftime("%Y-%m-%d")}
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", d.html_date(3.5))


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        # Go's reference layouts (time package constants) at 2009-02-05 05:00:57.0123456 UTC.
        ("Mon Jan _2 15:04:05 2006", "Thu Feb  5 05:00:57 2009"),  # ANSIC
        ("Mon Jan _2 15:04:05 MST 2006", "Thu Feb  5 05:00:57 UTC 2009"),  # UnixDate
        ("02 Jan 06 15:04 MST", "05 Feb 09 05:00 UTC"),  # RFC822
        ("Monday, 02-Jan-06 15:04:05 MST", "Thursday, 05-Feb-09 05:00:57 UTC"),  # RFC850
        ("2006-01-02T15:04:05Z07:00", "2009-02-05T05:00:57Z"),  # RFC3339
        ("2006-01-02T15:04:05.999999999Z07:00", "2009-02-05T05:00:57.012345Z"),  # RFC3339Nano
        ("3:04PM", "5:00AM"),  # Kitchen
        ("Jan _2 15:04:05.000", "Feb  5 05:00:57.012"),  # StampMilli
        ("Jan _2 15:04:05.000000", "Feb  5 05:00:57.012345"),  # StampMicro
        ("2006-01-02 15:04:05", "2009-02-05 05:00:57"),  # DateTime
        ("January 2, 2006 pm", "February 5, 2009 am"),
        ("__2 002", " 36 036"),  # day of year
        (".999 ,000 .9", ".012 ,012 "),  # trailing zeros trimmed for 9s; nothing if all zero
        ("06 1 2 3 4 5", "09 2 5 5 0 57"),
    ],
)
def test_go_layouts(layout: str, expected: str) -> None:
    moment = datetime(2009, 2, 5, 5, 0, 57, 12345, tzinfo=UTC)
    assert d.date_in_zone(layout, moment, "UTC") == expected


def test_numeric_zone_layouts_with_offsets() -> None:
    moment = datetime(2020, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=-7, minutes=-30)))
    for layout, expected in [
        ("-0700", "-0730"),
        ("-07:00", "-07:30"),
        ("-07", "-07"),
        ("Z07:00", "-07:30"),
        ("-07:00:00", "-07:30:00"),
    ]:
        assert gotime.go_format(moment, layout) == expected


def test_htmldate_and_unix_epoch() -> None:
    moment = datetime.fromtimestamp(SPRIG_UNIX, UTC)
    assert d.html_date(moment) == "2019-06-13"
    assert d.unix_epoch(moment) == str(SPRIG_UNIX)


@pytest.mark.parametrize(
    ("seconds", "expected"), [("61", "1m1s"), ("3600", "1h0m0s"), ("93784", "26h3m4s")]
)
def test_duration_from_string_seconds(seconds: str, expected: str) -> None:
    # TestDuration
    assert d.duration(seconds) == expected


def test_duration_only_reads_strings_and_int64() -> None:
    # sprig duration(): the type switch has string and int64 cases only.
    assert d.duration(Int64(90)) == "1m30s"
    assert d.duration(90) == "0s"  # a Go int falls to the default branch
    assert d.duration("abc") == "0s"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2h5s", "2h"),  # TestDurationRound
        ("24h5s", "1d"),
        ("2400h5s", "3mo"),
        ("", "0s"),
        # Sprig v3.3.0 durationRound: int64 is a time.Duration (nanoseconds) ...
        (Int64(95_000_000_000), "1m"),
        (Duration(2_500_000_000), "2s"),
        # ... and the switch has no int or float64 case: those are 0.
        (400 * 86400, "0s"),
        (1.5e9, "0s"),
        (None, "0s"),
        ("-3h1m", "3h"),  # negative durations use their absolute value (uint64(-d))
        ("720h", "30d"),  # the comparisons are strict: 30 days is not > a month
        ("721h", "1mo"),
    ],
)
def test_duration_round(value: object, expected: str) -> None:
    assert d.duration_round(value) == expected


def test_date_modify() -> None:
    # TestDateModify: date_modify "24h" on 13 Jun 19 20:39:39 GMT.
    moment = gotime_parse.go_parse("02 Jan 06 15:04:05 MST", "13 Jun 19 20:39:39 GMT", UTC)
    modified = d.date_modify("24h", moment)
    assert time_string(modified) == "2019-06-14 20:39:39 +0000 GMT"
    assert d.date_modify("1f", moment) is moment  # an invalid duration leaves the time


def test_date_modify_is_absolute_across_dst() -> None:
    from zoneinfo import ZoneInfo

    before = datetime(2024, 3, 10, 1, 30, tzinfo=ZoneInfo("America/New_York"))
    after = d.date_modify("1h", before)
    assert gotime.go_format(after, "15:04 MST") == "03:30 EDT"


def test_must_date_modify_reports_parse_duration_errors() -> None:
    moment = datetime(2024, 1, 1, tzinfo=UTC)
    with pytest.raises(FuncError) as info:
        d.must_date_modify("1f", moment)
    assert str(info.value) == 'time: unknown unit "f" in duration "1f"'
    with pytest.raises(FuncError, match=r'^time: invalid duration ""$'):
        d.must_date_modify("", moment)


@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        # Go's time_test.go parseDurationTests
        ("0", 0),
        ("5s", 5_000_000_000),
        ("+5s", 5_000_000_000),
        ("-5s", -5_000_000_000),
        ("1.004s", 1_004_000_000),
        (".5s", 500_000_000),
        ("1h15m30.918273645s", 4_530_918_273_645),
        ("10ns", 10),
        ("11us", 11_000),
        ("12µs", 12_000),
        ("12μs", 12_000),
        ("13ms", 13_000_000),
        ("1m", 60_000_000_000),
        ("3h30m", 12_600_000_000_000),
        ("9223372036854775807ns", (1 << 63) - 1),
        ("-9223372036854775808ns", -(1 << 63)),
    ],
)
def test_parse_duration(text: str, nanos: int) -> None:
    assert gotime.parse_duration(text) == nanos


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("3", 'time: missing unit in duration "3"'),
        ("-", 'time: invalid duration "-"'),
        ("s", 'time: invalid duration "s"'),
        (".", 'time: invalid duration "."'),
        ("1d", 'time: unknown unit "d" in duration "1d"'),
        ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
        # time's own quote(), not strconv.Quote: every byte beyond ASCII as \xNN (rows of
        # Go's parseDurationErrorTests; "\udc85" is the invalid byte 0x85 as we keep it)
        ("\x85\x85", 'time: invalid duration "\\xc2\\x85\\xc2\\x85"'),
        ("\udc85\udc85", 'time: invalid duration "\\x85\\x85"'),
        ("\udcffff", 'time: invalid duration "\\xffff"'),
        ("\ufffd", 'time: invalid duration "\\xef\\xbf\\xbd"'),
        ('1"\\x', 'time: unknown unit "\\"\\\\x" in duration "1\\"\\\\x"'),
        ("1é", 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'),
    ],
)
def test_parse_duration_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        gotime.parse_duration(text)
    assert str(info.value) == message


def test_to_date_parses_in_local_time() -> None:
    # docs: toDate "2006-01-02" "2017-12-31" | date "02/01/2006" -> 31/12/2017
    parsed = d.to_date("2006-01-02", "2017-12-31")
    assert d.date("02/01/2006", parsed) == "31/12/2017"
    assert time_string(parsed) == "2017-12-31 00:00:00 +0000 UTC"


def test_to_date_returns_the_zero_time_on_error() -> None:
    assert time_string(d.to_date("2006-01-02", "31-12-2017")) == "0001-01-01 00:00:00 +0000 UTC"


def test_to_date_with_numeric_zone_keeps_the_offset() -> None:
    parsed = d.to_date("2006-01-02 15:04:05 -0700", "2023-01-15 10:20:30 +0530")
    assert time_string(parsed) == "2023-01-15 10:20:30 +0530 +0530"
    assert d.unix_epoch(parsed) == "1673758230"


def test_to_date_with_unknown_zone_name_relabels_the_utc_reading() -> None:
    # time.parse: an unknown abbreviation gets a fake zone (GMT+3 -> +3h) via
    # setLoc, which keeps the instant read as UTC.
    parsed = d.to_date("2006-01-02 MST", "2023-01-15 GMT+3")
    assert time_string(parsed) == "2023-01-15 03:00:00 +0300 GMT+3"


@pytest.mark.parametrize(
    ("layout", "value", "message"),
    [
        (
            "2006-01-02",
            "2023-1-15",
            'parsing time "2023-1-15" as "2006-01-02": cannot parse "1-15" as "01"',
        ),
        ("2006-01-02", "2023-02-30", 'parsing time "2023-02-30": day out of range'),
        ("2006-01-02", "2023-13-01", 'parsing time "2023-13-01": month out of range'),
        ("2006-01-02", "2023-01-15x", 'parsing time "2023-01-15x": extra text: "x"'),
        ("15:04", "25:00", 'parsing time "25:00": hour out of range'),
        ("Jan 2", "Foo 2", 'parsing time "Foo 2" as "Jan 2": cannot parse "Foo 2" as "Jan"'),
    ],
)
def test_must_to_date_errors_are_go_parse_errors(layout: str, value: str, message: str) -> None:
    with pytest.raises(FuncError) as info:
        d.must_to_date(layout, value)
    assert str(info.value) == message


def test_parse_accepts_fractions_and_case_insensitive_names() -> None:
    parsed = gotime_parse.go_parse("Jan 2 2006 15:04:05", "fEb 3 2013 19:54:00.25", UTC)
    assert parsed == datetime(2013, 2, 3, 19, 54, 0, 250000, tzinfo=UTC)
    rfc = gotime_parse.go_parse("2006-01-02T15:04:05Z07:00", "2023-01-15T10:20:30.5Z", UTC)
    assert rfc == datetime(2023, 1, 15, 10, 20, 30, 500000, tzinfo=UTC)
    kitchen = gotime_parse.go_parse("2006 3:04PM", "2020 12:30AM", UTC)
    assert (kitchen.hour, kitchen.minute) == (0, 30)


def test_now_is_an_aware_current_time() -> None:
    current = d.now()
    assert current.tzinfo is not None
    assert abs(current - datetime.now(UTC)) < timedelta(minutes=1)


def test_ago_is_a_rounded_duration() -> None:
    one_hour_ago = datetime.now(UTC) - timedelta(hours=1, milliseconds=300)
    assert re.fullmatch(r"1h0m\d+s", d.ago(one_hour_ago))
    assert d.ago("nope") == "0s"  # default branch: time.Since(time.Now())
    assert re.fullmatch(r"\d+h\d+m\d+s", d.ago(Int64(0)))


def test_now_prints_like_go_time_now() -> None:
    # time.Time.String() of time.Now(): nanoseconds, zone, then the monotonic
    # reading " m=+<seconds>.<9 digits>"; t.Add keeps the reading (shifted).
    current = d.now()
    pattern = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,9})? \+0000 UTC m=\+\d+\.\d{9}"
    assert re.fullmatch(pattern, current.String())
    later = d.date_modify("1h", current)
    assert re.fullmatch(pattern, later.String())
    assert later.mono_ns - current.mono_ns == 3_600_000_000_000


def test_nanoseconds_survive_parse_format_and_modify() -> None:
    # Go's time keeps nanoseconds; RFC3339Nano-style fractions round-trip.
    parsed = d.to_date("2006-01-02 15:04:05.999999999", "2023-01-15 10:20:30.123456789")
    assert parsed.String() == "2023-01-15 10:20:30.123456789 +0000 UTC"
    assert d.date_in_zone(".000000000 MST", parsed, "Asia/Tokyo") == ".123456789 JST"
    assert d.date_modify("1ns", parsed).String() == "2023-01-15 10:20:30.12345679 +0000 UTC"


def test_parse_in_a_dst_local_follows_go_date(monkeypatch: pytest.MonkeyPatch) -> None:
    # time.Date resolves a wall time in a DST gap with the offset found after
    # the first guess (02:30 on 2023-03-12 in New York becomes 01:30 EST), and
    # an ambiguous one with the first zone (EDT). Location.lookupName finds
    # "EST" in Local even in July: wall time minus -5h, shown in Local (EDT).
    monkeypatch.setenv("TZ", "America/New_York")
    gotime.local_zone.cache_clear()
    gap = d.to_date("2006-01-02 15:04", "2023-03-12 02:30")
    assert time_string(gap) == "2023-03-12 01:30:00 -0500 EST"
    fold = d.to_date("2006-01-02 15:04", "2023-11-05 01:30")
    assert time_string(fold) == "2023-11-05 01:30:00 -0400 EDT"
    named = d.to_date("2006-01-02 15:04:05 MST", "2023-07-15 10:20:30 EST")
    assert time_string(named) == "2023-07-15 11:20:30 -0400 EDT"
    assert d.date("2006-01-02 15:04 MST", 1700000000) == "2023-11-14 17:13 EST"
