"""The template function registry: every function carries its Go signature.

A function is registered with `@gofunc(name, params, ...)`, the Go types of
its parameters and result as runner.golang.gofunc describes them (GoFunc);
it fails by raising runner.golang.gofunc.FuncError.

Every name is known before any family module is imported: the registry
starts from runner.funcs.index with one RegisteredFunc per name, and reading
a field other than the name imports the module that registers it. The parser
only asks whether a name is a function, so a render imports only the
families it calls.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.funcs.index import FUNCTIONS_BY_MODULE
from runner.golang.gofunc import ANY, FIELDS, GoFunc, set_fields

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


class RegisteredFunc(GoFunc):
    """A registry entry, made from runner.funcs.index before its module is imported.

    Only `name` is set at first, all the parser needs; reading another field
    imports the module, whose `@gofunc` fills the entry in.
    """

    __slots__ = ("module", "loaded")

    def __init__(self, name: str, module: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "loaded", False)

    def __getattr__(self, field: str) -> Any:
        # Python calls this only for a field not filled in yet: import its module.
        if field not in FIELDS:  # "name" is always set
            raise AttributeError(field)
        from importlib import import_module

        import_module(f"runner.funcs.{self.module}")
        if not self.loaded:
            raise LookupError(f"runner.funcs.{self.module} does not register {self.name!r}")
        return getattr(self, field)

    def fill(self, impl: Callable[..., Any], params: tuple[str, ...], variadic: str | None,
             returns: str, fallible: bool) -> None:
        if self.loaded:
            raise ValueError(f"template function {self.name!r} registered twice")
        set_fields(self, (self.name, impl, params, variadic, returns, fallible))
        object.__setattr__(self, "loaded", True)


_REGISTRY: dict[str, RegisteredFunc] = {
    name: RegisteredFunc(name, module)
    for module, names in FUNCTIONS_BY_MODULE.items()
    for name in names
}


def _entry(name: str) -> RegisteredFunc:
    entry = _REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"template function {name!r} is missing from runner/funcs/index.py")
    return entry


def gofunc(
    name: str,
    params: tuple[str, ...] | list[str] = (),
    *,
    variadic: str | None = None,
    returns: str = ANY,
    fallible: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register `impl` as template function `name` with its Go signature."""
    entry = _entry(name)

    def register(impl: Callable[..., Any]) -> Callable[..., Any]:
        entry.fill(impl, tuple(params), variadic, returns, fallible)
        return impl

    return register


def alias(name: str, target: str) -> None:
    """Register `name` as another name of the already registered `target`."""
    original = _REGISTRY[target]
    _entry(name).fill(original.impl, original.params, original.variadic, original.returns,
                      original.fallible)


def registered() -> dict[str, GoFunc]:
    """Every registered function by name; a family module is imported on first use of its entry."""
    return dict(_REGISTRY)
