"""Template functions: Sprig's integer and float math (functions.go, numeric.go).

Sprig converts every operand with spf13/cast (ToInt64 / ToFloat64), so a
string "3" or a float64 3.7 are accepted (3.7 truncates to 3), and integer
results are int64 with Go's wrap-around, truncated division and remainder.
The float family (addf, subf, mulf, divf, add1f) goes through shopspring
decimal (runner.funcs.decimalmath).
"""

from __future__ import annotations

import math

from runner.funcs.cast import to_float64, to_int64, wrap_int64
from runner.funcs.registry import alias, gofunc
from runner.golang.gofunc import ANY, FuncError
from runner.golang.types import Int64, IntSlice

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def _i64(value: int) -> Int64:
    """Wrap an exact integer to int64 as Go's arithmetic does."""
    return Int64(wrap_int64(value))


def _go_div(a: int, b: int) -> int:
    if b == 0:
        raise FuncError("runtime error: integer divide by zero")
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def _go_mod(a: int, b: int) -> int:
    if b == 0:
        raise FuncError("runtime error: integer divide by zero")
    return a - b * _go_div(a, b)


@gofunc("add1", (ANY,), returns="int64")
def add1(i: Any) -> Int64:
    return _i64(to_int64(i) + 1)


@gofunc("add", (), variadic=ANY, returns="int64")
def add(*values: Any) -> Int64:
    return _i64(sum(to_int64(v) for v in values))


@gofunc("sub", (ANY, ANY), returns="int64")
def sub(a: Any, b: Any) -> Int64:
    return _i64(to_int64(a) - to_int64(b))


@gofunc("div", (ANY, ANY), returns="int64")
def div(a: Any, b: Any) -> Int64:
    return _i64(_go_div(to_int64(a), to_int64(b)))


@gofunc("mod", (ANY, ANY), returns="int64")
def mod(a: Any, b: Any) -> Int64:
    return _i64(_go_mod(to_int64(a), to_int64(b)))


@gofunc("mul", (ANY,), variadic=ANY, returns="int64")
def mul(a: Any, *values: Any) -> Int64:
    result = to_int64(a)
    for v in values:
        result = _i64(result * to_int64(v))
    return _i64(result)


@gofunc("randInt", ("int", "int"), returns="int")
def rand_int(low: int, high: int) -> int:
    # rand.Intn(max-min) + min; Intn panics on a non-positive bound.
    if high - low <= 0:
        raise FuncError("invalid argument to Intn")
    import random  # on use: most renders never draw a random number

    return random.randrange(high - low) + low


@gofunc("max", (ANY,), variadic=ANY, returns="int64")
def max_int(a: Any, *values: Any) -> Int64:
    return Int64(max([to_int64(a), *(to_int64(v) for v in values)]))


@gofunc("min", (ANY,), variadic=ANY, returns="int64")
def min_int(a: Any, *values: Any) -> Int64:
    return Int64(min([to_int64(a), *(to_int64(v) for v in values)]))


def _go_max(a: float, b: float) -> float:
    """math.Max: +Inf wins, NaN is contagious, +0 beats -0."""
    if math.isinf(a) and a > 0 or math.isinf(b) and b > 0:
        return math.inf
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == 0 and b == 0:
        return a if math.copysign(1, a) > 0 else b
    return a if a > b else b


def _go_min(a: float, b: float) -> float:
    """math.Min: -Inf wins, NaN is contagious, -0 beats +0."""
    if math.isinf(a) and a < 0 or math.isinf(b) and b < 0:
        return -math.inf
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == 0 and b == 0:
        return a if math.copysign(1, a) < 0 else b
    return a if a < b else b


@gofunc("maxf", (ANY,), variadic=ANY, returns="float64")
def maxf(a: Any, *values: Any) -> float:
    result = to_float64(a)
    for v in values:
        result = _go_max(result, to_float64(v))
    return result


@gofunc("minf", (ANY,), variadic=ANY, returns="float64")
def minf(a: Any, *values: Any) -> float:
    result = to_float64(a)
    for v in values:
        result = _go_min(result, to_float64(v))
    return result


alias("biggest", "max")


def _go_floor(value: float) -> float:
    """math.Floor: infinities, NaN and zeros come back unchanged (keeping -0)."""
    if math.isinf(value) or math.isnan(value):
        return value
    return math.copysign(float(math.floor(value)), value) if value == 0 else float(math.floor(value))


def _go_ceil(value: float) -> float:
    """math.Ceil: a result of zero keeps the operand's sign (Ceil(-0.5) is -0)."""
    if math.isinf(value) or math.isnan(value):
        return value
    result = float(math.ceil(value))
    return math.copysign(result, value) if result == 0 else result


@gofunc("floor", (ANY,), returns="float64")
def floor(a: Any) -> float:
    return _go_floor(to_float64(a))


@gofunc("ceil", (ANY,), returns="float64")
def ceil(a: Any) -> float:
    return _go_ceil(to_float64(a))


@gofunc("round", (ANY, "int"), variadic="float64", returns="float64")
def round_(a: Any, places: int, *round_on: float) -> float:
    """Sprig's round: ceil when the fractional part reaches roundOn (0.5 by default)."""
    threshold = round_on[0] if round_on else 0.5
    value = to_float64(a)
    try:
        power = math.pow(10, places)
    except OverflowError:
        power = math.inf
    digit = power * value
    if math.isinf(digit) or math.isnan(digit):
        return digit / power
    fraction = math.fmod(digit, 1.0)  # math.Modf's fractional part keeps the sign
    rounded = _go_ceil(digit) if fraction >= threshold else _go_floor(digit)
    return rounded / power


def until_step(start: int, stop: int, step: int) -> IntSlice:
    """Sprig's untilStep: empty when the step does not move towards stop."""
    if stop < start:
        return IntSlice(range(start, stop, step)) if step < 0 else IntSlice()
    return IntSlice(range(start, stop, step)) if step > 0 else IntSlice()


@gofunc("until", ("int",), returns="[]int")
def until(count: int) -> IntSlice:
    return until_step(0, count, -1 if count < 0 else 1)


gofunc("untilStep", ("int", "int", "int"), returns="[]int")(until_step)


@gofunc("seq", (), variadic="int", returns="string")
def seq(*params: int) -> str:
    """Like GNU seq: `seq last`, `seq first last`, `seq first step last`."""
    if len(params) == 1:
        start, end = 1, params[0]
        increment = -1 if end < start else 1
        values = until_step(start, end + increment, increment)
    elif len(params) == 2:
        start, end = params
        step = -1 if end < start else 1
        values = until_step(start, end + step, step)
    elif len(params) == 3:
        start, step, end = params
        increment = 1
        if end < start:
            increment = -1
            if step > 0:
                return ""
        values = until_step(start, end + increment, step)
    else:
        return ""
    return " ".join(str(v) for v in values)


# --- float math through shopspring/decimal -----------------------------------

def _decimal_op(first: Any, rest: tuple[Any, ...], operation: str) -> float:
    from runner.funcs import decimalmath  # the decimal module only for the float functions

    return decimalmath.fold(first, rest, operation)


@gofunc("add1f", (ANY,), returns="float64")
def add1f(i: Any) -> float:
    return _decimal_op(i, (1,), "add")


@gofunc("addf", (), variadic=ANY, returns="float64")
def addf(*values: Any) -> float:
    return _decimal_op(0.0, values, "add")


@gofunc("subf", (ANY,), variadic=ANY, returns="float64")
def subf(a: Any, *values: Any) -> float:
    return _decimal_op(a, values, "sub")


@gofunc("mulf", (ANY,), variadic=ANY, returns="float64")
def mulf(a: Any, *values: Any) -> float:
    return _decimal_op(a, values, "mul")


@gofunc("divf", (ANY,), variadic=ANY, returns="float64")
def divf(a: Any, *values: Any) -> float:
    return _decimal_op(a, values, "div")
