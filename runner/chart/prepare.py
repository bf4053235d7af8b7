"""The chart layer's entry point for rendering: what Helm does between loading and the engine.

`prepare_render_values(chart, user_values)` follows `helm template` /
Install.Run: refuse non-installable charts, warn on deprecated ones, check
that declared subcharts are present, ProcessDependencies (conditions, tags,
aliases, import-values; the chart tree is modified in place, disabled
subcharts removed), CoalesceValues, then values.schema.json of every chart.
The result's `values` is exactly Helm's `.Values` for the top chart; each
subchart's `.Values` is its own table in it (`values[sub.name()]`, alias
names included), taken by the engine as Helm's recAllTpls does.
"""

from __future__ import annotations

from typing import Any

from runner.chart.dependencies import check_dependencies, is_compatible_range, process_dependencies
from runner.chart.errors import ChartError, ValuesError
from runner.chart.model import Chart
from runner.chart.schema import validate_values
from runner.chart.values import Warning, Warnings, coalesce_values
from runner.records import Record


class RenderValues(Record):
    """Coalesced `.Values` of the top chart plus the warnings Helm would log, in order."""

    __slots__ = ("values", "warnings")

    def __init__(self, values: dict[str, Any], warnings: list[Warning]) -> None:
        self.values = values
        self.warnings = warnings

    def warning_lines(self) -> list[str]:
        """The stderr lines, as Helm 4's slog text handler prints them."""
        return [str(w) for w in self.warnings]


def check_installable(chart: Chart) -> None:
    """checkIfInstallable: only application charts (or untyped ones) install."""
    if chart.metadata.type not in ("", "application"):
        raise ChartError(f"{chart.metadata.type} charts are not installable")


def check_kube_version(chart: Chart, kube_version: str) -> None:
    """The chart's kubeVersion constraint against the target, e.g. "v1.35.0"."""
    constraint = chart.metadata.kube_version
    if constraint and not is_compatible_range(constraint, kube_version):
        raise ChartError(
            f"chart requires kubeVersion: {constraint} which is incompatible with Kubernetes {kube_version}"
        )


def prepare_render_values(
    chart: Chart,
    user_values: dict[str, Any] | None = None,
    *,
    skip_schema_validation: bool = False,
) -> RenderValues:
    """Everything from a loaded chart and user values to `.Values` (see the module doc)."""
    user_values = user_values or {}
    warnings = Warnings(list(chart.load_warnings))
    check_installable(chart)
    if chart.metadata.deprecated:
        warnings.warn("this chart is deprecated")
    check_dependencies(chart)
    try:
        process_dependencies(chart, user_values, warnings)
    except ValuesError as exc:
        raise ValuesError(f"chart dependencies processing failed: {exc}") from exc
    values = coalesce_values(chart, user_values, warnings)
    if not skip_schema_validation:
        validate_values(chart, values)
    return RenderValues(values, warnings.items)
