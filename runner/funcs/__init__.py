"""The function map Helm 4.1.4 gives templates, grouped by family as Sprig's files are.

Each family module registers its functions with `@gofunc` on import; the
engine-bound ones (include, tpl, required, lookup) are added per render by
runner.engine, as Helm's pkg/engine does.
"""

from __future__ import annotations

import importlib

from runner.funcs.registry import GoFunc, registered

FAMILIES = (
    "strings",
    "lists",
    "dicts",
    "regex",
    "defaults",
    "reflect",
    "conversion",
    "numeric",
    "semver",
    "date",
    "crypto",
    "network",
    "paths",
    "urls",
    "helm",
)

_loaded = False


def function_map() -> dict[str, GoFunc]:
    """Every registered template function by name (families imported once)."""
    global _loaded
    if not _loaded:
        for family in FAMILIES:
            importlib.import_module(f"runner.funcs.{family}")
        _loaded = True
    return registered()
