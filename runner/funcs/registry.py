"""The template function registry: every function carries its Go signature.

Go's text/template checks and converts each argument against the called
function's parameter types (a float64 passed where `int` is declared is an
error, a number literal becomes an int or a float64 depending on the
parameter), so a function is registered with the Go types of its parameters,
written as Go spells them ("interface {}", "string", "int", "int64",
"float64", "bool", "[]interface {}", "[]string", "map[string]interface {}",
"[]byte", "time.Time", ...).

An implementation signals Go's non-nil `error` result (or a Go panic, which
text/template also turns into an error) by raising FuncError; the executor
reports it as `error calling <name>: <message>`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ANY = "interface {}"


class FuncError(Exception):
    """A template function failed; the message is Go's error text."""


@dataclass(frozen=True, slots=True)
class GoFunc:
    name: str
    impl: Callable[..., Any]
    params: tuple[str, ...]
    variadic: str | None = None  # element type of a trailing ...T parameter
    returns: str = ANY
    fallible: bool = False  # Go signature returns (T, error)


_REGISTRY: dict[str, GoFunc] = {}


def gofunc(
    name: str,
    params: tuple[str, ...] | list[str] = (),
    *,
    variadic: str | None = None,
    returns: str = ANY,
    fallible: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register `impl` as template function `name` with its Go signature."""

    def register(impl: Callable[..., Any]) -> Callable[..., Any]:
        if name in _REGISTRY:
            raise ValueError(f"template function {name!r} registered twice")
        _REGISTRY[name] = GoFunc(name, impl, tuple(params), variadic, returns, fallible)
        return impl

    return register


def alias(name: str, target: str) -> None:
    """Register `name` as another name of the already registered `target`."""
    original = _REGISTRY[target]
    _REGISTRY[name] = GoFunc(
        name, original.impl, original.params, original.variadic, original.returns, original.fallible
    )


def registered() -> dict[str, GoFunc]:
    """Functions registered so far (family modules register on import)."""
    return dict(_REGISTRY)
