"""crds/ rules (Helm's lint/rules/crds.go): plain YAML, CustomResourceDefinitions only."""

from __future__ import annotations

import os

from runner.chart.logs import Warnings
from runner.lint.chartload import load_v2
from runner.lint.k8syaml import DecodeError, K8sObject, decode_objects
from runner.lint.support import ERROR, Linter

CRDS_DIR = "crds/"


def lint_crds(linter: Linter, warnings: Warnings) -> None:
    path = os.path.join(linter.chart_dir, CRDS_DIR.rstrip("/"))
    if not os.path.exists(path):
        return
    if not linter.run_rule(ERROR, CRDS_DIR, None if os.path.isdir(path) else "not a directory"):
        return
    chart, load_warnings, error = load_v2(linter.chart_dir)
    warnings.items.extend(load_warnings)
    if not linter.run_rule(ERROR, CRDS_DIR, error) or chart is None:
        return
    for _full_name, crd in chart.crd_objects():
        if not _lint_crd_file(linter, crd.name, crd.data.decode("utf-8", "surrogateescape")):
            return


def _lint_crd_file(linter: Linter, name: str, text: str) -> bool:
    try:
        for obj in decode_objects(text):
            if obj is not None:
                linter.run_rule(ERROR, name, validate_crd_api_version(obj))
                linter.run_rule(ERROR, name, validate_crd_kind(obj))
    except DecodeError as exc:
        linter.run_rule(ERROR, name, f"unable to parse YAML: {exc}")
        return False
    return True


def validate_crd_api_version(obj: K8sObject) -> str | None:
    if not obj.api_version.startswith("apiextensions.k8s.io"):
        return "apiVersion is not in 'apiextensions.k8s.io'"
    return None


def validate_crd_kind(obj: K8sObject) -> str | None:
    if obj.kind != "CustomResourceDefinition":
        return "object kind is not 'CustomResourceDefinition'"
    return None
