"""Helm's ProcessDependencies (pkg/chart/v2/util/dependencies.go) and its checks.

`process_dependencies(chart, user_values, warnings)` mutates the chart tree
the way Helm does before rendering: aliased subcharts become renamed copies,
subcharts disabled by `tags` or `condition` are removed (from the chart and
from `metadata.dependencies`), and `import-values` are merged into each
parent's values (child tables under the parent's keys, parent values win).
"""

from __future__ import annotations

from runner.chart.errors import DependencyError
from runner.chart.model import Chart, Dependency, Metadata
from runner.chart.values import (
    NoValue,
    Warnings,
    coalesce_values,
    deep_copy,
    merge_tables,
    merge_values,
    path_value,
    table,
)
from runner.golang.types import StringMap, format_value

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def is_compatible_range(constraint: str, version: str) -> bool:
    """chartutil.IsCompatibleRange: Masterminds constraint check, False on any parse error."""
    from runner.golang.semver import new_constraint, new_version

    try:
        return new_constraint(constraint).check(new_version(version))
    except ValueError:
        return False


def check_dependencies(chart: Chart) -> None:
    """action.CheckDependencies with the CLI's wrapping: every declared subchart is present."""
    declared = chart.metadata.dependencies
    if not declared:
        return
    present = {d.name() for d in chart.dependencies}
    missing = [d.name for d in declared if d is not None and d.name not in present]
    if missing:
        raise DependencyError(
            "an error occurred while checking for chart dependencies. You may need to run "
            "`helm dependency build` to fetch missing dependencies: found in Chart.yaml, "
            f"but missing in charts/ directory: {', '.join(missing)}"
        )


def process_dependencies(chart: Chart, user_values: dict[str, Any], warnings: Warnings) -> None:
    """ProcessDependencies: enable/disable subcharts, then import values (merge mode)."""
    _process_enabled(chart, user_values, "", warnings)
    _process_import_values_tree(chart, warnings)


def _process_enabled(chart: Chart, values: dict[str, Any], path: str, warnings: Warnings) -> None:
    declared = chart.metadata.dependencies
    if not declared and not chart.metadata.dependencies_declared:
        return  # Go: Dependencies == nil
    kept: list[Chart] = []
    for existing in chart.dependencies:  # subcharts not declared in Chart.yaml stay as they are
        if not any(
            req is not None
            and existing.name() == req.name
            and is_compatible_range(req.version, existing.metadata.version)
            for req in declared
        ):
            kept.append(existing)
    for req in declared:
        aliased = _alias_copy(chart.dependencies, req)
        if aliased is not None:
            kept.append(aliased)
        if req.alias:
            req.name = req.alias
    chart.set_dependencies(kept)
    for req in declared:
        req.enabled = True
    resolved = coalesce_values(chart, values, warnings)
    _apply_tags(declared, resolved, warnings)
    _apply_conditions(declared, resolved, path, warnings)
    disabled = {req.name for req in declared if not req.enabled}
    enabled_charts = [c for c in chart.dependencies if c.metadata.name not in disabled]
    enabled_reqs = [req for req in declared if req.name not in disabled]
    for sub in enabled_charts:
        _process_enabled(sub, resolved, f"{path}{sub.metadata.name}.", warnings)
    chart.metadata.dependencies = enabled_reqs
    chart.metadata.dependencies_declared = bool(enabled_reqs)  # append(nil, ...) stays nil
    chart.set_dependencies(enabled_charts)


def _alias_copy(charts: list[Chart], req: Dependency) -> Chart | None:
    """getAliasDependency: a shallow copy of the matching subchart, renamed to the alias."""
    for candidate in charts:
        if candidate.name() != req.name:
            continue
        if not is_compatible_range(req.version, candidate.metadata.version):
            continue
        out = candidate.shallow_copy()
        out.metadata = _copy_metadata(candidate.metadata)
        out.set_dependencies([child.shallow_copy() for child in candidate.dependencies])
        if req.alias:
            out.metadata.name = req.alias
        return out
    return None


def _copy_metadata(md: Metadata) -> Metadata:
    out = md.replace()
    out.dependencies = [d.replace() for d in md.dependencies]
    return out


def _apply_tags(reqs: list[Dependency], values: dict[str, Any], warnings: Warnings) -> None:
    try:
        tags = table(values, "tags")
    except NoValue:
        return
    for req in reqs:
        has_true = has_false = False
        for tag in req.tags:
            if tag not in tags:
                continue
            value = tags[tag]
            if isinstance(value, bool):
                has_true, has_false = has_true or value, has_false or not value
            else:
                warnings.warn("returned non-bool value", tag=tag, chart=req.name)
        if not has_true and has_false:
            req.enabled = False
        else:
            req.enabled = True


def _apply_conditions(
    reqs: list[Dependency], values: dict[str, Any], path: str, warnings: Warnings
) -> None:
    for req in reqs:
        for condition in req.condition.strip().split(","):
            if not condition:
                continue
            try:
                value = path_value(values, path + condition)
            except NoValue:
                continue
            if isinstance(value, bool):
                req.enabled = value
                break
            warnings.warn("returned non-bool value", path=condition, chart=req.name)


def _process_import_values_tree(chart: Chart, warnings: Warnings) -> None:
    for sub in chart.dependencies:
        _process_import_values_tree(sub, warnings)
    _process_import_values(chart, warnings)


def _process_import_values(chart: Chart, warnings: Warnings) -> None:
    """processImportValues(merge=true): child tables merged under the parent's values.

    Imported tables are shared, not copied, exactly as in Go: two imports of
    one child table into different parent keys alias each other.
    """
    if not chart.metadata.dependencies and not chart.metadata.dependencies_declared:
        return
    merged = merge_values(chart, None, warnings)
    imported: dict[str, Any] = {}
    for req in chart.metadata.dependencies:
        rewritten: list[Any] = []
        for entry in req.import_values:
            if isinstance(entry, dict):
                child = _sprint(entry.get("child"))
                parent = _sprint(entry.get("parent"))
                rewritten.append(StringMap({"child": child, "parent": parent}))
                try:
                    found = table(merged, f"{req.name}.{child}")
                except NoValue as exc:
                    warnings.warn(
                        "ImportValues missing table from chart", chart=req.name, error=str(exc)
                    )
                    continue
                imported = merge_tables(imported, _path_to_map(parent, found), warnings)
            elif isinstance(entry, str):
                child = f"exports.{entry}"
                rewritten.append(StringMap({"child": child, "parent": "."}))
                try:
                    found = table(merged, f"{req.name}.{child}")
                except NoValue as exc:
                    warnings.warn("ImportValues missing table", error=str(exc))
                    continue
                imported = merge_tables(imported, found, warnings)
        req.import_values = rewritten
    if not imported:  # nothing can alias into merged, which is this function's own tree
        chart.values = merged
        return
    chart.values = merge_tables(deep_copy(merged), imported, warnings)


def _sprint(value: Any) -> str:
    """fmt.Sprintf("%v", v) for an import-values child/parent entry."""
    if value is None:
        return "<nil>"
    return value if isinstance(value, str) else format_value(value)


def _path_to_map(path: str, data: dict[str, Any]) -> dict[str, Any]:
    if path == ".":
        return data
    current: dict[str, Any] = data
    for part in reversed(path.split(".")):
        current = {part: current}
    return current
