"""Template functions: semver and semverCompare (Sprig's semver.go) on the
Masterminds/semver port of runner.golang.semver."""

from __future__ import annotations

import functools

from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError
from runner.golang.semver import SemverError, Version, new_constraint, new_version


@gofunc("semver", ("string",), returns="*semver.Version", fallible=True)
def semver(version: str) -> Version:
    try:
        return new_version(version)
    except SemverError as err:
        raise FuncError(str(err)) from None


@functools.lru_cache(maxsize=512)
def _compare_cached(constraint: str, version: str) -> bool | str:
    """semverCompare's answer, or its error text; charts repeat the same checks."""
    try:
        return new_constraint(constraint).check(new_version(version))
    except SemverError as err:
        return str(err)


@gofunc("semverCompare", ("string", "string"), returns="bool", fallible=True)
def semver_compare(constraint: str, version: str) -> bool:
    result = _compare_cached(constraint, version)
    if isinstance(result, str):
        raise FuncError(result)
    return result
