"""The cluster connection: JSON requests to the API server and a REST mapping
(apiVersion/kind -> resource, namespaced) from discovery.

Everything in deploy-runner talks to the API server through `KubeClient.request`,
which goes through runner.kube.transport (http.client); the `kubernetes` package is
not used. Build a client with `KubeClient.connect(ClusterAccess(...))`.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from runner.errors import RunnerError

if TYPE_CHECKING:
    from runner.kube.kubeconfig import ClusterAccess

T = TypeVar("T")
JSON = "application/json"
# Writes there (CRDs, APIServices) change what discovery answers.
_API_SHAPE_GROUPS = ("/apis/apiextensions.k8s.io/", "/apis/apiregistration.k8s.io/")
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

    @property
    def error_text(self) -> str:
        """client-go's error for this failed reply: the message of its Status, or for another
        body (a text such as `404 page not found`) its words for the code."""
        if self.body.get("kind") == "Status" and self.body.get("message"):
            return str(self.body["message"])
        return generic_error_text(self.status, str(self.body.get("message") or "unknown"))


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


class ClusterUnreachable(KubeError):
    """Helm's IsReachable failed: `kubernetes cluster unreachable: <reason>`."""


class KubeClient:
    """One API server: JSON requests and a discovery-backed REST mapper (cached).

    Like each Helm action, which asks `IsReachable` (GET /version) before anything
    else, the first request of a client checks that the server answers: a failure
    reads `kubernetes cluster unreachable: ...` in Helm's words, whatever the action.
    """

    def __init__(self, transport: Any, namespace: str = "default", *,
                 on_debug: Callable[..., None] | None = None,
                 on_warning: Callable[[str], None] | None = None) -> None:
        self.transport = transport
        self.default_namespace = namespace
        # Where the steps Helm logs at debug level go (Journal.debug): `debug()`.
        self.on_debug = on_debug
        # Where the API server's warnings go, each answer's as it comes (client-go's
        # WarningLogger; Journal.server_warning tells them as Helm logs them).
        self.on_warning = on_warning
        # Each group/version's kinds, from discovery once per client; None: not served (404).
        self._groups: dict[str, dict[str, RestMapping] | None] = {}
        self._lock = threading.Lock()
        self._version: dict[str, Any] | None = None
        self._reach_lock = threading.Lock()
        self._preferred: dict[str, str] | None = None  # group -> its preferred version
        # Capabilities.APIVersions from discovery, asked once per client (a spec run's
        # releases share it); never kept once the client writes what changes the API's
        # shape (a CRD, an APIService), as Helm's install asks again after its CRDs.
        self._api_versions: list[str] | None = None
        self._api_shape_written = False
        self._discovery_lock = threading.Lock()
        # Per thread, where warnings and debug lines go while held (`held`): a list to replay.
        self._holding = threading.local()

    @classmethod
    def connect(cls, access: ClusterAccess | None = None, *,
                on_debug: Callable[..., None] | None = None,
                on_warning: Callable[[str], None] | None = None) -> KubeClient:
        """A client for what `access` names (Helm's connection flags over its HELM_* variables).

        A kubeconfig that cannot be used does not fail here: as in Helm, the error is
        the answer to the first request (`kubernetes cluster unreachable: stat ...`),
        and the namespace is then `access.namespace` or "default".
        """
        from runner.kube.credentials import CredentialError
        from runner.kube.kubeconfig import ClusterAccess, KubeconfigError, resolve
        from runner.kube.transport import Transport

        access = access or ClusterAccess()
        try:
            config = resolve(access)
            return cls(Transport(config), config.namespace, on_debug=on_debug, on_warning=on_warning)
        except (KubeconfigError, CredentialError) as err:
            return cls(_Unusable(err), access.namespace or "default", on_debug=on_debug,
                       on_warning=on_warning)

    @classmethod
    def from_kubeconfig(cls, path: str | None = None, context: str | None = None) -> KubeClient:
        """`connect` with only --kubeconfig and --kube-context (the HELM_* variables apply)."""
        from runner.kube.kubeconfig import ClusterAccess

        return cls.connect(ClusterAccess.from_env().with_flags(kubeconfig=path or None, context=context))

    # -- requests ----------------------------------------------------------------

    def request(self, method: str, path: str, *, body: Any = None,
                query: list[tuple[str, str]] | None = None, content_type: str = JSON,
                accept: str = JSON, warnings: bool = True) -> Response:
        """One HTTP call; returns the status and the decoded JSON (errors included). The
        server's warnings are reported (`on_warning`) unless `warnings` is False: a request
        Helm does not make (our conflict preflight), whose warnings the real one repeats."""
        if method != "GET" and path.startswith(_API_SHAPE_GROUPS):
            self._api_shape_written = True
            self._api_versions = None
        data = None if body is None else json.dumps(body).encode()
        raw = self._send(method, path, query or [], {"Accept": accept, "Content-Type": content_type}, data)
        if warnings:
            self._report(raw.warnings)
        return Response(raw.status, _json(raw.data))

    def stream(self, path: str, query: list[tuple[str, str]], read_timeout: float, *,
               accept: str = JSON, deadline: float = math.inf) -> Any:
        """A GET read as it comes (a watch, a followed log): the transport's StreamedReply, unread.
        Opening it (retries included) gives up at `deadline` (time.monotonic())."""
        from runner.kube.transport import ConnectionFailed

        if self._version is None:
            self.reachable()
        try:
            response = self.transport.stream(path, query, {"Accept": accept}, read_timeout, deadline)
        except ConnectionFailed as err:
            raise KubeError(str(err)) from err
        self._report(response.warnings)
        return response

    def text(self, path: str) -> tuple[int, str]:
        """GET a plain-text body (pod logs): the status and the text (an error's message)."""
        raw = self._send("GET", path, [], {"Accept": "*/*"}, None)
        self._report(raw.warnings)
        text = raw.data.decode("utf-8", "replace")
        return raw.status, (str(_json(text).get("message", text)) if raw.status >= 400 else text)

    def _send(self, method: str, path: str, query: list[tuple[str, str]], headers: dict[str, str],
              data: bytes | None) -> Any:
        from runner.kube.transport import ConnectionFailed

        if self._version is None:
            self.reachable()
        try:
            return self.transport.request(method, path, query, headers, data)
        except ConnectionFailed as err:
            raise KubeError(str(err)) from err

    def _report(self, headers: Any) -> None:
        if self.on_warning is None or not headers:
            return
        from runner.kube.warning_header import warnings_to_report

        for text in warnings_to_report(headers):
            self._tell(self.on_warning, (text,), {})

    def _tell(self, hear: Callable[..., None], args: tuple[Any, ...], attrs: dict[str, Any]) -> None:
        held = getattr(self._holding, "said", None)
        if held is not None:
            held.append((hear, args, attrs))
        else:
            hear(*args, **attrs)

    def held(self, work: Callable[[], T]) -> tuple[T, Callable[[], None]]:
        """work() with what it would tell (the server's warnings, debug lines) held back, and
        the function that tells it: requests sent concurrently are told in the order a
        sequential run would tell them (runner.kube.parallel.in_order)."""
        said: list[tuple[Callable[..., None], tuple[Any, ...], dict[str, Any]]] = []
        self._holding.said = said
        try:
            result = work()
        finally:
            self._holding.said = None

        def tell() -> None:
            for hear, args, attrs in said:
                hear(*args, **attrs)
        return result, tell

    def reachable(self) -> dict[str, Any]:
        """Helm's IsReachable: GET /version once; the server's version info."""
        from runner.kube.transport import ConnectionFailed

        with self._reach_lock:
            if self._version is None:
                try:
                    raw = self.transport.request("GET", "/version", [], {"Accept": JSON}, None)
                except ConnectionFailed as err:
                    raise ClusterUnreachable(f"kubernetes cluster unreachable: {err}") from err
                if raw.status >= 400:
                    raise ClusterUnreachable(f"kubernetes cluster unreachable: {status_text(raw.status, raw.data)}",
                                             raw.status)
                self._version = _json(raw.data)
            return self._version

    def close(self) -> None:
        self.transport.close()

    def debug(self, message: str, **attrs: Any) -> None:
        """Tell a step as Helm's kube client logs it with --debug (`creating resource(s)`...)."""
        if self.on_debug is not None:
            self._tell(self.on_debug, (message,), attrs)

    def checked(self, method: str, path: str, what: str, **kw: Any) -> dict[str, Any]:
        """A request that must succeed; a failure raises KubeError naming `what`."""
        reply = self.request(method, path, **kw)
        if not reply.ok:
            raise KubeError(f"{what}: {reply.message}", reply.status,
                            str(reply.body.get("reason", "")), reply.body)
        return reply.body

    def server_version(self) -> str:
        """The server's gitVersion (Helm's install asks first: its failure is worded so)."""
        try:
            return str(self.reachable().get("gitVersion", ""))
        except ClusterUnreachable as err:
            raise ClusterUnreachable(f"cluster reachability check failed: {err}", err.status) from err

    # -- REST mapping ----------------------------------------------------------

    def mapping(self, api_version: str, kind: str) -> RestMapping:
        found = (self.served_kinds(api_version) or {}).get(kind)
        if found is None:
            # A CRD created a moment ago: discovery may be stale, so look once more.
            found = (self.served_kinds(api_version, refresh=True) or {}).get(kind)
        if found is None:  # meta.NoKindMatchError's text (Build adds which object it was)
            raise NoKindMatchError(f'no matches for kind "{kind}" in version "{api_version}"')
        return found

    def preferred_mapping(self, mapping: RestMapping) -> RestMapping:
        """The kind at its group's preferred version, as a REST mapping asked by group and
        kind alone gives it (kstatus' watcher reads objects so); `mapping` itself when
        that version is the same or does not serve the kind."""
        with self._lock:
            if self._preferred is None:
                reply = self.request("GET", "/apis")
                groups = reply.body.get("groups") or [] if reply.ok else []
                self._preferred = {str(g.get("name", "")): str((g.get("preferredVersion") or {}).get("version", ""))
                                   for g in groups}
            version = self._preferred.get(mapping.group, "")
        if not mapping.group or not version or version == mapping.version:
            return mapping
        return (self.served_kinds(f"{mapping.group}/{version}") or {}).get(mapping.kind, mapping)

    def api_versions(self) -> list[str]:
        """Every served group/version and group/version/Kind (Helm's Capabilities.APIVersions),
        from aggregated discovery: two requests, which also fill the REST mapper. Asked
        once per client, unless it wrote a CRD or an APIService (then at every call)."""
        with self._discovery_lock:
            if self._api_versions is None:
                found = self._discover_all()
                if self._api_shape_written:
                    return found
                self._api_versions = found
            return list(self._api_versions)

    def _discover_all(self) -> list[str]:
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
                # The first resource of a kind, as discovery's lists are read (_discover).
                kinds.setdefault(kind, RestMapping(name, version["version"], kind, item["resource"],
                                                   item.get("scope") == "Namespaced"))
                found.append(f"{api_version}/{kind}")
                # Helm's GetVersionSet lists a subresource's kind too (deployments/scale: apps/v1/Scale)
                found += [f"{api_version}/{sub['responseKind']['kind']}" for sub in item.get("subresources") or []
                          if (sub.get("responseKind") or {}).get("kind")]
            with self._lock:
                self._groups[api_version] = kinds
            found.append(api_version)
        return found

    def served_kinds(self, api_version: str, refresh: bool = False) -> dict[str, RestMapping] | None:
        """The kinds a group/version serves (subresources left out), from discovery once per
        client unless `refresh`; None when the server does not serve that group/version."""
        with self._lock:
            if refresh or api_version not in self._groups:
                self._groups[api_version] = self._discover(api_version)
                if refresh or self._groups[api_version] is not None:
                    self._api_versions = None  # found what the API versions lacked: stale
            return self._groups[api_version]

    def _discover(self, api_version: str) -> dict[str, RestMapping] | None:
        group, _, version = api_version.rpartition("/")
        path = f"/apis/{api_version}" if group else f"/api/{version}"
        reply = self.request("GET", path)
        if reply.status == 404:
            return None
        if not reply.ok:
            raise KubeError(f"discovery of {api_version}: {reply.message}", reply.status,
                            str(reply.body.get("reason", "")), reply.body)
        kinds: dict[str, RestMapping] = {}
        for item in reply.body.get("resources") or []:
            if "/" in item.get("name", ""):
                continue  # subresources such as deployments/status
            kinds.setdefault(item["kind"], RestMapping(group, version, item["kind"], item["name"],
                                                       bool(item.get("namespaced"))))
        return kinds


class _Unusable:
    """The transport of a client whose kubeconfig cannot be used: every request fails with why."""

    def __init__(self, error: RunnerError) -> None:
        self.error = error

    def request(self, *args: Any) -> Any:
        from runner.kube.transport import ConnectionFailed

        raise ConnectionFailed(str(self.error)) from self.error

    def close(self) -> None:
        pass


def status_text(status: int, data: bytes) -> str:
    """client-go's text for an error status with its Status body (or without one)."""
    message = _json(data).get("message") if data else ""
    if message:
        return str(message)
    if status == 401:
        return "the server has asked for the client to provide credentials"
    if status == 403:
        return "the server does not allow access to the requested resource"
    return f"the server responded with the status code {status} but did not return more information"


# apimachinery's NewGenericServerResponse: a code's words when the reply is not a Status.
_GENERIC_ERRORS = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    409: "the server reported a conflict",
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be "
         "processing the request",
}


def generic_error_text(status: int, server_message: str) -> str:
    """client-go's text for an error reply without a Status (`server_message`: its text)."""
    if status in (403, 415) or (status == 406 and server_message not in ("", "unknown")):
        return server_message  # it says who may not do what, or which types are acceptable
    if status == 406:
        return "the server was unable to respond with a content type that the client supports"
    if status in _GENERIC_ERRORS:
        return _GENERIC_ERRORS[status]
    if status >= 500:
        from runner.golang.strconv import quote as go_quote

        return f"an error on the server ({go_quote(server_message)}) has prevented the request from succeeding"
    return f"the server responded with the status code {status} but did not return more information"


def _json(data: bytes | str | None) -> dict[str, Any]:
    if not data:
        return {}
    try:
        parsed = json.loads(data)
    except ValueError:
        text = data.decode(errors="replace") if isinstance(data, bytes) else data
        return {"message": text.strip()}
    return parsed if isinstance(parsed, dict) else {"items": parsed}
