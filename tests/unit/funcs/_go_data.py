"""Template data shared by the Sprig family tests, as Helm would hand it over.

The expected texts in those tests were printed by Go 1.26 running Sprig
v3.3.0's functions in text/template on this same data (Go-side names in
comments)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from runner.funcs import function_map
from runner.golang.types import Duration, Int64, StringSlice
from runner.template.values import print_value

DATA: dict[str, Any] = {
    "f0": 0.0,
    "f1": 1.5,
    "f3": 3.9,
    "fn": -3.9,
    "fbig": 1e6,
    "i0": 0,
    "i64": Int64(7),
    "s": "hi",
    "e": "",
    "l": [],
    "l1": [1, None, "a", 2.5],
    "m": {},
    "m1": {"a": 1},
    "t": datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
    "d": Duration(90 * 10**9),
    "b": b"hi",
    "ss": StringSlice(["x", "y"]),
    "n": None,
    "T": True,
    "F": False,
}


def call(name: str, *args: Any) -> Any:
    """Call a registered template function as the executor would."""
    return function_map()[name].impl(*args)


def render(name: str, *args: Any) -> str:
    """What `{{ name args... }}` writes."""
    return print_value(call(name, *args))
