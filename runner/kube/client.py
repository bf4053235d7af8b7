"""The cluster connection: a kubeconfig-built API client, raw JSON requests,
and a REST mapping (apiVersion/kind -> resource, namespaced) from discovery.

Everything else in runner.kube talks to the API server through `KubeClient.
request`, so the `kubernetes` package is imported here and nowhere else
outside runner.kube.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from urllib.parse import quote

from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

JSON = "application/json"
_AGGREGATED = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
               "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")


class KubeError(RunnerError):
    """A request the API server refused; `status`/`reason` from its Status."""

    def __init__(self, message: str, status: int = 0, reason: str = "",
                 body: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.body = body or {}


class NoKindMatchError(KubeError):
    """The cluster does not serve this apiVersion/kind (e.g. a CRD not installed yet)."""


@dataclass(frozen=True)
class Response:
    status: int
    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.status < 400

    @property
    def message(self) -> str:
        return str(self.body.get("message") or f"HTTP {self.status}")


@dataclass(frozen=True)
class RestMapping:
    group: str
    version: str
    kind: str
    resource: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def collection_path(self, namespace: str = "") -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        return f"{base}/{self.resource}"

    def object_path(self, name: str, namespace: str = "") -> str:
        return f"{self.collection_path(namespace)}/{quote(name, safe='')}"


class KubeClient:
    """One API server: JSON requests and a discovery-backed REST mapper (cached)."""

    def __init__(self, api_client: Any = None, namespace: str = "default",
                 transport: Any = None) -> None:
        self.api_client = api_client  # a kubernetes ApiClient, when not using `transport`
        self.transport = transport
        self.default_namespace = namespace
        self._groups: dict[str, dict[str, RestMapping]] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_kubeconfig(cls, path: str | None = None, context: str | None = None) -> KubeClient:
        from runner.kube.transport import Transport, UnsupportedKubeconfig, load_kubeconfig

        kubeconfig = load_kubeconfig(path, context)
        try:
            return cls(namespace=kubeconfig.namespace, transport=Transport(kubeconfig))
        except UnsupportedKubeconfig:
            return cls._from_kubernetes_package(path, context)

    @classmethod
    def _from_kubernetes_package(cls, path: str | None, context: str | None) -> KubeClient:
        from kubernetes import config
        from kubernetes.config.config_exception import ConfigException

        try:
            api = config.new_client_from_config(config_file=path, context=context)
            namespace = _context_namespace(path, context)
        except (ConfigException, OSError) as err:
            raise RunnerError(f"kubernetes cluster unreachable: {err}") from err
        return cls(api, namespace)

    # -- requests ----------------------------------------------------------------

    def request(self, method: str, path: str, *, body: Any = None,
                query: list[tuple[str, str]] | None = None, content_type: str = JSON,
                accept: str = JSON) -> Response:
        """One HTTP call; returns the status and the decoded JSON (errors included)."""
        if self.transport is not None:
            data = None if body is None else json.dumps(body).encode()
            raw = self.transport.request(method, path, query or [],
                                         {"Accept": accept, "Content-Type": content_type}, data)
            return Response(raw.status, _json(raw.data))
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        try:
            reply = self.api_client.call_api(
                path, method, query_params=query or [],
                header_params={"Accept": accept, "Content-Type": content_type},
                body=body, auth_settings=["BearerToken"], _preload_content=False,
            )
        except ApiException as err:
            return Response(err.status, _json(err.body))
        except HTTPError as err:
            raise KubeError(f"kubernetes cluster unreachable: {err}") from err
        raw = reply[0] if isinstance(reply, tuple) else reply
        return Response(raw.status, _json(raw.data))

    def text(self, path: str) -> tuple[int, str]:
        """GET a plain-text body (pod logs): the status and the text (an error's message)."""
        if self.transport is not None:
            raw = self.transport.request("GET", path, [], {"Accept": "*/*"}, None)
            status, data = raw.status, raw.data
        else:
            from kubernetes.client.exceptions import ApiException
            from urllib3.exceptions import HTTPError

            try:
                reply = self.api_client.call_api(path, "GET", header_params={"Accept": "*/*"},
                                                 auth_settings=["BearerToken"], _preload_content=False)
            except ApiException as err:
                return err.status, str(_json(err.body).get("message", err.reason))
            except HTTPError as err:
                raise KubeError(f"kubernetes cluster unreachable: {err}") from err
            raw = reply[0] if isinstance(reply, tuple) else reply
            status, data = raw.status, raw.data
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data or "")
        return status, (str(_json(text).get("message", text)) if status >= 400 else text)

    def checked(self, method: str, path: str, what: str, **kw: Any) -> dict[str, Any]:
        """A request that must succeed; a failure raises KubeError naming `what`."""
        reply = self.request(method, path, **kw)
        if not reply.ok:
            raise KubeError(f"{what}: {reply.message}", reply.status,
                            str(reply.body.get("reason", "")), reply.body)
        return reply.body

    def server_version(self) -> str:
        return str(self.checked("GET", "/version", "cluster reachability check failed").get("gitVersion", ""))

    # -- REST mapping ----------------------------------------------------------

    def mapping(self, api_version: str, kind: str) -> RestMapping:
        found = self._group_version(api_version).get(kind)
        if found is None:
            # A CRD created a moment ago: discovery may be stale, so look once more.
            found = self._group_version(api_version, refresh=True).get(kind)
        if found is None:
            raise NoKindMatchError(
                f'resource mapping not found for kind "{kind}" in version "{api_version}": '
                f'no matches for kind "{kind}" in version "{api_version}"')
        return found

    def api_versions(self) -> list[str]:
        """Every served group/version and group/version/Kind (Helm's Capabilities.APIVersions),
        from aggregated discovery: two requests, which also fill the REST mapper."""
        found: list[str] = []
        for root in ("/api", "/apis"):
            reply = self.request("GET", root, accept=_AGGREGATED)
            if not reply.ok:
                raise KubeError(f"discovery failed: {reply.message}", reply.status)
            for group in reply.body.get("items") or []:
                found.extend(self._remember_group(group))
        return found

    def _remember_group(self, group: dict[str, Any]) -> list[str]:
        name = (group.get("metadata") or {}).get("name", "")
        found = []
        for version in group.get("versions") or []:
            api_version = f"{name}/{version['version']}" if name else version["version"]
            kinds = {}
            for item in version.get("resources") or []:
                kind = (item.get("responseKind") or {}).get("kind", "")
                kinds[kind] = RestMapping(name, version["version"], kind, item["resource"],
                                          item.get("scope") == "Namespaced")
                found.append(f"{api_version}/{kind}")
                # Helm's GetVersionSet lists a subresource's kind too (deployments/scale: apps/v1/Scale)
                found += [f"{api_version}/{sub['responseKind']['kind']}" for sub in item.get("subresources") or []
                          if (sub.get("responseKind") or {}).get("kind")]
            with self._lock:
                self._groups[api_version] = kinds
            found.append(api_version)
        return found

    def _group_version(self, api_version: str, refresh: bool = False) -> dict[str, RestMapping]:
        with self._lock:
            if refresh or api_version not in self._groups:
                self._groups[api_version] = self._discover(api_version)
            return self._groups[api_version]

    def _discover(self, api_version: str) -> dict[str, RestMapping]:
        group, _, version = api_version.rpartition("/")
        path = f"/apis/{api_version}" if group else f"/api/{version}"
        reply = self.request("GET", path)
        if reply.status == 404:
            return {}
        if not reply.ok:
            raise KubeError(f"discovery of {api_version}: {reply.message}", reply.status)
        kinds: dict[str, RestMapping] = {}
        for item in reply.body.get("resources") or []:
            if "/" in item.get("name", ""):
                continue  # subresources such as deployments/status
            kinds.setdefault(item["kind"], RestMapping(group, version, item["kind"], item["name"],
                                                       bool(item.get("namespaced"))))
        return kinds


def _context_namespace(path: str | None, context: str | None) -> str:
    """The namespace the kubeconfig's context names (kubectl's default), else `default`."""
    from kubernetes.config import kube_config

    try:
        contexts, active = kube_config.list_kube_config_contexts(config_file=path)
    except Exception:  # noqa: BLE001 - an unreadable kubeconfig already failed above
        return "default"
    chosen = next((c for c in contexts if c["name"] == context), None) if context else active
    return str(((chosen or {}).get("context") or {}).get("namespace") or "default")


def _json(data: bytes | str | None) -> dict[str, Any]:
    if not data:
        return {}
    try:
        parsed = json.loads(data)
    except ValueError:
        text = data.decode(errors="replace") if isinstance(data, bytes) else data
        return {"message": text.strip()}
    return parsed if isinstance(parsed, dict) else {"items": parsed}
