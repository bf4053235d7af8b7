"""Sprig's integer and float math. Expectations come from Sprig v3's
numeric_test.go (cited per test) and from the Go spec for int64 arithmetic
(truncated division, remainder sign, two's-complement wrap-around)."""

from __future__ import annotations

import math

import pytest

from runner.funcs import numeric
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError
from runner.golang.types import Int64, IntSlice


def test_every_numeric_function_is_registered_with_its_go_signature() -> None:
    funcs = registered()
    names = ["add", "add1", "sub", "mul", "div", "mod", "max", "min", "biggest", "addf", "add1f", "subf", "mulf", "divf", "maxf", "minf", "floor", "ceil", "round", "until", "untilStep", "seq", "randInt"]
    assert all(name in funcs for name in names)
    assert funcs["add"].variadic == "interface {}"
    assert funcs["round"].params == ("interface {}", "int")
    assert funcs["untilStep"].params == ("int", "int", "int")
    assert funcs["add1"].returns == "int64"


def test_integer_results_are_int64() -> None:
    # TestAdd1 / TestAdd / TestSub / TestMul / TestDiv: `3 | add 1 2` is 6 ...
    assert numeric.add1(3) == 4 and type(numeric.add1(3)) is Int64
    assert numeric.add(1, 2, 3) == 6
    assert numeric.sub(14, 3) == 11
    assert numeric.mul("2", 3, "4", 1) == 24
    assert numeric.div(5, 4) == 1


def test_operands_are_cast_like_spf13_cast() -> None:
    # cast.ToInt64 truncates floats, parses strings, and maps failures to 0.
    assert numeric.add(3.9, "2", True) == 6
    assert numeric.add("frankie", 1) == 1


def test_division_truncates_toward_zero_and_remainder_follows_dividend() -> None:
    assert numeric.div(-7, 2) == -3
    assert numeric.mod(-7, 2) == -1
    assert numeric.mod(7, -2) == 1


def test_integer_overflow_wraps_like_go_int64() -> None:
    assert numeric.add((1 << 63) - 1, 1) == -(1 << 63)
    assert numeric.mul(1 << 62, 4) == 0


def test_division_by_zero_is_go_runtime_panic_text() -> None:
    with pytest.raises(FuncError, match="^runtime error: integer divide by zero$"):
        numeric.div(1, 0)
    with pytest.raises(FuncError, match="^runtime error: integer divide by zero$"):
        numeric.mod(1, 0)


def test_max_min_biggest() -> None:
    # TestBiggest, TestMin, TestMaxf, TestMinf
    assert numeric.max_int(1, 2, 3, 345, 5, 6, 7) == 345
    assert numeric.max_int(345) == 345
    assert registered()["biggest"].impl(1, 2, 3, 345, 5) == 345
    assert numeric.min_int(1, 2, 3, 345, 5, 6, 7) == 1
    assert numeric.maxf(1, 2, 3, 345.7, 5, 6, 7) == 345.7
    assert numeric.minf(1.4, 2, 3, 345.6, 5, 6, 7) == 1.4


def test_float_math_is_decimal_exact() -> None:
    # TestAdd1f `3.4 | add1f` = 4.4; TestAddf `3 | addf 1.5 2.2` = 6.7;
    # TestDivf `2 | divf 5 4` = 0.625; TestMulf `1.2 | mulf "2.4" 10 "4"` = 115.2;
    # TestSubf `3 | subf 4.5 1` = 0.5 (the piped value is the last argument).
    assert numeric.add1f(3.4) == 4.4
    assert numeric.addf(1.5, 2.2, 3) == 6.7
    assert numeric.divf(5, 4, 2) == 0.625
    assert numeric.mulf("2.4", 10, "4", 1.2) == 115.2
    assert numeric.subf(4.5, 1, 3) == 0.5
    assert numeric.addf(0.1, 0.2) == 0.3  # decimal, not binary float, addition


def test_divf_rounds_to_sixteen_decimal_places() -> None:
    # shopspring/decimal DivisionPrecision = 16, rounding half away from zero.
    assert numeric.divf(2, 3) == 0.6666666666666667
    assert numeric.divf(-2, 3) == -0.6666666666666667


def test_divf_by_zero_panics_with_decimal_text() -> None:
    with pytest.raises(FuncError, match="^decimal division by 0$"):
        numeric.divf(1, 0)


def test_floor_ceil() -> None:
    # TestCeil / TestFloor
    assert numeric.ceil(123) == 123.0
    assert numeric.ceil("123.01") == 124.0
    assert numeric.floor(123.9999) == 123.0
    assert numeric.floor("123.9999") == 123.0
    assert math.copysign(1, numeric.ceil(-0.5)) == -1  # math.Ceil(-0.5) is -0


def test_round() -> None:
    # TestRound
    assert numeric.round_(123.5555, 3) == 123.556
    assert numeric.round_("123.55555", 3) == 123.556
    assert numeric.round_(123.500001, 0) == 124.0
    assert numeric.round_(123.49999999, 0) == 123.0
    assert numeric.round_(123.2329999, 2, 0.3) == 123.23
    assert numeric.round_(123.233, 2, 0.3) == 123.24


def test_until_and_until_step() -> None:
    # TestUntil / TestUntilStep
    assert numeric.until(5) == [0, 1, 2, 3, 4]
    assert isinstance(numeric.until(5), IntSlice)
    assert numeric.until(-5) == [0, -1, -2, -3, -4]
    assert registered()["untilStep"].impl(3, 6, 1) == [3, 4, 5]
    assert numeric.until_step(0, -10, -2) == [0, -2, -4, -6, -8]
    for args in ((3, 0, 1), (3, 99, 0), (3, 99, -1), (3, 0, 0)):
        assert numeric.until_step(*args) == []


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((0, 1, 3), "0 1 2 3"),
        ((0, 3, 10), "0 3 6 9"),
        ((3, 3, 2), ""),
        ((3, -3, 2), "3"),
        ((), ""),
        ((0, 4), "0 1 2 3 4"),
        ((5,), "1 2 3 4 5"),
        ((-5,), "1 0 -1 -2 -3 -4 -5"),
        ((0,), "1 0"),
        ((0, 1, 2, 3), ""),
        ((0, -4), "0 -1 -2 -3 -4"),
    ],
)
def test_seq(args: tuple[int, ...], expected: str) -> None:
    # TestSeq
    assert numeric.seq(*args) == expected


def test_rand_int_stays_in_half_open_range() -> None:
    # TestRandomInt: min <= r < max
    for low, high in ((10, 11), (10, 13), (0, 1), (5, 50)):
        for _ in range(20):
            assert low <= numeric.rand_int(low, high) < high


def test_rand_int_with_empty_range_panics_like_rand_intn() -> None:
    with pytest.raises(FuncError, match="^invalid argument to Intn$"):
        numeric.rand_int(5, 5)
