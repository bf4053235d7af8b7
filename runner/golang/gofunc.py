"""A Go function as text/template sees it through reflect: its signature and its error.

Go's text/template checks and converts each argument against the called
function's parameter types (a float64 passed where `int` is declared is an
error, a number literal becomes an int or a float64 depending on the
parameter), so every function or method a template can call carries its Go
signature, written as Go spells the types ("interface {}", "string", "int",
"int64", "float64", "bool", "[]interface {}", "[]string",
"map[string]interface {}", "[]byte", "time.Time", ...).

An implementation signals Go's non-nil `error` result (or a Go panic, which
text/template also turns into an error) by raising FuncError; the executor
reports it as `error calling <name>: <message>`.

The template functions themselves (Sprig's and Helm's) are registered in
runner.funcs.registry; the engine hands their table to runner.template.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

ANY = "interface {}"


class FuncError(Exception):
    """A template function failed; the message is Go's error text."""


FIELDS = ("name", "impl", "params", "variadic", "returns", "fallible")


class GoFunc:
    """A template function and its Go signature, read-only once made.

    A plain slotted class: @dataclass would cost about a millisecond at every start.
    """

    __slots__ = FIELDS

    name: str
    impl: Callable[..., Any]
    params: tuple[str, ...]
    variadic: str | None  # element type of a trailing ...T parameter
    returns: str
    fallible: bool  # Go signature returns (T, error)

    def __init__(self, name: str, impl: Callable[..., Any], params: tuple[str, ...],
                 variadic: str | None = None, returns: str = ANY, fallible: bool = False) -> None:
        set_fields(self, (name, impl, params, variadic, returns, fallible))

    def __setattr__(self, field: str, value: Any) -> None:
        raise AttributeError(f"GoFunc is read-only: cannot set {field}")

    def __repr__(self) -> str:
        return (f"GoFunc({self.name!r}, params={self.params!r}, variadic={self.variadic!r}, "
                f"returns={self.returns!r}, fallible={self.fallible!r})")


def set_fields(func: GoFunc, values: tuple[Any, ...]) -> None:
    for field, value in zip(FIELDS, values, strict=True):
        object.__setattr__(func, field, value)


def gomethod(
    params: tuple[str, ...] | list[str] = (),
    *,
    variadic: str | None = None,
    returns: str = ANY,
    fallible: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a Go method's signature on a Python method (`.Files.Get "x"` checks `string`).

    Methods without it take any values, their count taken from the Python signature.
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__gofunc__ = GoFunc(fn.__name__, fn, tuple(params), variadic, returns, fallible)  # type: ignore[attr-defined]
        return fn

    return mark
