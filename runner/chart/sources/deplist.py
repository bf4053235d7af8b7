"""`dependency list` (Helm's action.Dependency.List): a status table and stray charts."""

from __future__ import annotations

import glob
import os
import re

from runner.chart.errors import ChartError
from runner.chart.model import Chart, Dependency
from runner.chart.sources.messages import NOTICE, Say
from runner.encoding.uitable import render_table
from runner.golang import semver


def _load(path: str) -> Chart:
    from runner.chart.loader import load_chart

    return load_chart(path)


def list_dependencies(chart_path: str, *, say: Say) -> None:
    """Dependency.List: the status table and the stray charts under charts/, said to `say`
    as Helm prints them (all on stdout, its warnings too)."""
    chart = _load(chart_path)
    deps = chart.metadata.dependencies
    if not chart.metadata.dependencies_declared:
        say(NOTICE, f"WARNING: no dependencies at {os.path.join(chart_path, 'charts')}")
        return
    rows = [["NAME", "VERSION", "REPOSITORY", "STATUS"]]
    rows += [
        [d.name, d.version, d.repository, dependency_status(chart_path, d, chart)] for d in deps
    ]
    say(NOTICE, render_table(rows, max_col_width=80))
    say(NOTICE, "")
    _say_missing(chart_path, deps, say)


def _version_status(version: str, dep: Dependency) -> str:
    if version == dep.version:
        return ""
    try:
        constraint = semver.new_constraint(dep.version)
        parsed = semver.new_version(version)
    except semver.SemverError:
        return "invalid version"
    return "" if constraint.check(parsed) else "wrong version"


def _archive_status(archive: str, dep: Dependency) -> str:
    try:
        chart = _load(archive)
    except ChartError:
        return "corrupt"
    if chart.name() != dep.name:
        return "misnamed"
    return _version_status(chart.metadata.version, dep) or "ok"


def _is_strict_semver(text: str) -> bool:
    """semver.StrictNewVersion accepts it."""
    return (
        re.fullmatch(
            r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
            r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
            r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?",
            text,
        )
        is not None
    )


def dependency_status(chart_path: str, dep: Dependency, parent: Chart) -> str:
    archives = sorted(
        glob.glob(os.path.join(chart_path, "charts", f"{glob.escape(dep.name)}-*.tgz"))
    )
    if len(archives) > 1:
        found = [
            a
            for a in archives
            if _is_strict_semver(os.path.basename(a)[: -len(".tgz")].removeprefix(f"{dep.name}-"))
        ]
        if len(found) > 1:
            return "too many matches"
        archives = found
    if len(archives) == 1:
        return _archive_status(archives[0], dep)
    unpacked = next((c for c in parent.dependencies if c.name() == dep.name), None)
    if unpacked is None:
        return "missing"
    return _version_status(unpacked.metadata.version, dep) or "unpacked"


def _say_missing(chart_path: str, deps: list[Dependency], say: Say) -> None:
    names = {d.name for d in deps}
    for path in sorted(glob.glob(os.path.join(chart_path, "charts", "*"))):
        if not os.path.isdir(path) and not path.endswith(".tgz"):
            continue
        try:
            chart = _load(path)
        except ChartError:
            say(NOTICE, f'WARNING: "{path}" is not a chart.')
            continue
        if chart.name() not in names:
            say(NOTICE, f'WARNING: "{path}" is not in Chart.yaml.')
