"""Helm's values coalescing (pkg/chart/common/util/coalesce.go) and Values lookups.

Coalescing merges user values over chart defaults: maps merge, everything
else is replaced, a user `null` deletes a default key, subcharts get their
own table (named after the chart, or its alias once dependencies are
processed) with `global` copied down from the parent, parent winning.

Helm logs what it skips ("warning: skipped value for ..."); we collect those
messages as `Warning`s, in the order Helm would print them if Go's map order
were sorted (Go's is random, so only the set of lines is stable).
"""

from __future__ import annotations

from collections.abc import Callable

from runner.chart.logs import Warning, Warnings  # noqa: F401 - re-exported
from runner.golang.types import format_value, go_type_name

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from runner.chart.model import Chart

GLOBAL_KEY = "global"


Printf = Callable[[str], None]


# Leaves of a values tree that need no copy, by exact type: one set lookup per leaf.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def deep_copy(value: Any) -> Any:
    """copystructure.Copy for the plain value trees Helm coalesces (dicts and lists copied).

    Exact types first: a large chart's defaults are copied a few dozen times a run."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SCALARS else deep_copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else deep_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_copy(v) for v in value]
    return value


def coalesce_values(
    chart: Chart, values: dict[str, Any] | None, warnings: Warnings
) -> dict[str, Any]:
    """CoalesceValues: user `values` over the chart tree's defaults, nulls deleting keys."""
    dest = deep_copy(values) if values else {}
    return _coalesce(warnings.info, chart, dest, "", merge=False)


def merge_values(chart: Chart, values: dict[str, Any] | None, warnings: Warnings) -> dict[str, Any]:
    """MergeValues: like coalesce_values but nulls are kept."""
    dest = deep_copy(values) if values else {}
    return _coalesce(warnings.info, chart, dest, "", merge=True)


def _coalesce(
    printf: Printf, chart: Chart, dest: dict[str, Any], prefix: str, merge: bool
) -> dict[str, Any]:
    _coalesce_chart_values(printf, chart, dest, prefix, merge)
    return _coalesce_deps(printf, chart, dest, prefix, merge)


def _coalesce_deps(
    printf: Printf, chart: Chart, dest: dict[str, Any], prefix: str, merge: bool
) -> dict[str, Any]:
    for sub in chart.dependencies:
        name = sub.name()
        if name not in dest:
            dest[name] = {}
        elif not isinstance(dest[name], dict):
            raise _type_mismatch(name, dest[name])
        sub_values = dest[name]
        sub_prefix = _concat(prefix, chart.name())
        _coalesce_globals(printf, sub_values, dest, sub_prefix)
        dest[name] = _coalesce(printf, sub, sub_values, sub_prefix, merge)
    return dest


def _type_mismatch(name: str, value: Any) -> Exception:
    from runner.chart.errors import ValuesError

    shown = (
        ("true" if value else "false")
        if isinstance(value, bool)
        else (f"%!t({go_type_name(value)}={format_value(value)})")
    )
    return ValuesError(f"type mismatch on {name}: {shown}")


def _coalesce_globals(
    printf: Printf, dest: dict[str, Any], src: dict[str, Any], prefix: str
) -> None:
    """Copy src's globals into dest's; tables merge top-down (the parent's win)."""
    dest_globals = dest.get(GLOBAL_KEY, {})
    if not isinstance(dest_globals, dict):
        printf(f"warning: skipping globals because destination {GLOBAL_KEY} is not a table.")
        return
    src_globals = src.get(GLOBAL_KEY, {})
    if not isinstance(src_globals, dict):
        printf(f"warning: skipping globals because source {GLOBAL_KEY} is not a table.")
        return
    for key in sorted(src_globals):
        value = src_globals[key]
        if isinstance(value, dict):
            copied = dict(value)
            if key not in dest_globals:
                dest_globals[key] = copied
            elif not isinstance(dest_globals[key], dict):
                printf(f'Conflict: cannot merge map onto non-map for "{key}". Skipping.')
            else:
                _coalesce_tables(printf, copied, dest_globals[key], _concat(prefix, key), True)
                dest_globals[key] = copied
        elif isinstance(dest_globals.get(key), dict):
            printf(f"key {key} is table. Skipping")
        else:
            dest_globals[key] = value
    dest[GLOBAL_KEY] = dest_globals


def _coalesce_chart_values(
    printf: Printf, chart: Chart, v: dict[str, Any], prefix: str, merge: bool
) -> None:
    """coalesceValues: fill v from a copy of the chart's own defaults."""
    sub_prefix = _concat(prefix, chart.name())
    defaults = deep_copy(chart.values) or {}
    dependency_names = {d.name() for d in chart.dependencies}
    for key in sorted(defaults):
        default = defaults[key]
        if key in v:
            value = v[key]
            if value is None and not merge:
                del v[key]  # a user null deletes the default
            elif isinstance(value, dict):
                if not isinstance(default, dict):
                    if default is not None:
                        printf(f"warning: skipped value for {sub_prefix}.{key}: Not a table.")
                    continue
                key_merge = merge or key in dependency_names
                if not key_merge and prefix:
                    _clean_nils(default)
                _coalesce_tables(printf, value, default, _concat(sub_prefix, key), key_merge)
            continue
        if not merge and prefix:
            # subchart defaults: nulls are skipped so they neither shadow globals nor print
            if default is None:
                continue
            if isinstance(default, dict):
                _clean_nils(default)
        v[key] = default


def coalesce_tables(dst: dict[str, Any], src: dict[str, Any], warnings: Warnings) -> dict[str, Any]:
    """CoalesceTables: src into dst, dst authoritative, nulls in dst delete src keys."""
    return _coalesce_tables(warnings.info, dst, src, "", False)


def merge_tables(dst: dict[str, Any], src: dict[str, Any], warnings: Warnings) -> dict[str, Any]:
    """MergeTables: like coalesce_tables but nulls are kept."""
    return _coalesce_tables(warnings.info, dst, src, "", True)


def _coalesce_tables(
    printf: Printf, dst: dict[str, Any] | None, src: dict[str, Any] | None, prefix: str, merge: bool
) -> dict[str, Any] | None:
    if src is None:
        return dst
    if dst is None:
        return src
    src_non_nil = {key for key, value in src.items() if value is not None}
    for key, value in dst.items():
        if value is None:
            src[key] = None
    for key in sorted(src):
        value = src[key]
        full_key = _concat(prefix, key)
        present = key in dst
        dv = dst.get(key)
        if present and not merge and dv is None and key in src_non_nil:
            del dst[key]  # the user nulled a chart default
        elif not present:
            dst[key] = value
        elif isinstance(value, dict):
            if isinstance(dv, dict):
                _coalesce_tables(printf, dv, value, full_key, merge)
            else:
                printf(
                    f"warning: cannot overwrite table with non table for {full_key} ({format_value(value)})"
                )
        elif isinstance(dv, dict) and value is not None:
            printf(
                f"warning: destination for {full_key} is a table. "
                f"Ignoring non-table value ({format_value(value)})"
            )
    return dst


def _clean_nils(table: dict[str, Any]) -> None:
    for key in list(table):
        value = table[key]
        if value is None:
            del table[key]
        elif isinstance(value, dict):
            _clean_nils(value)


def _concat(a: str, b: str) -> str:
    return b if not a else f"{a}.{b}"


# --- Values lookups (pkg/chart/common/values.go) ---------------------------------


class NoValue(LookupError):
    """ErrNoValue / ErrNoTable: the path does not lead to a value."""


def table(values: dict[str, Any], name: str) -> dict[str, Any]:
    """Values.Table: the table at a dotted path; NoValue(`"<key>" is not a table`)."""
    current = values
    for part in name.split("."):
        nxt = current.get(part, _MISSING) if isinstance(current, dict) else _MISSING
        if not isinstance(nxt, dict):
            raise NoValue(f'"{part}" is not a table')
        current = nxt
    return current


def path_value(values: dict[str, Any], path: str) -> Any:
    """Values.PathValue: a non-table value at a dotted path."""
    if not path:
        raise ValueError("YAML path cannot be empty")
    parts = path.split(".")
    key = parts[-1]
    if len(parts) == 1:
        holder: Any = values
    else:
        try:
            holder = table(values, ".".join(parts[:-1]))
        except NoValue:
            raise NoValue(f"no value for key {key}") from None
    if key in holder and not isinstance(holder[key], dict):
        return holder[key]
    raise NoValue(f"no value for key {key}")


_MISSING = object()


def scoped_values(chart: Chart, values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """`.Values` of every chart of the tree, keyed by chart_full_path (Helm's recAllTpls).

    A subchart sees `Table("Values." + name)` of its parent's values: its own table,
    or an empty map when that is missing or not a table (a dotted chart name
    splits into a path there too, as in Helm).
    """
    out = {chart.chart_full_path(): values}
    for sub in chart.dependencies:
        try:
            sub_values = table(values, sub.name())
        except NoValue:
            sub_values = {}
        out.update(scoped_values(sub, sub_values))
    return out
