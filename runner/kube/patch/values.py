"""JSON values as Go's apimachinery sees them after a json round trip.

apimachinery decodes integral numbers as int64 and the rest as float64, and
compares with reflect.DeepEqual (types matter: 1 is not 1.0, true is not 1)
and interface `==`. Sorting compares `fmt.Sprintf("%v", v)` strings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

_INT64 = 2**63


def normalize(value: Any) -> Any:
    """A deep copy with Go's decoding: integral floats in int64 range become ints."""
    if isinstance(value, Mapping):
        return {str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalize(v) for v in value]
    if isinstance(value, float) and value.is_integer() and -_INT64 <= value < _INT64:
        return int(value)
    return value


def same(a: Any, b: Any) -> bool:
    """Go interface `==` on scalars (type and value)."""
    return type(a) is type(b) and a == b


def deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual on decoded JSON."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(deep_equal(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def go_str(value: Any) -> str:
    """fmt.Sprintf("%v", value) for a decoded JSON scalar."""
    if isinstance(value, str):
        return value
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        from runner.golang.strconv import format_float_v

        return format_float_v(value)
    return str(value)


def go_sort(items: list[Any], key: Callable[[Any], str]) -> list[Any]:
    """sort.Sort with apimachinery's `Less = StringsAreSorted(a, b)` (a <= b).

    For the short lists of a manifest Go runs an insertion sort, where that
    `<=` moves each element before its equals: equal keys end up in reverse
    order. Reproduced so duplicate merge keys pair up as they do in Go.
    """
    ordered = sorted(enumerate(items), key=lambda pair: (key(pair[1]), -pair[0]))
    return [item for _, item in ordered]


def dedupe_scalars(items: list[Any]) -> list[Any]:
    """deduplicateScalars: drops repeats by moving the last element into their place."""
    out = list(items)
    last = len(out) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if same(out[i], out[j]):
                out[j] = out[last]
                out = out[:last]
                last -= 1
                j -= 1
            j += 1
        i += 1
    return out
