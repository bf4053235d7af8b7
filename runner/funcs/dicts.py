"""Template functions: Sprig's dicts family (sprig v3.3.0 dict.go).

`merge` and `mergeOverwrite` follow dario.cat/mergo v1.0.1 (`Merge`,
`MergeWithOverwrite`) on map[string]interface {}: nested maps merge in
place, lists are never merged element-wise, a nil source value is skipped
(or written, when overwriting), and "empty" destination values (nil, "",
0, false, empty list or map) count as unset. Like Go, the destination is
mutated and source maps are shared, not copied.

Go ranges maps in random order, so Sprig's `keys` and `values` come out in
an order that changes from run to run; we return them in sorted key order
(what `keys | sortAlpha` gives), a stable choice among Go's possible outputs.
"""

from __future__ import annotations

from runner.funcs.cast import strval
from runner.funcs.lists import plain_variant
from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError
from runner.golang.types import StringSlice, go_type_name, kind_of

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_MAP = "map[string]interface {}"


@gofunc("dict", (), variadic="interface {}", returns=_MAP)
def make_dict(*pairs: Any) -> dict[str, Any]:
    """Sprig's dict: keys through strval; a trailing key without value maps to ""."""
    out: dict[str, Any] = {}
    for i in range(0, len(pairs), 2):
        out[strval(pairs[i])] = pairs[i + 1] if i + 1 < len(pairs) else ""
    return out


@gofunc("get", (_MAP, "string"), returns="interface {}")
def get(d: dict[str, Any] | None, key: str) -> Any:
    if d is not None and key in d:
        return d[key]
    return ""


@gofunc("set", (_MAP, "string", "interface {}"), returns=_MAP)
def set_(d: dict[str, Any] | None, key: str, value: Any) -> dict[str, Any]:
    if d is None or getattr(d, "go_nil", False):
        raise FuncError("assignment to entry in nil map")
    d[key] = value
    return d


@gofunc("unset", (_MAP, "string"), returns=_MAP)
def unset(d: dict[str, Any] | None, key: str) -> dict[str, Any]:
    if d is None:
        return {}
    d.pop(key, None)
    return d


@gofunc("hasKey", (_MAP, "string"), returns="bool")
def has_key(d: dict[str, Any] | None, key: str) -> bool:
    return d is not None and key in d


@gofunc("pluck", ("string",), variadic=_MAP, returns="[]interface {}")
def pluck(key: str, *dicts: dict[str, Any] | None) -> list[Any]:
    return [d[key] for d in dicts if d is not None and key in d]


@gofunc("keys", (), variadic=_MAP, returns="[]string")
def keys(*dicts: dict[str, Any] | None) -> StringSlice:
    out = StringSlice()
    for d in dicts:
        if d:
            out.extend(sorted(d))
    return out


@gofunc("values", (_MAP,), returns="[]interface {}")
def values(d: dict[str, Any] | None) -> list[Any]:
    if not d:
        return []
    return [d[k] for k in sorted(d)]


@gofunc("pick", (_MAP,), variadic="string", returns=_MAP)
def pick(d: dict[str, Any] | None, *names: str) -> dict[str, Any]:
    if d is None:
        return {}
    return {k: d[k] for k in names if k in d}


@gofunc("omit", (_MAP,), variadic="string", returns=_MAP)
def omit(d: dict[str, Any] | None, *names: str) -> dict[str, Any]:
    if d is None:
        return {}
    dropped = set(names)
    return {k: v for k, v in d.items() if k not in dropped}


# ------------------------------------------------------------------ merging


def _mergo_empty(v: Any) -> bool:
    """mergo's isEmptyValue, dereferencing interfaces."""
    if v is None:
        return True
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v) == 0
    if isinstance(v, (bool, int, float)):
        return not v
    return False


def _is_map(v: Any) -> bool:
    return v is not None and kind_of(v) == "map"


def _is_slice(v: Any) -> bool:
    return v is not None and kind_of(v) in ("slice", "array")


def merge_into(dst: dict[str, Any], src: dict[str, Any], overwrite: bool) -> None:
    """mergo's deepMerge for one source map (dst is mutated)."""
    for key, sv in src.items():
        if sv is None:
            if overwrite:
                dst[key] = None
            continue
        present = key in dst
        dv = dst.get(key)
        both_maps = _is_map(sv) and _is_map(dv)
        if both_maps:
            merge_into(dv, sv, overwrite)
        unset_dst = not present or _mergo_empty(dv)
        if _is_slice(sv) or both_maps:
            # mergo keeps a non-empty destination for lists and for map-over-map;
            # lists are only ever replaced whole.
            if unset_dst or (overwrite and not both_maps):
                dst[key] = sv
            continue
        if overwrite or unset_dst:
            dst[key] = sv


def _merge_all(dst: dict[str, Any] | None, srcs: tuple[Any, ...], overwrite: bool) -> dict[str, Any]:
    if dst is None:
        dst = {}  # mergo makes a map for a nil destination
    for src in srcs:
        if src is not None and getattr(dst, "go_nil", False):
            dst = {}  # a typed nil one (fromJson "null") too, once a source is merged
        if src:
            merge_into(dst, src, overwrite)
    return dst


@gofunc("mustMerge", (_MAP,), variadic=_MAP, returns="interface {}", fallible=True)
def must_merge(dst: dict[str, Any] | None, *srcs: dict[str, Any] | None) -> dict[str, Any]:
    return _merge_all(dst, srcs, overwrite=False)


plain_variant("merge", "mustMerge")


@gofunc("mustMergeOverwrite", (_MAP,), variadic=_MAP, returns="interface {}", fallible=True)
def must_merge_overwrite(dst: dict[str, Any] | None, *srcs: dict[str, Any] | None) -> dict[str, Any]:
    return _merge_all(dst, srcs, overwrite=True)


plain_variant("mergeOverwrite", "mustMergeOverwrite")


# ------------------------------------------------------------------ copying


def deep_copy(v: Any) -> Any:
    """copystructure.Copy: maps and slices copied all the way down, types kept."""
    if isinstance(v, dict):
        return type(v)({k: deep_copy(x) for k, x in v.items()})
    if isinstance(v, list):
        return type(v)(deep_copy(x) for x in v)
    return v


@gofunc("mustDeepCopy", ("interface {}",), returns="interface {}", fallible=True)
def must_deep_copy(v: Any) -> Any:
    if v is None:  # copystructure asks reflect for the type of nothing and panics
        raise FuncError("reflect: call of reflect.Value.Type on zero Value")
    return deep_copy(v)


plain_variant("deepCopy", "mustDeepCopy")


# ---------------------------------------------------------------------- dig


def _assert_type(v: Any, want: str) -> Any:
    """A Go type assertion v.(want) on an interface {}, with Go's panic text."""
    got = "nil" if v is None else go_type_name(v)
    if got != want:
        raise FuncError(f"interface conversion: interface {{}} is {got}, not {want}")
    return v


@gofunc("dig", (), variadic="interface {}", returns="interface {}", fallible=True)
def dig(*args: Any) -> Any:
    """dig "a" "b" default $dict: the nested value, or default when a key is missing."""
    if len(args) < 3:
        raise FuncError("dig needs at least three arguments")
    current = _assert_type(args[-1], _MAP)
    default = args[-2]
    path = [_assert_type(k, "string") for k in args[:-2]]
    for i, key in enumerate(path):
        if key not in current:
            return default
        if i == len(path) - 1:
            return current[key]
        current = _assert_type(current[key], _MAP)
    return default
