"""Objects built from a release manifest (Helm's KubeClient.Build), and kind orders.

A Resource is one object of a manifest with its REST mapping; lists of them
are what the apply, delete and wait functions work on.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from runner.errors import RunnerError
from runner.kube.client import KubeClient, NoKindMatchError, RestMapping

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

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


def build(client: KubeClient, manifest: str, namespace: str, *, validate: bool = False) -> list[Resource]:
    """Helm's Build: map every object; namespaced ones default to the release namespace.
    Errors as kubectl's resource builder (ContinueOnError) gives them: a kind the cluster
    does not serve does not stop the others, each is one error; an object without
    apiVersion or kind stops the build (`validate`: as Helm validates what it installs or
    upgrades to). Several errors read `[a, b]`, each message once."""
    found: list[Resource] = []
    errors: list[str] = []
    for obj in parse_documents(manifest):
        problems = _kind_problems(obj) if validate else []
        if problems:
            errors.append(f'error validating "": error validating data: {aggregate(problems)}')
            break
        try:
            found.append(resource_of(client, obj, namespace))
        except NoKindMatchError:
            errors.append(_not_served(obj))
    if errors:
        raise ManifestBuildError(aggregate(errors))
    return found


def aggregate(messages: Sequence[str]) -> str:
    """apimachinery's utilerrors aggregate: one message as it is, several as `[a, b]`, each once."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def _kind_problems(obj: dict[str, Any]) -> list[str]:
    """What kubectl's validation says of an object's apiVersion and kind (getObjectKind)."""
    problems = []
    for key in ("apiVersion", "kind"):
        if obj.get(key) is None:
            problems.append(f"{key} not set")
        elif not isinstance(obj[key], str):
            problems.append(f"{key} isn't string type")
    return problems


def _not_served(obj: dict[str, Any]) -> str:
    """The resource builder's error for a kind the cluster does not serve; the namespace as
    the object itself gives it."""
    from runner.golang.strconv import quote

    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return (f"resource mapping not found for name: {quote(str(meta.get('name') or ''))} "
            f"namespace: {quote(str(meta.get('namespace') or ''))} from \"\": no matches for kind "
            f"{quote(str(obj.get('kind')))} in version {quote(str(obj.get('apiVersion')))}\n"
            "ensure CRDs are installed first")


def resource_of(client: KubeClient, obj: dict[str, Any], namespace: str) -> Resource:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not api_version or not kind:
        problems = _kind_problems(obj) or [f"{'apiVersion' if not api_version else 'kind'} not set"]
        raise ManifestBuildError(f'error validating "": error validating data: {aggregate(problems)}')
    mapping = client.mapping(str(api_version), str(kind))
    obj = copy.deepcopy(obj)
    ns = ""
    if mapping.namespaced:
        meta = obj.setdefault("metadata", {})
        ns = str(meta.get("namespace") or namespace)
        meta["namespace"] = ns
    return Resource(obj, mapping, ns)


def difference(a: Iterable[Resource], b: Iterable[Resource]) -> list[Resource]:
    """Resources of `a` whose key is not in `b`, in `a`'s order."""
    keys = {r.key for r in b}
    return [r for r in a if r.key not in keys]


def uninstall_sorted(resources: Sequence[Resource]) -> list[Resource]:
    """Helm's uninstall order: by kind, stable; unknown kinds last, alphabetical."""
    rank = {kind: i for i, kind in enumerate(UNINSTALL_ORDER)}
    unknown = len(UNINSTALL_ORDER)
    return sorted(resources, key=lambda r: (rank.get(r.kind, unknown), r.kind if r.kind not in rank else ""))
