"""Dependency rules (Helm's lint/rules/dependencies.go): Chart.yaml and charts/ agree."""

from __future__ import annotations

from runner.chart.logs import Warnings
from runner.chart.model import Chart
from runner.lint.chartload import load_v2
from runner.lint.support import ERROR, WARNING, Linter


def lint_dependencies(linter: Linter, warnings: Warnings) -> None:
    chart, load_warnings, error = load_v2(linter.chart_dir)
    warnings.items.extend(load_warnings)
    if not linter.run_rule(ERROR, "", error and f"unable to load chart\n\t{error}") or chart is None:
        return
    linter.run_rule(ERROR, linter.chart_dir, validate_dependency_in_metadata(chart))
    linter.run_rule(ERROR, linter.chart_dir, validate_dependencies_unique(chart))
    linter.run_rule(WARNING, linter.chart_dir, validate_dependency_in_charts_dir(chart))


def validate_dependency_in_charts_dir(chart: Chart) -> str | None:
    present = {dep.metadata.name for dep in chart.dependencies}
    missing = [d.name for d in chart.metadata.dependencies if d is not None and d.name not in present]
    return f"chart directory is missing these dependencies: {','.join(missing)}" if missing else None


def validate_dependency_in_metadata(chart: Chart) -> str | None:
    declared = {d.name for d in chart.metadata.dependencies if d is not None}
    missing = [dep.metadata.name for dep in chart.dependencies if dep.metadata.name not in declared]
    return f"chart metadata is missing these dependencies: {','.join(missing)}" if missing else None


def validate_dependencies_unique(chart: Chart) -> str | None:
    seen: set[str] = set()
    shadowing: list[str] = []
    for dep in chart.metadata.dependencies:
        if dep is None:
            continue
        key = dep.alias or dep.name
        if key in seen:
            shadowing.append(key)
        seen.add(key)
    return f"multiple dependencies with name or alias: {','.join(shadowing)}" if shadowing else None
