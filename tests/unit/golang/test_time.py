"""Go's time package: Duration.String and Time.String, as Go 1.26 prints them.

Format, Parse and ParseDuration are tested with the date functions
(tests/unit/funcs/test_date.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from runner.golang.time import duration_string, time_string
from runner.golang.types import Duration, format_value


@pytest.mark.parametrize(
    ("nanos", "text"),
    [
        (0, "0s"),
        (1, "1ns"),
        (999, "999ns"),
        (1000, "1µs"),
        (1500, "1.5µs"),
        (1234567, "1.234567ms"),
        (999999999, "999.999999ms"),
        (1000000000, "1s"),
        (1500000000, "1.5s"),
        (60000000000, "1m0s"),
        (3600000000000, "1h0m0s"),
        (3661000000001, "1h1m1.000000001s"),
        (-90000000000, "-1m30s"),
        (360000000000000, "100h0m0s"),
    ],
)
def test_duration_string(nanos: int, text: str) -> None:
    assert duration_string(nanos) == text
    assert format_value(Duration(nanos)) == text


def test_time_string_matches_go() -> None:
    assert time_string(datetime(2024, 1, 2, 3, 4, 5, 120000, tzinfo=UTC)) == (
        "2024-01-02 03:04:05.12 +0000 UTC"
    )
    # An unnamed fixed zone prints its offset as the zone name.
    minus7 = timezone(timedelta(hours=-7))
    assert time_string(datetime(2024, 1, 2, 3, 4, 5, tzinfo=minus7)) == (
        "2024-01-02 03:04:05 -0700 -0700"
    )
    cet = timezone(timedelta(hours=1), "CET")
    assert time_string(datetime(999, 12, 31, 23, 59, 59, 1, tzinfo=cet)) == (
        "0999-12-31 23:59:59.000001 +0100 CET"
    )
