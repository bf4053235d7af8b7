"""Go's encodings (encoding/json, go-yaml, BurntSushi/toml, ...) as Helm's output has them.

PyYAML compiles a few milliseconds of regular expressions at import (its
pure-Python reader's and resolver's), which goyaml and goscan never use on
the usual paths: they parse through libyaml and go-yaml's own resolver.
Importing this package installs a finder that, at PyYAML's first import
(whoever asks for it, if ever), defers those compilations to first use.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


class _PyYAMLWithLazyPatterns:
    """A meta path finder for `yaml` alone: it runs PyYAML's package (and the
    modules it imports) with re.compile making LazyPatterns, then steps aside."""

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "yaml":
            return None
        sys.meta_path.remove(cls)
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            spec = find_spec(name, path, target) if find_spec is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None:
            spec.loader.exec_module = _with_lazy_patterns(spec.loader.exec_module)
        return spec


def _with_lazy_patterns(exec_module: Any) -> Any:
    def exec_lazily(module: Any) -> None:
        import re

        from runner.lazy_pattern import LazyPattern

        compile_now = re.compile

        def compile_later(pattern: object, flags: int = 0) -> object:
            if isinstance(pattern, str):
                return LazyPattern(pattern, flags)
            return compile_now(pattern, flags)  # type: ignore[call-overload]

        re.compile = compile_later  # type: ignore[assignment]
        try:
            exec_module(module)
        finally:
            re.compile = compile_now

    return exec_lazily


if "yaml" not in sys.modules:
    sys.meta_path.insert(0, _PyYAMLWithLazyPatterns)  # type: ignore[arg-type]
