"""Helpers for the release e2e tests: our CLI in-process, records read back from the
cluster (the charts they write: tests.fixtures)."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Any


@dataclass
class Run:
    code: int
    out: str
    err: str


def ours(cluster: Any, namespace: str, *args: str) -> Run:
    """Our CLI, in-process, against the testbed."""
    from runner.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*args, "-n", namespace, "--kubeconfig", str(cluster.kubeconfig)])
    return Run(code, out.getvalue(), err.getvalue())


# client-go's informer saying its watch ended as helm stopped waiting: timing, not behaviour
# (helm prints it now and then, at the end of a wait)
_WATCH_ENDED = re.compile(r'^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ reflector\.go:\d+\] '
                          r'"Warning: watch ended with error".*\n?', re.MULTILINE)


def without_watch_ended(helm_stderr: str) -> str:
    return _WATCH_ENDED.sub("", helm_stderr)


def helm_part(err: str) -> tuple[str, str]:
    """Our stderr split in two: what Helm prints, and the evidence we print after its
    `Error:` line (runner.actions.evidence), empty when there is none."""
    from runner.actions.evidence import HEADING

    helm, found, evidence = err.partition(HEADING + "\n")
    return helm, found + evidence


def config(cluster: Any, namespace: str) -> Any:
    from runner.actions.release_config import ActionConfig

    return ActionConfig.connect(namespace, str(cluster.kubeconfig))


def record(cluster: Any, namespace: str, name: str, version: int) -> dict[str, Any]:
    """A stored record as JSON, decoded the way Helm decodes it."""
    return config(cluster, namespace).storage.get(name, version).to_json()


def comparable(data: dict[str, Any], name: str) -> dict[str, Any]:
    """A record without timestamps, with the release name replaced by NAME."""
    import json

    text = json.dumps(data, sort_keys=True).replace(name, "NAME")
    clean = json.loads(text)
    _drop_times(clean)
    return clean


def _drop_times(value: Any) -> None:
    if isinstance(value, dict):
        for key in [k for k in value if k in ("first_deployed", "last_deployed", "deleted",
                                             "started_at", "completed_at", "modtime")]:
            del value[key]
        for item in value.values():
            _drop_times(item)
    elif isinstance(value, list):
        for item in value:
            _drop_times(item)


def get_object(cluster: Any, path: str) -> dict[str, Any] | None:

    reply = cluster.client().request("GET", path)
    return reply.body if reply.ok else None


# A CRD whose objects carry their own status (GROUP: a group of the test's own)
GADGET_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.GROUP
spec:
  group: GROUP
  names: {kind: Gadget, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"""
