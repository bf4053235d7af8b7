"""shopspring/decimal arithmetic as Sprig's float functions (addf, subf, mulf,
divf, add1f) use it: operands become their shortest decimal form, the
operation is exact (division rounds half away from zero at 16 decimal
places) and the result is converted back to the nearest float64.

A module of its own so that the decimal module (~2 ms to import) is loaded
only by a render that calls one of those functions.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from decimal import ROUND_DOWN, Decimal, localcontext

from runner.funcs.cast import to_float64
from runner.golang.gofunc import FuncError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_DIVISION_PRECISION = Decimal(1).scaleb(-16)


def _decimal(value: Any) -> Decimal:
    number = to_float64(value)
    if math.isnan(number) or math.isinf(number):
        raise FuncError(f"Cannot create a Decimal from {_go_float_word(number)}")
    if number == 0:
        return Decimal(0)  # big.Int has no negative zero
    return Decimal(repr(number))  # repr is the shortest round-trip form, as NewFromFloat


def _go_float_word(number: float) -> str:
    if math.isnan(number):
        return "NaN"
    return "+Inf" if number > 0 else "-Inf"


def _divide(a: Decimal, b: Decimal) -> Decimal:
    """decimal.Div: DivRound to 16 places, half away from zero."""
    if b == 0:
        raise FuncError("decimal division by 0")
    quotient = (a / b).quantize(_DIVISION_PRECISION, rounding=ROUND_DOWN)
    remainder = a - quotient * b
    if 2 * abs(remainder) * Decimal(10) ** 16 < abs(b):
        return quotient
    step = _DIVISION_PRECISION if (a < 0) == (b < 0) else -_DIVISION_PRECISION
    return quotient + step


OPERATIONS: dict[str, Callable[[Decimal, Decimal], Decimal]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": _divide,
}


def fold(first: Any, rest: tuple[Any, ...], operation: str) -> float:
    """first (op) rest[0] (op) rest[1] ... in exact decimal arithmetic, as a float64."""
    op = OPERATIONS[operation]
    with localcontext() as ctx:
        ctx.prec = 1000  # decimal arithmetic is exact in Go; keep Python's exact too
        result = _decimal(first)
        for value in rest:
            result = op(result, _decimal(value))
        return float(result) if result != 0 else 0.0
