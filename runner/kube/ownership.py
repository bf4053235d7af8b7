"""Helm's release ownership of objects (pkg/action/validate.go).

An object belongs to a release when it carries the label
app.kubernetes.io/managed-by=Helm and the annotations meta.helm.sh/release-name
and meta.helm.sh/release-namespace naming that release. Objects that exist
but belong elsewhere block install/upgrade unless --take-ownership.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.errors import RunnerError
from runner.kube.apply import get_live
from runner.kube.client import KubeClient
from runner.kube.resources import Resource

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY_HELM = "Helm"
RELEASE_NAME_ANNOTATION = "meta.helm.sh/release-name"
RELEASE_NAMESPACE_ANNOTATION = "meta.helm.sh/release-namespace"


class OwnershipError(RunnerError):
    """An existing object belongs to another release (or to no release)."""


def set_release_metadata(resources: Sequence[Resource], name: str, namespace: str) -> None:
    """setMetadataVisitor with force: stamp the release's label and annotations."""
    for resource in resources:
        meta = resource.obj.setdefault("metadata", {})
        labels = meta.get("labels") or {}
        labels[MANAGED_BY_LABEL] = MANAGED_BY_HELM
        meta["labels"] = labels
        annotations = meta.get("annotations") or {}
        annotations[RELEASE_NAME_ANNOTATION] = name
        annotations[RELEASE_NAMESPACE_ANNOTATION] = namespace
        meta["annotations"] = annotations


def ownership_problem(live: dict[str, Any], name: str, namespace: str) -> str:
    """checkOwnership's text, or "" when the object is the release's."""
    meta = live.get("metadata") or {}
    labels, annotations = meta.get("labels") or {}, meta.get("annotations") or {}
    errors = []
    if problem := _require(labels, MANAGED_BY_LABEL, MANAGED_BY_HELM):
        errors.append(f"label validation error: {problem}")
    if problem := _require(annotations, RELEASE_NAME_ANNOTATION, name):
        errors.append(f"annotation validation error: {problem}")
    if problem := _require(annotations, RELEASE_NAMESPACE_ANNOTATION, namespace):
        errors.append(f"annotation validation error: {problem}")
    return f"invalid ownership metadata; {'; '.join(errors)}" if errors else ""


def _require(values: dict[str, str], key: str, want: str) -> str:
    if key not in values:
        return f'missing key "{key}": must be set to "{want}"'
    if values[key] != want:
        return f'key "{key}" must equal "{want}": current value is "{values[key]}"'
    return ""


def existing_resources(client: KubeClient, resources: Sequence[Resource], name: str,
                       namespace: str, *, take_ownership: bool) -> list[Resource]:
    """Objects that already exist (to be updated, not created); foreign ones raise
    Helm's error unless take_ownership (requireAdoption)."""
    from runner.kube import parallel

    lives = parallel.each(list(resources), lambda resource: get_live(client, resource, f" {resource.describe()}"))
    existing = []
    for resource, live in zip(resources, lives, strict=True):
        resource.exists = live is not None
        if live is None:
            continue
        problem = "" if take_ownership else ownership_problem(live, name, namespace)
        if problem:
            raise OwnershipError(
                f"{resource.describe()} exists and cannot be imported into the current release: {problem}")
        resource.live = live
        existing.append(resource)
    return existing
