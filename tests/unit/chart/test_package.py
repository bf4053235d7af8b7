"""`helm package` errors compared with Helm 4.1.4's (action.Package.Run, chartutil.Save)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from runner.chart.errors import ChartError
from runner.chart.package import PackageOptions, package_chart
from testbed.helm import helm_binary
from tests.unit.chart._helm import write_chart


def _helm_package_error(chart: Path, destination: Path) -> str:
    proc = subprocess.run([str(helm_binary()), "package", str(chart), "-d", str(destination)],
                          capture_output=True, text=True, check=False)
    return proc.stderr.strip().removeprefix("Error: ") if proc.returncode else ""


def _our_package_error(chart: Path, destination: Path) -> str:
    try:
        package_chart(str(chart), PackageOptions(destination=str(destination)))
    except ChartError as exc:
        return str(exc)
    return ""


# json.Valid: Python's json reads NaN and Infinity, Go's does not; bad UTF-8 in a string is fine.
@pytest.mark.parametrize("schema", [b"", b"NaN", b'{"minimum": -Infinity}', b"{", b'{"a": "\xff"}', b"{}"])
def test_schema_json_is_checked_as_helm_checks_it(tmp_path: Path, schema: bytes) -> None:
    chart = write_chart(tmp_path / "c", {"values.schema.json": schema, "templates/a.yaml": "a: b"})
    helm = _helm_package_error(chart, tmp_path / "helm")
    assert _our_package_error(chart, tmp_path / "ours") == helm


def test_a_destination_that_is_a_file_fails_as_in_helm(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "c", {"templates/a.yaml": "a: b"})
    (tmp_path / "file").write_text("")
    helm = _helm_package_error(chart, tmp_path / "file")
    assert helm and _our_package_error(chart, tmp_path / "file") == helm
