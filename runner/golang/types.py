"""The Go value model: the type markers, Go type names, kinds, truth and `%v`.

Python values stand for Go values as docs/engine.md ("Go values in Python")
lays out. Objects that stand for Go structs may define:

- `go_type` (class attribute): the `%T` name, e.g. "*chart.Metadata";
- `go_kind` (class attribute): the reflect Kind name, "ptr" when absent;
- `String()` (method): Go's fmt.Stringer, used by `%v`, `%s`, `%q`, `%x`;
- `__go_str__()` (method): the `%v` text when the Go type has no String
  method (e.g. "{a b}" for a struct);
- `go_fields()` (method, with `go_kind = "struct"`): [(Go field name, value)]
  in declaration order, for `%+v`, `%#v` and verbs applied field by field;
- `go_string_addr_only` (class attribute): String has a pointer receiver on a
  struct held by value, so only an addressable field prints through it
  (`{{ .Capabilities.KubeVersion }}`); fmt and copies print the struct;
- `go_elem_str()` (method): for a pointer to a struct without String, the
  struct's `%v` (text/template indirects pointers before printing: no "&");
- `go_nil` (class attribute): a typed nil map or slice (NilMap, NilSlice, ...).

`format_value` is fmt's `%v` of one value; the other verbs are
runner.golang.fmt, and how text/template prints a value (`<no value>`,
addressable Stringers) is runner.template.values.

Everything here sits on the rendering hot path: dispatch is by exact type
through dicts, with isinstance only as a fallback for unusual subclasses.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from runner.golang.strconv import format_complex, format_float_v

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def is_time(v: object) -> bool:
    """Whether v is a Go time.Time: a datetime (or runner.golang.time.GoTime).

    Most renders make no time value, so `datetime` (~1 ms) is not imported to
    ask: whatever makes one (the date functions, fromToml, PyYAML) has
    imported the module first, and until then no value can be a datetime.
    Time values therefore sit in no exact-type table; they take the fallbacks."""
    module = sys.modules.get("datetime")
    return module is not None and isinstance(v, module.datetime)


class Int64(int):
    """Go int64 (Sprig math results, `--set` integers, the `int64` function)."""

    __slots__ = ()
    go_type = "int64"


class Uint64(int):
    """Go uint64 (semver's Major, Minor, Patch)."""

    __slots__ = ()
    go_type = "uint64"
    go_kind = "uint64"


class Uint8(int):
    """Go uint8: an element of a []byte seen on its own (reflection, fmt)."""

    __slots__ = ()
    go_type = "uint8"
    go_kind = "uint8"


class Duration(Int64):
    """Go time.Duration: nanoseconds, printed as `1h0m0s` by `%v`."""

    __slots__ = ()
    go_type = "time.Duration"

    def String(self) -> str:  # noqa: N802 - Go's method name
        from runner.golang.time import duration_string  # a Duration comes from time code: loaded

        return duration_string(self)


class StringSlice(list):
    """Go []string (splitList, keys, toStrings, ...)."""

    __slots__ = ()
    go_type = "[]string"


class IntSlice(list):
    """Go []int (until, untilStep)."""

    __slots__ = ()
    go_type = "[]int"


class StringMap(dict):
    """Go map[string]string (split, splitn)."""

    __slots__ = ()
    go_type = "map[string]string"


class HelmValues(dict):
    """Helm's common.Values: the type of a template's top-level scope (`.`), of `.Values`
    (every chart's) and of `.Template`. Its underlying type is map[string]interface {}:
    Go passes it to parameters of that type, while typeOf, `%T`, `%#v` and type
    assertions (dig) see its own name.

    Go retypes one map where Python needs two objects: a subchart's `.Values` is the
    parent's `.Values.<sub>` (a plain map there). `mirrored(table)` gives a copy whose
    writes (set, unset, merge) also reach the original, so the parent still sees them."""

    __slots__ = ("_mirror",)
    go_type = "common.Values"
    go_underlying = "map[string]interface {}"

    @classmethod
    def mirrored(cls, original: dict[Any, Any]) -> HelmValues:
        values = cls(original)
        values._mirror = original
        return values

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        mirror = getattr(self, "_mirror", None)
        if mirror is not None:
            mirror[key] = value

    def pop(self, key: Any, *default: Any) -> Any:
        mirror = getattr(self, "_mirror", None)
        if mirror is not None:
            mirror.pop(key, None)
        return dict.pop(self, key, *default)


class NilMap(dict):
    """A nil Go map[string]interface {} (fromJson "null"): no entries, prints `map[]`,
    encodes as JSON null (go-yaml v3: `{}`). Always a fresh instance: Go panics on
    assignment to a nil map, here it would just stop being nil."""

    __slots__ = ()
    go_nil = True


class NilStringMap(StringMap):
    """A nil Go map[string]string (.Chart.Annotations of a chart without them)."""

    __slots__ = ()
    go_nil = True


class NilSlice(list):
    """A nil Go []interface {} (rest of an empty list, fromJsonArray "null"): prints `[]`,
    encodes as JSON null (go-yaml v3: `[]`)."""

    __slots__ = ()
    go_nil = True


class NilStringSlice(StringSlice):
    """A nil Go []string (regexFindAll without a match)."""

    __slots__ = ()
    go_nil = True


def is_go_nil(v: Any) -> bool:
    """A typed nil map or slice (not Python None, Go's untyped nil)."""
    return getattr(v, "go_nil", False) is True


# ---------------------------------------------------------------- type names

_NIL_TYPE = type(None)

_TYPE_NAMES: dict[type, str] = {
    _NIL_TYPE: "<nil>",
    bool: "bool",
    int: "int",
    Int64: "int64",
    Uint64: "uint64",
    Duration: "time.Duration",
    float: "float64",
    str: "string",
    bytes: "[]uint8",
    bytearray: "[]uint8",
    list: "[]interface {}",
    tuple: "[]interface {}",
    StringSlice: "[]string",
    IntSlice: "[]int",
    dict: "map[string]interface {}",
    StringMap: "map[string]string",
    HelmValues: "common.Values",
    complex: "complex128",
}

# Subclass fallbacks, checked in order after the exact-type table misses.
_BASE_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "bool"),
    (int, "int"),
    (float, "float64"),
    (str, "string"),
    (bytes, "[]uint8"),
    (list, "[]interface {}"),
    (dict, "map[string]interface {}"),
)


def go_type_name(v: Any) -> str:
    """Go's `%T` of a value: "float64", "[]interface {}", "<nil>", ..."""
    name = _TYPE_NAMES.get(type(v))
    if name is not None:
        return name
    name = getattr(v, "go_type", None)
    if name is not None:
        return name
    for base, base_name in _BASE_TYPE_NAMES:
        if isinstance(v, base):
            return base_name
    return "time.Time" if is_time(v) else type(v).__name__


_KINDS: dict[type, str] = {
    _NIL_TYPE: "invalid",
    bool: "bool",
    int: "int",
    Int64: "int64",
    Uint64: "uint64",
    Duration: "int64",
    float: "float64",
    str: "string",
    bytes: "slice",
    bytearray: "slice",
    list: "slice",
    tuple: "slice",
    StringSlice: "slice",
    IntSlice: "slice",
    dict: "map",
    StringMap: "map",
    HelmValues: "map",
    complex: "complex128",
}

_BASE_KINDS: tuple[tuple[type, str], ...] = (
    (bool, "bool"),
    (Int64, "int64"),
    (int, "int"),
    (float, "float64"),
    (str, "string"),
    (bytes, "slice"),
    (list, "slice"),
    (dict, "map"),
)


def kind_of(v: Any) -> str:
    """reflect.ValueOf(v).Kind().String(): "map", "slice", "int64", "invalid", ..."""
    kind = _KINDS.get(type(v))
    if kind is not None:
        return kind
    kind = getattr(v, "go_kind", None)
    if kind is not None:
        return kind
    for base, base_kind in _BASE_KINDS:
        if isinstance(v, base):
            return base_kind
    return "struct" if is_time(v) else "ptr"  # Go objects with methods are pointers to structs


# --------------------------------------------------------------------- truth

# Types whose Go truth is Python's bool(): zero numbers, empty strings and
# collections are false (float NaN is true in both languages).
_PLAIN_TRUTH = frozenset(
    {
        bool,
        int,
        Int64,
        Uint64,
        Duration,
        float,
        str,
        bytes,
        bytearray,
        list,
        tuple,
        StringSlice,
        IntSlice,
        dict,
        StringMap,
        HelmValues,
        complex,
    }
)


def is_true(v: Any) -> tuple[bool, bool]:
    """text/template's IsTrue: (truth, ok). Structs and non-nil pointers are true."""
    if v is None:
        return False, True
    if type(v) in _PLAIN_TRUTH:
        return bool(v), True
    if isinstance(v, (int, float, str, bytes, list, tuple, dict)):
        return bool(v), True
    return True, True


def truth(v: Any) -> bool:
    """Just the truth of is_true (every Python value is ok)."""
    if v is None:
        return False
    if type(v) in _PLAIN_TRUTH:
        return bool(v)
    return is_true(v)[0]


def is_empty(v: Any) -> bool:
    """Sprig's `empty`: nil, zero numbers, false, "" and empty collections.

    Differs from template truth only in name; structs (time.Time, objects)
    are never empty.
    """
    return not truth(v)


# --------------------------------------------------------------- %v printing


def time_text(t: Any) -> str:
    """time.Time.String() of a datetime (whatever made t has imported datetime)."""
    from runner.golang.time import time_string

    return time_string(t)


def _duration_text(d: int) -> str:
    """time.Duration.String(): runner.golang.time (and datetime) load on first use."""
    from runner.golang.time import duration_string

    return duration_string(d)


def sort_map_keys(keys: list[Any]) -> list[Any]:
    """fmt's map key order (internal/fmtsort): strings and numbers ascending."""
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=lambda k: (go_type_name(k), str(k)))


def _format_list(v: Any) -> str:
    return "[" + " ".join([format_value(e) for e in v]) + "]"


def _format_map(v: dict[Any, Any]) -> str:
    parts = [f"{format_value(k)}:{format_value(v[k])}" for k in sort_map_keys(list(v))]
    return "map[" + " ".join(parts) + "]"


def _format_bytes(v: bytes) -> str:
    return "[" + " ".join([str(b) for b in v]) + "]"


def format_object(v: Any) -> str:
    """Stringer first (not a pointer-receiver String of a struct passed by value:
    go_string_addr_only), then the object's own %v text, then Python's str."""
    method = getattr(v, "String", None)
    if callable(method) and not getattr(v, "go_string_addr_only", False):
        return method()
    method = getattr(v, "__go_str__", None)
    if callable(method):
        return method()
    if isinstance(v, (list, tuple)):
        return _format_list(v)
    if isinstance(v, dict):
        return _format_map(v)
    if is_time(v):
        return time_text(v)
    return str(v)


FORMATTERS: dict[type, Callable[[Any], str]] = {
    str: str.__str__,
    bool: lambda v: "true" if v else "false",
    int: int.__repr__,
    Int64: int.__repr__,
    Uint64: int.__repr__,
    Uint8: int.__repr__,
    Duration: _duration_text,
    float: format_float_v,
    _NIL_TYPE: lambda v: "<nil>",
    list: _format_list,
    tuple: _format_list,
    StringSlice: _format_list,
    IntSlice: _format_list,
    dict: _format_map,
    StringMap: _format_map,
    HelmValues: _format_map,
    bytes: _format_bytes,
    bytearray: _format_bytes,
    complex: format_complex,
}


def format_value(v: Any) -> str:
    """fmt.Sprint(v) of one value: Go's %v (`1e+06`, `map[a:1]`, `[a b]`, `<nil>`)."""
    formatter = FORMATTERS.get(type(v))
    if formatter is not None:
        return formatter(v)
    return format_object(v)
