"""What a test asks an install, upgrade or diff for: a DeployRequest, and its chart and values
as runner.actions.prepare.chart_input hands them on (a local chart, values already merged)."""

from __future__ import annotations

from typing import Any

from runner.actions.prepare import ChartInput, DeployRequest, InstallOptions, UpgradeOptions
from runner.actions.template import RenderOptions

RENDER_FLAGS = ("skip_schema_validation", "render_subchart_notes", "post_renderer", "release_history_max",
                "include_history_values")


def asked(name: str, chart: str, values: dict[str, Any] | None = None, *,
          own: InstallOptions | UpgradeOptions | None = None, secret_values: list[Any] | None = None,
          **flags: Any) -> tuple[DeployRequest, ChartInput]:
    """(request, given) for release `name` of the chart at `chart`; `own`: the command's own
    options; the render flags among `flags` go to the request's RenderOptions."""
    render = RenderOptions(**{key: flags.pop(key) for key in RENDER_FLAGS if key in flags})
    owned: dict[str, Any] = {}
    if isinstance(own, InstallOptions):
        owned["install"] = own
    elif isinstance(own, UpgradeOptions):
        owned["upgrade"] = own
    request = DeployRequest(name=name, chart=chart, render=render, **owned, **flags)
    return request, ChartInput(chart, dict(values or {}), list(secret_values or []))
