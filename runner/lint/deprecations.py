"""Deprecated Kubernetes APIs (Helm's lint/rules/deprecations.go with apiserver's deprecation texts)."""

from __future__ import annotations

from runner.lint.apilifecycle import LIFECYCLE
from runner.lint.k8syaml import K8sObject

DEFAULT_KUBE_MAJOR, DEFAULT_KUBE_MINOR = 1, 35  # what Helm 4.1.4 is built against


def validate_no_deprecations(obj: K8sObject, kube_version: tuple[int, int] | None) -> str | None:
    """The deprecation warning for obj's group/version/kind at the target version, if any."""
    if not obj.api_version or not obj.kind:
        return None
    entry = LIFECYCLE.get((obj.api_version, obj.kind))
    if entry is None:
        return None  # not registered, or never deprecated
    major, minor = kube_version or (DEFAULT_KUBE_MAJOR, DEFAULT_KUBE_MINOR)
    dep_major, dep_minor, rem_major, rem_minor, replacement = entry
    if (dep_major, dep_minor) > (major, minor):
        return None
    message = f"{obj.api_version} {obj.kind} is deprecated in v{dep_major}.{dep_minor}+"
    if rem_major or rem_minor:
        message += f", unavailable in v{rem_major}.{rem_minor}+"
    if replacement:
        group, version, kind = replacement
        message += f"; use {group + '/' + version if group else version} {kind}"
    return message

