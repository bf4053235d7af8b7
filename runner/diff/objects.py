"""Objects as a diff compares them: keyed as helm-diff keys them, server-owned fields left
out, Secret values replaced by markers, written as YAML with sorted keys.

Server-owned: status, and metadata's managedFields, resourceVersion, generation,
uid, creationTimestamp, selfLink and the `deployment.kubernetes.io/revision`
annotation (the server sets them; no chart can change them). A Secret's
`data` and `stringData` values never reach a diff: each key's value is a
marker saying whether it is unchanged, changed, added or removed (stringData
counted into data, as the API server does); kubectl's last-applied annotation,
which would hold them, is hidden too.
"""

from __future__ import annotations

import base64
import binascii
import copy
from dataclasses import dataclass
from typing import Any

from runner.diff.model import SecretKeys

SERVER_METADATA = ("managedFields", "resourceVersion", "generation", "uid", "creationTimestamp",
                   "selfLink")
SERVER_ANNOTATIONS = ("deployment.kubernetes.io/revision",)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
HIDDEN = "(hidden)"
HIDDEN_OLD = "(hidden: old value)"
HIDDEN_NEW = "(hidden: new value)"
RESOURCE_POLICY = "helm.sh/resource-policy"


@dataclass(frozen=True)
class Identity:
    api_version: str
    kind: str
    namespace: str
    name: str

    @property
    def key(self) -> str:
        """helm-diff's key: the namespace (the release's when the object has none, even for
        cluster-scoped kinds), the name, the kind and the group (`v1` for the core group)."""
        group = self.api_version.rsplit("/", 1)[0] if "/" in self.api_version else self.api_version
        return f"{self.namespace}, {self.name}, {self.kind} ({group})"


def identity(obj: dict[str, Any], default_namespace: str) -> Identity:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return Identity(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""),
                    str(meta.get("namespace") or default_namespace), str(meta.get("name") or ""))


def prune(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy without the fields the server owns."""
    out = copy.deepcopy(obj)
    out.pop("status", None)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        for name in SERVER_METADATA:
            meta.pop(name, None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict):
            for name in SERVER_ANNOTATIONS:
                annotations.pop(name, None)
            if not annotations:
                meta.pop("annotations", None)
    return out


def keep_policy(obj: dict[str, Any] | None) -> bool:
    """helm.sh/resource-policy: keep (exact, as Helm's upgrade reads it): never removed."""
    meta = (obj or {}).get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    return isinstance(annotations, dict) and annotations.get(RESOURCE_POLICY) == "keep"


def is_secret(obj: dict[str, Any] | None) -> bool:
    return bool(obj) and obj.get("kind") == "Secret" and str(obj.get("apiVersion")) == "v1"


def hide_secrets(old: dict[str, Any] | None, new: dict[str, Any] | None
                 ) -> tuple[dict[str, Any] | None, dict[str, Any] | None, SecretKeys | None]:
    """Old and new Secret with every value replaced by a marker, and which keys differ.
    Objects that are not Secrets come back as they are."""
    if not (is_secret(old) or is_secret(new)):
        return old, new, None
    before, after = _secret_bytes(old), _secret_bytes(new)
    keys = SecretKeys(
        added=sorted(k for k in after if k not in before),
        changed=sorted(k for k in after if k in before and after[k] != before[k]),
        removed=sorted(k for k in before if k not in after))
    return (_masked(old, before, after, HIDDEN_OLD), _masked(new, after, before, HIDDEN_NEW), keys)


def _secret_bytes(obj: dict[str, Any] | None) -> dict[str, bytes]:
    """A Secret's data as the API server stores it: data decoded, stringData over it."""
    if not obj:
        return {}
    out: dict[str, bytes] = {}
    for key, value in (obj.get("data") or {}).items() if isinstance(obj.get("data"), dict) else ():
        try:
            out[str(key)] = base64.b64decode(str(value or ""), validate=True)
        except (binascii.Error, ValueError):
            out[str(key)] = str(value).encode("utf-8", "surrogateescape")  # the server refuses it
    for key, value in (obj.get("stringData") or {}).items() if isinstance(obj.get("stringData"), dict) else ():
        out[str(key)] = str(value if value is not None else "").encode("utf-8", "surrogateescape")
    return out


def _masked(obj: dict[str, Any] | None, mine: dict[str, bytes], other: dict[str, bytes],
            differs: str) -> dict[str, Any] | None:
    if obj is None:
        return None
    out = copy.deepcopy(obj)
    out.pop("stringData", None)
    if mine:
        out["data"] = {k: (HIDDEN if k not in other or other[k] == v else differs)
                       for k, v in sorted(mine.items())}
    else:
        out.pop("data", None)
    meta = out.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        annotations[LAST_APPLIED] = HIDDEN
    return out


def to_yaml(obj: dict[str, Any] | None) -> str:
    """An object as YAML with sorted keys (sigs.k8s.io/yaml's form), "" for none."""
    if obj is None:
        return ""
    from runner.encoding.goyaml import dump

    return dump(obj)
