"""Go's encodings (encoding/json, go-yaml, BurntSushi/toml, ...) as Helm's output has them.

Importing the package imports PyYAML once, with the regular expressions its
modules compile at import (the pure-Python reader's and resolver's) deferred
to their first use: goyaml and goscan parse through libyaml and their own
resolver, so a `template` run never uses them, and compiling them costs a
few milliseconds at every start.
"""

from __future__ import annotations


def _import_pyyaml_lazily() -> None:
    import re
    import sys

    if "yaml" in sys.modules:
        return
    from runner.lazy_pattern import LazyPattern

    compile_now = re.compile

    def compile_later(pattern: object, flags: int = 0) -> object:
        if isinstance(pattern, str):
            return LazyPattern(pattern, flags)
        return compile_now(pattern, flags)  # type: ignore[call-overload]

    re.compile = compile_later  # type: ignore[assignment]
    try:
        import yaml  # noqa: F401
    finally:
        re.compile = compile_now


_import_pyyaml_lazily()
