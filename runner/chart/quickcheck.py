"""A small JSON Schema validator for the common case: valid values, common keywords.

Importing `jsonschema` costs ~100 ms, more than a whole `helm template` of a
small chart. `is_valid` answers True / False / None (None: the schema uses
something not handled here: dynamic or remote references, unevaluated*,
asserted formats). Only True is trusted on its own; False and None send the
caller to the full validator, which also writes the messages.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_HANDLED_IGNORED = {
    "$schema", "$id", "id", "$comment", "$defs", "definitions", "title", "description",
    "default", "examples", "deprecated", "readOnly", "writeOnly", "$vocabulary",
    "contentEncoding", "contentMediaType", "contentSchema", "$anchor", "$dynamicAnchor",
    "$recursiveAnchor", "format",
}  # fmt: skip
_UNHANDLED = {"$dynamicRef", "$recursiveRef", "unevaluatedItems", "unevaluatedProperties"}


class _Unsupported(Exception):
    """The schema needs the full validator."""


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _json_type(v: Any, name: str) -> bool:
    if name == "object":
        return isinstance(v, dict)
    if name == "array":
        return isinstance(v, list)
    if name == "string":
        return isinstance(v, str)
    if name == "boolean":
        return isinstance(v, bool)
    if name == "null":
        return v is None
    if name == "number":
        return _is_number(v)
    if name == "integer":
        return _is_number(v) and float(v).is_integer()
    raise _Unsupported


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but booleans are not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


class _Validator:
    def __init__(self, root: Any, draft: str) -> None:
        self.root, self.draft = root, draft
        self.old = draft in ("draft3", "draft4")
        self.following: set[tuple[int, int]] = set()  # $refs being followed, by (target, instance)

    def valid(self, schema: Any, v: Any) -> bool:
        if schema is True or schema == {}:
            return True
        if schema is False:
            return False
        if not isinstance(schema, dict):
            raise _Unsupported
        if "$ref" in schema:
            target = self._resolve(schema["$ref"])
            key = (id(target), id(v))
            if key in self.following:
                raise _Unsupported  # a reference cycle: the full validator reports it
            self.following.add(key)
            try:
                if not self.valid(target, v):
                    return False
            finally:
                self.following.discard(key)
            if self.draft in ("draft3", "draft4", "draft6", "draft7"):
                return True  # siblings of $ref are ignored before 2019-09
        return all(self._keyword(schema, key, v) for key in schema if key != "$ref")

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise _Unsupported
        node = self.root
        for part in ref[1:].split("/")[1:] if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if "%" in part:
                raise _Unsupported
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _Unsupported
        return node

    def _keyword(self, schema: dict[str, Any], key: str, v: Any) -> bool:
        if key in _HANDLED_IGNORED:
            if key == "format" and self.draft in ("draft3", "draft4", "draft6", "draft7"):
                raise _Unsupported  # asserted before 2019-09
            return True
        if key in _UNHANDLED:
            raise _Unsupported
        check = getattr(self, "_k_" + key.replace("$", "_"), None)
        if check is None:
            return True  # unknown keywords are annotations
        return check(schema, schema[key], v)

    # --- any instance -------------------------------------------------------------
    def _k_type(self, _s: dict, want: Any, v: Any) -> bool:
        names = [want] if isinstance(want, str) else want
        return any(_json_type(v, n) for n in names)

    def _k_enum(self, _s: dict, want: list[Any], v: Any) -> bool:
        return any(json_equal(v, w) for w in want)

    def _k_const(self, _s: dict, want: Any, v: Any) -> bool:
        return json_equal(v, want)

    def _k_allOf(self, _s: dict, subs: list[Any], v: Any) -> bool:  # noqa: N802 - keyword name
        return all(self.valid(s, v) for s in subs)

    def _k_anyOf(self, _s: dict, subs: list[Any], v: Any) -> bool:  # noqa: N802
        return any(self.valid(s, v) for s in subs)

    def _k_oneOf(self, _s: dict, subs: list[Any], v: Any) -> bool:  # noqa: N802
        return sum(1 for s in subs if self.valid(s, v)) == 1

    def _k_not(self, _s: dict, sub: Any, v: Any) -> bool:
        return not self.valid(sub, v)

    def _k_if(self, s: dict, sub: Any, v: Any) -> bool:
        if self.valid(sub, v):
            return self.valid(s.get("then", True), v)
        return self.valid(s.get("else", True), v)

    # --- numbers ------------------------------------------------------------------
    def _k_minimum(self, s: dict, bound: Any, v: Any) -> bool:
        if not _is_number(v):
            return True
        return v > bound if self.old and s.get("exclusiveMinimum") is True else v >= bound

    def _k_maximum(self, s: dict, bound: Any, v: Any) -> bool:
        if not _is_number(v):
            return True
        return v < bound if self.old and s.get("exclusiveMaximum") is True else v <= bound

    def _k_exclusiveMinimum(self, _s: dict, bound: Any, v: Any) -> bool:  # noqa: N802
        return isinstance(bound, bool) or not _is_number(v) or v > bound

    def _k_exclusiveMaximum(self, _s: dict, bound: Any, v: Any) -> bool:  # noqa: N802
        return isinstance(bound, bool) or not _is_number(v) or v < bound

    def _k_multipleOf(self, _s: dict, step: Any, v: Any) -> bool:  # noqa: N802
        if not _is_number(v):
            return True
        if isinstance(step, float) or isinstance(v, float):
            quotient = v / step
            return math.isfinite(quotient) and float(quotient).is_integer()
        return v % step == 0

    # --- strings ------------------------------------------------------------------
    def _k_minLength(self, _s: dict, n: Any, v: Any) -> bool:  # noqa: N802
        return not isinstance(v, str) or len(v) >= n

    def _k_maxLength(self, _s: dict, n: Any, v: Any) -> bool:  # noqa: N802
        return not isinstance(v, str) or len(v) <= n

    def _k_pattern(self, _s: dict, pattern: str, v: Any) -> bool:
        return not isinstance(v, str) or _regex(pattern).search(v) is not None

    # --- arrays -------------------------------------------------------------------
    def _k_minItems(self, _s: dict, n: Any, v: Any) -> bool:  # noqa: N802
        return not isinstance(v, list) or len(v) >= n

    def _k_maxItems(self, _s: dict, n: Any, v: Any) -> bool:  # noqa: N802
        return not isinstance(v, list) or len(v) <= n

    def _k_uniqueItems(self, _s: dict, unique: Any, v: Any) -> bool:  # noqa: N802
        if not unique or not isinstance(v, list):
            return True
        return not any(json_equal(v[i], v[j]) for i in range(len(v)) for j in range(i + 1, len(v)))

    def _k_items(self, s: dict, items: Any, v: Any) -> bool:
        if not isinstance(v, list):
            return True
        if isinstance(items, list):  # array form, drafts before 2020-12
            extra = s.get("additionalItems", True)
            return all(
                self.valid(items[i] if i < len(items) else extra, x) for i, x in enumerate(v)
            )
        start = len(s.get("prefixItems", [])) if self.draft == "draft2020" else 0
        return all(self.valid(items, x) for x in v[start:])

    def _k_prefixItems(self, _s: dict, items: list[Any], v: Any) -> bool:  # noqa: N802
        return not isinstance(v, list) or all(
            self.valid(s, x) for s, x in zip(items, v, strict=False)
        )

    def _k_contains(self, s: dict, sub: Any, v: Any) -> bool:
        if not isinstance(v, list):
            return True
        matches = sum(1 for x in v if self.valid(sub, x))
        low = s.get("minContains", 1) if self.draft in ("draft2019", "draft2020") else 1
        high = s.get("maxContains") if self.draft in ("draft2019", "draft2020") else None
        return matches >= low and (high is None or matches <= high)

    # --- objects ------------------------------------------------------------------
    def _k_required(self, _s: dict, names: Any, v: Any) -> bool:
        if not isinstance(v, dict) or not isinstance(names, list):
            return True
        return all(n in v for n in names)

    def _k_minProperties(self, _s: dict, n: Any, v: Any) -> bool:  # noqa: N802
        return not isinstance(v, dict) or len(v) >= n

    def _k_maxProperties(self, _s: dict, n: Any, v: Any) -> bool:  # noqa: N802
        return not isinstance(v, dict) or len(v) <= n

    def _k_properties(self, _s: dict, props: dict[str, Any], v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        return all(self.valid(sub, v[k]) for k, sub in props.items() if k in v)

    def _k_patternProperties(self, _s: dict, props: dict[str, Any], v: Any) -> bool:  # noqa: N802
        if not isinstance(v, dict):
            return True
        return all(
            self.valid(sub, v[k]) for p, sub in props.items() for k in v if _regex(p).search(k)
        )

    def _k_additionalProperties(self, s: dict, sub: Any, v: Any) -> bool:  # noqa: N802
        if not isinstance(v, dict):
            return True
        known = s.get("properties", {})
        patterns = [_regex(p) for p in s.get("patternProperties", {})]
        extra = [k for k in v if k not in known and not any(p.search(k) for p in patterns)]
        return all(self.valid(sub, v[k]) for k in extra)

    def _k_propertyNames(self, _s: dict, sub: Any, v: Any) -> bool:  # noqa: N802
        return not isinstance(v, dict) or all(self.valid(sub, k) for k in v)

    def _k_dependentRequired(self, _s: dict, deps: dict[str, Any], v: Any) -> bool:  # noqa: N802
        if not isinstance(v, dict):
            return True
        return all(all(n in v for n in names) for key, names in deps.items() if key in v)

    def _k_dependentSchemas(self, _s: dict, deps: dict[str, Any], v: Any) -> bool:  # noqa: N802
        if not isinstance(v, dict):
            return True
        return all(self.valid(sub, v) for key, sub in deps.items() if key in v)

    def _k_dependencies(self, _s: dict, deps: dict[str, Any], v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for key, dep in deps.items():
            if key not in v:
                continue
            if isinstance(dep, list):
                if not all(n in v for n in dep):
                    return False
            elif not self.valid(dep, v):
                return False
        return True


def is_valid(schema: Any, values: Any, draft: str) -> bool | None:
    """True/False when this module can decide, None when the full validator must."""
    try:
        return _Validator(schema, draft).valid(schema, values)
    except (_Unsupported, re.error, RecursionError, TypeError):
        return None
