"""The function map Helm 4.1.4 gives templates, grouped by family as Sprig's files are.

Each family module registers its functions with `@gofunc` on import, and is
imported only when a render first calls one of them (runner.funcs.index,
runner.funcs.registry); the engine-bound ones (include, tpl, required,
lookup) are added per render by runner.engine, as Helm's pkg/engine does.
"""

from __future__ import annotations

from runner.funcs.registry import registered
from runner.golang.gofunc import GoFunc


def function_map() -> dict[str, GoFunc]:
    """Every template function of the registry by name (family modules load on first call)."""
    return registered()
