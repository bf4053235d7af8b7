"""Template functions: Sprig's type conversions (atoi, int, int64, float64,
toDecimal, toString, toStrings).

Sprig converts through spf13/cast v1.7.0, whose failures quietly become 0:
`int "08"` is 0 (base prefixes apply, a leading 0 is octal), `int "12.0"`
is 12, `int 3.9` is 3. `atoi` is strconv.Atoi with its error dropped.
`seq` of the same group of Sprig's map is in runner/funcs/numeric.py.
"""

from __future__ import annotations

from runner.funcs import cast
from runner.funcs.registry import gofunc
from runner.golang import strconv
from runner.golang.fmt import sprint
from runner.golang.gofunc import ANY
from runner.golang.types import Int64, StringSlice

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


@gofunc("atoi", ("string",), returns="int")
def atoi(a: str) -> int:
    """strconv.Atoi ignoring the error: 0 on bad syntax, clamped when too large."""
    try:
        return strconv.atoi(a)
    except strconv.NumError as err:
        return int(err.value)


@gofunc("int", (ANY,), returns="int")
def to_int(v: Any) -> int:
    return cast.to_int(v)


@gofunc("int64", (ANY,), returns="int64")
def to_int64(v: Any) -> Int64:
    return cast.to_int64(v)


@gofunc("float64", (ANY,), returns="float64")
def to_float64(v: Any) -> float:
    return cast.to_float64(v)


@gofunc("toDecimal", (ANY,), returns="int64")
def to_decimal(v: Any) -> Int64:
    """Reads fmt.Sprint(v) as an octal number: `toDecimal "0777"` is 511."""
    try:
        return Int64(strconv.parse_int(sprint([v]), 8, 64))
    except strconv.NumError:
        return Int64(0)


@gofunc("toString", (ANY,), returns="string")
def to_string(v: Any) -> str:
    return cast.strval(v)


@gofunc("toStrings", (ANY,), returns="[]string")
def to_strings(v: Any) -> StringSlice:
    return cast.strslice(v)
