"""Objects built from a release manifest (Helm's KubeClient.Build), and kind orders.

A Resource is one object of a manifest with its REST mapping; lists of them
are what the apply, delete and wait functions work on.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from runner.errors import RunnerError
from runner.kube.client import KubeClient, NoKindMatchError, RestMapping

# Helm's releaseutil.UninstallOrder (pkg/release/v1/util/kind_sorter.go).
UNINSTALL_ORDER = (
    "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService", "Ingress",
    "IngressClass", "Service", "CronJob", "Job", "StatefulSet", "HorizontalPodAutoscaler",
    "Deployment", "ReplicaSet", "ReplicationController", "Pod", "DaemonSet", "RoleBindingList",
    "RoleBinding", "RoleList", "Role", "ClusterRoleBindingList", "ClusterRoleBinding",
    "ClusterRoleList", "ClusterRole", "CustomResourceDefinition", "PersistentVolumeClaim",
    "PersistentVolume", "StorageClass", "ConfigMap", "SecretList", "Secret", "ServiceAccount",
    "PodDisruptionBudget", "PodSecurityPolicy", "LimitRange", "ResourceQuota", "NetworkPolicy",
    "Namespace", "PriorityClass",
)


class ManifestBuildError(RunnerError):
    """A manifest document that is not a Kubernetes object."""


class ManifestValidationError(ManifestBuildError):
    """A document that fails Build's validation: the builder reads no further."""


@dataclass
class Resource:
    obj: dict[str, Any]
    mapping: RestMapping
    namespace: str = ""
    live: dict[str, Any] | None = field(default=None, repr=False)  # last seen server copy
    exists: bool | None = None  # known present/absent on the server (None: not checked)

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind", ""))

    @property
    def api_version(self) -> str:
        return str(self.obj.get("apiVersion", ""))

    @property
    def name(self) -> str:
        return str((self.obj.get("metadata") or {}).get("name", ""))

    @property
    def key(self) -> str:
        """Helm's objectKey: group/version/kind/namespace/name."""
        return f"{self.api_version}/{self.kind}/{self.namespace}/{self.name}"

    @property
    def path(self) -> str:
        return self.mapping.object_path(self.name, self.namespace)

    @property
    def annotations(self) -> dict[str, str]:
        return dict((self.obj.get("metadata") or {}).get("annotations") or {})

    @property
    def gvk(self) -> str:
        """schema.GroupVersionKind.String(), as Helm's debug log names objects: `apps/v1, Kind=Deployment`."""
        return f"{self.mapping.group}/{self.mapping.version}, Kind={self.kind}"

    def describe(self) -> str:
        """Helm's resourceString: Kind "name" in namespace "ns"."""
        return f'{self.kind} "{self.name}" in namespace "{self.namespace}"'

    def ref(self) -> str:
        """kubectl-style short reference for reports: kind/name."""
        return f"{self.kind}/{self.name}"


def parse_documents(manifest: str) -> list[dict[str, Any]]:
    """Every non-empty object of a multi-document manifest (sigs.k8s.io/yaml rules)."""
    from runner.encoding import goyaml

    try:
        docs = goyaml.load_all(manifest, ints=True)
    except Exception as err:  # goyaml raises its own error types with Go's text
        raise ManifestBuildError(f"error parsing manifest: {err}") from err
    objects: list[dict[str, Any]] = []
    for doc in docs:
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise ManifestBuildError("error parsing manifest: a document is not an object")
        if doc.get("kind") == "List" or str(doc.get("kind", "")).endswith("List") and "items" in doc:
            objects.extend(item for item in doc.get("items") or [] if isinstance(item, dict))
        elif doc:
            objects.append(doc)
    return objects


def build(client: KubeClient, manifest: str, namespace: str, *, validate: bool = True) -> list[Resource]:
    """Helm's Build: map every object; namespaced ones default to the release namespace.
    Each document is checked (`validate`: as Helm's Build with OpenAPI validation on, else
    only decoded); the problems are raised together, in Helm's words: the builder goes on
    past a document it cannot decode or map, and stops at one that fails validation."""
    resources: list[Resource] = []
    problems: list[str] = []
    for obj in parse_documents(manifest):
        try:
            resources.append(resource_of(client, obj, namespace, validate=validate))
        except ManifestBuildError as err:
            problems.append(str(err))
            if isinstance(err, ManifestValidationError):
                break
    if problems:
        raise ManifestBuildError(aggregate(problems))
    return resources


def resource_of(client: KubeClient, obj: dict[str, Any], namespace: str, *,
                validate: bool = True) -> Resource:
    """One object of a manifest, mapped through discovery; ManifestBuildError in the
    words of Helm's builder when it has no kind or the cluster does not serve it."""
    if validate and (problem := _kind_problem(obj)):
        raise ManifestValidationError(problem)
    if not validate and (problem := _decode_problem(obj)):
        raise ManifestBuildError(problem)
    api_version, kind = str(obj.get("apiVersion") or ""), str(obj["kind"])
    try:
        mapping = client.mapping(api_version, kind)
    except NoKindMatchError as err:
        from runner.golang.strconv import quote as go_quote

        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        raise ManifestBuildError(
            f'resource mapping not found for name: {go_quote(str(meta.get("name") or ""))} namespace: '
            f'{go_quote(str(meta.get("namespace") or ""))} from "": {err}\nensure CRDs are installed first'
        ) from err
    obj = copy.deepcopy(obj)
    ns = ""
    if mapping.namespaced:
        meta = obj.setdefault("metadata", {})
        ns = str(meta.get("namespace") or namespace)
        meta["namespace"] = ns
    return Resource(obj, mapping, ns)


def _kind_problem(obj: dict[str, Any]) -> str:
    """kubectl's validation of a document's kind (paramVerifyingSchema's getObjectKind)."""
    problems = []
    for key in ("apiVersion", "kind"):
        if obj.get(key) is None:
            problems.append(f"{key} not set")
        elif not isinstance(obj[key], str):
            problems.append(f"{key} isn't string type")
        elif key == "apiVersion" and obj[key].count("/") > 1:
            problems.append(f"unexpected GroupVersion string: {obj[key]}")
    return f'error validating "": error validating data: {aggregate(problems)}' if problems else ""


def _decode_problem(obj: dict[str, Any]) -> str:
    """Without validation, the unstructured decoder refuses a document without a kind (one
    without an apiVersion is worded as validation words it: Helm would look its kind up in
    every version, which we do not)."""
    if not isinstance(obj.get("kind"), str) or not obj["kind"]:
        from runner.encoding.gojson import marshal

        return f"unable to decode \"\": Object 'Kind' is missing in '{marshal(obj)}'"
    return _kind_problem(obj)


def aggregate(messages: Sequence[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message as it is, several (repeats
    dropped) as `[a, b]`."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else f"[{', '.join(unique)}]"


def difference(a: Iterable[Resource], b: Iterable[Resource]) -> list[Resource]:
    """Resources of `a` whose key is not in `b`, in `a`'s order."""
    keys = {r.key for r in b}
    return [r for r in a if r.key not in keys]


def uninstall_sorted(resources: Sequence[Resource]) -> list[Resource]:
    """Helm's uninstall order: by kind, stable; unknown kinds last, alphabetical."""
    rank = {kind: i for i, kind in enumerate(UNINSTALL_ORDER)}
    unknown = len(UNINSTALL_ORDER)
    return sorted(resources, key=lambda r: (rank.get(r.kind, unknown), r.kind if r.kind not in rank else ""))
