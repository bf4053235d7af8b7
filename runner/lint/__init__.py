"""Helm 4.1.4's chart linter (pkg/chart/v2/lint): one module per rule family, as Helm's rules/.

`run_all(chart_dir, values, ...)` runs Chartfile, Values, Templates,
Dependencies and CRDs rules in Helm's order and returns the Linter with
its messages; the stderr lines Helm would log are collected in `warnings`.
Then deploy-runner's own: .Release.History used without a guard (runner.lint.history).
"""

from __future__ import annotations

import os
from typing import Any

from runner.chart.logs import Warnings
from runner.lint.chartfile import lint_chartfile
from runner.lint.crds import lint_crds
from runner.lint.dependencies import lint_dependencies
from runner.lint.history import lint_history
from runner.lint.support import Linter
from runner.lint.templates import TemplateOptions, lint_templates
from runner.lint.values import lint_values

__all__ = ["Linter", "TemplateOptions", "run_all"]


def run_all(chart_dir: str, opts: TemplateOptions, warnings: Warnings) -> Linter:
    """lint.RunAll: every rule family on one chart directory."""
    linter = Linter(os.path.abspath(chart_dir))
    values: dict[str, Any] = opts.values
    lint_chartfile(linter)
    lint_values(linter, values, opts.skip_schema, warnings)
    lint_templates(linter, opts, warnings)
    lint_dependencies(linter, warnings)
    lint_crds(linter, warnings)
    lint_history(linter)
    return linter
