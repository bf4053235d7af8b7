"""Which kubeconfig files client-go reads, how it reads one, and the namespace of a context.

Helm's `template` takes its namespace from the kubeconfig's context when no `-n`
is given (EnvSettings.Namespace), so this module is on the render path
(docs/speed.md): `context_namespace` reads the files without the rest of
runner.kube.kubeconfig (whose imports cost a `template` run ~15 ms), and does not
even parse them when none mentions a namespace.
"""

from __future__ import annotations

import os

from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


class KubeconfigError(RunnerError):
    """The kubeconfig cannot be read or names something it does not define."""


def kubeconfig_paths(explicit: str, environ: Mapping[str, str]) -> list[str]:
    """An explicit `--kubeconfig` (which must exist); else every path of KUBECONFIG, in order,
    once each; else ~/.kube/config. Missing files of KUBECONFIG are skipped by the reader."""
    if explicit:
        path = os.path.expanduser(explicit)
        if not os.path.exists(path):
            raise KubeconfigError(f"stat {explicit}: no such file or directory")
        return [path]
    if environ.get("KUBECONFIG"):
        return list(dict.fromkeys(os.path.expanduser(p) for p in environ["KUBECONFIG"].split(os.pathsep) if p))
    return [os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".kube", "config")]


def may_name_namespace(explicit: str, environ: Mapping[str, str]) -> bool:
    """False when the namespace is surely "default": no kubeconfig file mentions one, and
    not in a pod (whose service account would give one)."""
    if environ.get("KUBERNETES_SERVICE_HOST"):
        return True
    try:
        paths = kubeconfig_paths(explicit, environ)
    except KubeconfigError:
        return False  # Helm ignores the loader's error here: "default"
    for path in paths:
        try:
            with open(path, "rb") as file:
                if b"namespace" in file.read():
                    return True
        except OSError:
            continue
    return False


def read_kubeconfig(path: str) -> dict[str, Any]:
    """One kubeconfig file, parsed as client-go parses it (sigs.k8s.io/yaml); {} when missing
    (missing files of KUBECONFIG are skipped, as client-go skips them)."""
    from runner.encoding.goyaml import GoYAMLError, decode

    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise KubeconfigError(f'error loading config file "{path}": {(err.strerror or str(err)).lower()}') from err
    try:
        doc = decode(data, ints=True)
    except GoYAMLError as err:
        raise KubeconfigError(f'error loading config file "{path}": {err}') from err
    if doc is not None and not isinstance(doc, dict):
        raise KubeconfigError(f'error loading config file "{path}": not a kubeconfig (a mapping is expected)')
    return doc or {}


def context_namespace(explicit: str, context: str, environ: Mapping[str, str]) -> str | None:
    """The namespace Helm takes without `-n`: that of `context` (else the current context),
    "default" when it names none or the kubeconfig cannot be used. None when only the
    full resolution can tell (runner.kube.kubeconfig.default_namespace: in a pod)."""
    if environ.get("KUBERNETES_SERVICE_HOST"):
        return None
    if not may_name_namespace(explicit, environ):
        return "default"
    try:
        docs = [read_kubeconfig(path) for path in kubeconfig_paths(explicit, environ)]
    except KubeconfigError:
        return "default"
    name = context or next((str(d["current-context"]) for d in docs if d.get("current-context")), "")
    for doc in docs:  # the first file that defines a context wins, as client-go merges them
        for item in doc.get("contexts") or []:
            if isinstance(item, dict) and item.get("name") == name:
                found = (item.get("context") or {}).get("namespace") if isinstance(item.get("context"), dict) else ""
                return str(found or "default")
    return "default"
