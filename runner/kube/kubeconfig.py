"""Where the cluster is and who we are: kubeconfig files, Helm's connection flags and
variables, and in-cluster service-account configuration, resolved as client-go does.

`ClusterAccess` holds what the user gave (Helm's `--kubeconfig`, `--kube-context`,
`-n`, `--kube-apiserver`, `--kube-token`, ... flags and their `HELM_*` variables);
`resolve(access)` turns it into a `ConnectionConfig` (client-go's rest.Config) by the
rules of client-go's ConfigFlags / DeferredLoadingClientConfig:

- files: an explicit `--kubeconfig` must exist; otherwise every path in KUBECONFIG
  (missing ones skipped) or ~/.kube/config, merged with the first file winning
  per name; relative paths resolve against the file that holds them;
- overrides: the flags win over the chosen context, cluster and user (a CA file or
  `--kube-insecure-skip-tls-verify` replaces the kubeconfig's CA; `--kube-apiserver`
  clears the kubeconfig's `tls-server-name` unless one is given too);
- nothing configured: inside a pod (KUBERNETES_SERVICE_HOST/PORT and the service
  account token present) the in-cluster configuration, else KUBERNETES_MASTER or
  http://localhost:8080, where Helm would then fail to connect;
- an EKS cluster (`--eks-cluster`, deploy-runner's own): no kubeconfig at all; the
  endpoint and CA from eks:DescribeCluster, a token made in-process and renewed
  (runner.aws.eks); the server, CA and impersonation flags still apply over it.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from runner.kube.kubeconfig_files import (
    KubeconfigError,
    context_namespace,
    kubeconfig_paths,
    read_kubeconfig,
)

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
# The variables of the EKS settings (the defaults of --eks-cluster, --eks-region, --eks-role-arn).
EKS_VARIABLES = {"eks_cluster": "DEPLOY_RUNNER_EKS_CLUSTER", "eks_region": "DEPLOY_RUNNER_EKS_REGION",
                 "eks_role_arn": "DEPLOY_RUNNER_EKS_ROLE_ARN"}
DEFAULT_BURST = 100  # Helm's --burst-limit default
DEFAULT_SERVER = "http://localhost:8080"  # client-go's ClusterDefaults


@dataclass(frozen=True)
class ClusterAccess:
    """Helm's global connection flags (client-go ConfigFlags); empty means "not given".

    Build it with `ClusterAccess.from_env()` (Helm's HELM_* variables) and lay the
    command-line flags over it with `dataclasses.replace` / `with_flags`.
    """

    kubeconfig: str = ""        # --kubeconfig (KUBECONFIG is read by the loader when empty)
    context: str = ""           # --kube-context, HELM_KUBECONTEXT
    namespace: str = ""         # -n/--namespace, HELM_NAMESPACE
    apiserver: str = ""         # --kube-apiserver, HELM_KUBEAPISERVER
    token: str = ""             # --kube-token, HELM_KUBETOKEN
    ca_file: str = ""           # --kube-ca-file, HELM_KUBECAFILE
    as_user: str = ""           # --kube-as-user, HELM_KUBEASUSER
    as_groups: tuple[str, ...] = ()  # --kube-as-group (repeated), HELM_KUBEASGROUPS (comma-separated)
    insecure_skip_tls_verify: bool = False  # --kube-insecure-skip-tls-verify, HELM_KUBEINSECURE_SKIP_TLS_VERIFY
    tls_server_name: str = ""   # --kube-tls-server-name, HELM_KUBETLS_SERVER_NAME
    burst: int = DEFAULT_BURST  # --burst-limit, HELM_BURST_LIMIT
    qps: float = 0.0            # --qps, HELM_QPS (0: client-go's default of 5)
    # deploy-runner's own: an EKS cluster reached without a kubeconfig (runner.aws.eks).
    eks_cluster: str = ""       # --eks-cluster, DEPLOY_RUNNER_EKS_CLUSTER
    eks_region: str = ""        # --eks-region, DEPLOY_RUNNER_EKS_REGION (else AWS_REGION, the profile's)
    eks_role_arn: str = ""      # --eks-role-arn, DEPLOY_RUNNER_EKS_ROLE_ARN: a role to assume first

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ClusterAccess:
        """The settings Helm's cli.New() reads from the environment (pkg/cli/environment.go):
        unparsable numbers and booleans fall back to the defaults, as Helm's do."""
        env = os.environ if environ is None else environ
        groups = env.get("HELM_KUBEASGROUPS", "").strip(", ")
        return cls(
            kubeconfig="",  # Helm's --kubeconfig flag default is "", KUBECONFIG goes to the loader
            context=env.get("HELM_KUBECONTEXT", ""),
            namespace=env.get("HELM_NAMESPACE", ""),
            apiserver=env.get("HELM_KUBEAPISERVER", ""),
            token=env.get("HELM_KUBETOKEN", ""),
            ca_file=env.get("HELM_KUBECAFILE", ""),
            as_user=env.get("HELM_KUBEASUSER", ""),
            as_groups=tuple(groups.split(",")) if groups else (),
            insecure_skip_tls_verify=_go_bool(env.get("HELM_KUBEINSECURE_SKIP_TLS_VERIFY"), False),
            tls_server_name=env.get("HELM_KUBETLS_SERVER_NAME", ""),
            burst=_go_int(env.get("HELM_BURST_LIMIT"), DEFAULT_BURST),
            qps=_go_float(env.get("HELM_QPS"), 0.0),
            eks_cluster=env.get(EKS_VARIABLES["eks_cluster"], ""),
            eks_region=env.get(EKS_VARIABLES["eks_region"], ""),
            eks_role_arn=env.get(EKS_VARIABLES["eks_role_arn"], ""),
        )

    def with_flags(self, **flags: Any) -> ClusterAccess:
        """These settings with the flags the user typed laid over them (None: not typed),
        e.g. `with_flags(namespace=args.namespace, as_groups=args.kube_as_group)`."""
        typed = {k: v for k, v in flags.items() if v is not None}
        if "as_groups" in typed:  # a repeated flag arrives as a list
            typed["as_groups"] = tuple(typed["as_groups"])
        return replace(self, **typed)

    def names_cluster(self) -> bool:
        """Whether these settings say which cluster (an EKS cluster, a kubeconfig file or
        context, a server); KUBECONFIG and ~/.kube/config are only where to look."""
        return bool(self.eks_cluster or self.kubeconfig or self.context or self.apiserver)

    def or_eks(self, cluster: str, region: str = "", role_arn: str = "") -> ClusterAccess:
        """These settings, or when they name no cluster, EKS cluster `cluster` (a spec
        environment's `eks`): a region or role given here wins over `region`/`role_arn`."""
        if not cluster or self.names_cluster():
            return self
        return replace(self, eks_cluster=cluster, eks_region=self.eks_region or region,
                       eks_role_arn=self.eks_role_arn or role_arn)


def _go_bool(text: str | None, default: bool) -> bool:
    """strconv.ParseBool, the default when unset or invalid."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return default


def _go_int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None and text.strip() == text else default
    except ValueError:
        return default


def _go_float(text: str | None, default: float) -> float:
    try:
        return float(text) if text is not None and text.strip() == text else default
    except ValueError:
        return default


@dataclass(frozen=True)
class ConnectionConfig:
    """One resolved connection (client-go's rest.Config): everything the transport needs."""

    server: str
    namespace: str = "default"
    ca_data: bytes = b""        # PEM: certificate-authority-data or the CA file's bytes
    insecure: bool = False
    tls_server_name: str = ""
    proxy_url: str = ""
    cert_data: bytes = b""      # PEM client certificate and key (client-certificate[-data], client-key[-data])
    key_data: bytes = b""
    token: str = ""
    token_file: str = ""        # re-read when it rotates (service-account tokens)
    username: str = ""
    password: str = ""
    exec_spec: dict[str, Any] = field(default_factory=dict)
    auth_provider: dict[str, Any] = field(default_factory=dict)
    impersonate_user: str = ""
    impersonate_uid: str = ""
    impersonate_groups: tuple[str, ...] = ()
    impersonate_extra: tuple[tuple[str, tuple[str, ...]], ...] = ()
    qps: float = 0.0
    burst: int = DEFAULT_BURST
    cluster_name: str = ""      # for exec plugins that ask for cluster information
    cluster: dict[str, Any] = field(default_factory=dict)
    # An in-process credential plugin (runner.aws.eks.EksToken): `fetch()` -> (token, expires),
    # kept and renewed as an exec plugin's answer is (runner.kube.credentials).
    token_source: Any = None

    def __repr__(self) -> str:  # never print keys or tokens (e.g. in a --debug traceback)
        return f"ConnectionConfig(server={self.server!r}, namespace={self.namespace!r})"


# -- files ---------------------------------------------------------------------------


@dataclass
class _Files:
    """The kubeconfig files merged as client-go merges them (first definition wins)."""

    current_context: str = ""
    contexts: dict[str, dict[str, Any]] = field(default_factory=dict)
    clusters: dict[str, dict[str, Any]] = field(default_factory=dict)
    users: dict[str, dict[str, Any]] = field(default_factory=dict)


def _load_files(explicit: str, environ: Mapping[str, str]) -> _Files:
    merged = _Files()
    for path in map(Path, kubeconfig_paths(explicit, environ)):
        doc = read_kubeconfig(str(path))
        merged.current_context = merged.current_context or str(doc.get("current-context") or "")
        base = path.resolve().parent
        for section, key, into in (("contexts", "context", merged.contexts),
                                   ("clusters", "cluster", merged.clusters),
                                   ("users", "user", merged.users)):
            for item in doc.get(section) or []:
                if isinstance(item, dict) and item.get("name") and item["name"] not in into:
                    into[str(item["name"])] = _resolve_paths(dict(item.get(key) or {}), base)
    return merged


_PATH_FIELDS = ("certificate-authority", "client-certificate", "client-key", "tokenFile")


def _resolve_paths(entry: dict[str, Any], base: Path) -> dict[str, Any]:
    """Relative file paths are relative to the kubeconfig that names them (client-go ResolvePaths)."""
    for name in _PATH_FIELDS:
        if entry.get(name):
            entry[name] = str(base / Path(str(entry[name])).expanduser())
    spec = entry.get("exec")
    if isinstance(spec, dict) and "/" in str(spec.get("command", "")):
        entry["exec"] = {**spec, "command": str(base / Path(str(spec["command"])).expanduser())}
    return entry


# -- resolution ------------------------------------------------------------------------


def resolve(access: ClusterAccess, environ: Mapping[str, str] | None = None,
            service_account_dir: Path | None = None) -> ConnectionConfig:
    """The connection `access` describes (client-go's ToRawKubeConfigLoader().ClientConfig())."""
    env = os.environ if environ is None else environ
    if access.eks_cluster or access.eks_region or access.eks_role_arn:
        return _eks_config(access)
    service_account_dir = service_account_dir or SERVICE_ACCOUNT_DIR
    files = _load_files(access.kubeconfig, env)
    context_name = access.context or files.current_context
    if access.context and access.context not in files.contexts:
        raise KubeconfigError(f'context "{access.context}" does not exist')
    if context_name and context_name not in files.contexts:
        raise KubeconfigError(f"invalid configuration: context was not found for specified context: {context_name}")
    context = files.contexts.get(context_name, {})
    cluster_name = str(context.get("cluster") or "")
    cluster = _override_cluster(dict(files.clusters.get(cluster_name, {})), access)
    user = _override_user(dict(files.users.get(str(context.get("user") or ""), {})), access)
    in_cluster = _InCluster(env, service_account_dir)
    # client-go tries the pod's service account when the kubeconfig names no server and
    # asks for no impersonation (what is left then equals its defaults).
    if not cluster.get("server") and not user.get("as") and in_cluster.possible():
        return in_cluster.config(access)
    namespace = access.namespace or str(context.get("namespace") or "")
    if not namespace:
        namespace = in_cluster.namespace() if in_cluster.possible() else "default"
    if not cluster.get("server"):
        cluster["server"] = env.get("KUBERNETES_MASTER") or DEFAULT_SERVER
    return _config(cluster, user, namespace, access, cluster_name)


def default_namespace(access: ClusterAccess, environ: Mapping[str, str] | None = None,
                      service_account_dir: Path | None = None) -> str:
    """Helm's EnvSettings.Namespace(): `-n`, else the chosen context's namespace, else the
    pod's service account's, else "default" (also when the kubeconfig cannot be used:
    Helm passes over the loader's error there)."""
    if access.namespace:
        return access.namespace
    if access.eks_cluster:
        return "default"  # no kubeconfig context: as `aws eks update-kubeconfig` writes one
    env = os.environ if environ is None else environ
    found = context_namespace(access.kubeconfig, access.context, env)
    if found is not None:
        return found
    try:
        return resolve(access, env, service_account_dir).namespace
    except KubeconfigError:
        return "default"


def _override_cluster(cluster: dict[str, Any], access: ClusterAccess) -> dict[str, Any]:
    if access.apiserver:
        cluster["server"] = access.apiserver
    if access.insecure_skip_tls_verify or access.ca_file:
        # A CA file or insecure mode given on the command line replaces the kubeconfig's CA.
        cluster.pop("certificate-authority-data", None)
        cluster["certificate-authority"] = access.ca_file
        cluster["insecure-skip-tls-verify"] = access.insecure_skip_tls_verify
    if access.tls_server_name or access.apiserver:
        # Another server makes the kubeconfig's tls-server-name meaningless.
        cluster["tls-server-name"] = access.tls_server_name
    return cluster


def _override_user(user: dict[str, Any], access: ClusterAccess) -> dict[str, Any]:
    if access.token:
        user["token"] = access.token
    if access.as_user:
        user["as"] = access.as_user
    if access.as_groups:
        user["as-groups"] = list(access.as_groups)
    return user


def _config(cluster: dict[str, Any], user: dict[str, Any], namespace: str,
            access: ClusterAccess, cluster_name: str) -> ConnectionConfig:
    server = str(cluster.get("server") or "")
    if not server:
        raise KubeconfigError("invalid configuration: no configuration has been provided, "
                              "try setting KUBERNETES_MASTER environment variable")
    token = str(user.get("token") or "")
    impersonate = str(user.get("as") or "")
    extra = user.get("as-user-extra") or {}
    return ConnectionConfig(
        server=_server_url(server), namespace=namespace,
        ca_data=_pem(cluster, "certificate-authority"),
        insecure=bool(cluster.get("insecure-skip-tls-verify")),
        tls_server_name=str(cluster.get("tls-server-name") or ""),
        proxy_url=str(cluster.get("proxy-url") or ""),
        cert_data=_pem(user, "client-certificate"), key_data=_pem(user, "client-key"),
        token=token, token_file="" if token else str(user.get("tokenFile") or ""),
        username=str(user.get("username") or ""), password=str(user.get("password") or ""),
        exec_spec=dict(user.get("exec") or {}), auth_provider=dict(user.get("auth-provider") or {}),
        # Groups, uid and extras are impersonated only along with a user, as client-go does.
        impersonate_user=impersonate,
        impersonate_uid=str(user.get("as-uid") or "") if impersonate else "",
        impersonate_groups=tuple(str(g) for g in user.get("as-groups") or ()) if impersonate else (),
        impersonate_extra=tuple((str(k), tuple(str(v) for v in vs)) for k, vs in extra.items()) if impersonate else (),
        qps=access.qps, burst=access.burst, cluster_name=cluster_name, cluster=cluster,
    )


def _server_url(server: str) -> str:
    """client-go drops a query and fragment from the server URL and a trailing slash."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(server)
    if not parts.scheme or not parts.netloc:
        raise KubeconfigError(f'invalid configuration: host must be a URL or a host:port pair: "{server}"'
                              if "://" in server else f"invalid configuration: no scheme in server {server!r}")
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def _pem(entry: dict[str, Any], name: str) -> bytes:
    """`name-data` (base64, kept in memory) or the bytes of file `name`; b'' when neither."""
    if entry.get(f"{name}-data"):
        try:
            return base64.b64decode(str(entry[f"{name}-data"]), validate=True)
        except ValueError as err:
            raise KubeconfigError(f"{name}-data: illegal base64 data") from err
    if entry.get(name):
        try:
            return Path(str(entry[name])).read_bytes()
        except OSError as err:
            raise KubeconfigError(f"open {entry[name]}: {(err.strerror or str(err)).lower()}") from err
    return b""


# -- EKS -------------------------------------------------------------------------------


def _eks_config(access: ClusterAccess) -> ConnectionConfig:
    """The EKS cluster's connection: no kubeconfig is read. The server, CA, TLS and
    impersonation flags apply over what DescribeCluster gives; a kubeconfig, context or
    token would name another cluster or identity, so they are refused with it."""
    if not access.eks_cluster:
        given = [f for f, v in (("--eks-region", access.eks_region), ("--eks-role-arn", access.eks_role_arn)) if v]
        raise KubeconfigError(f"{' and '.join(given)} {'need' if len(given) > 1 else 'needs'} --eks-cluster "
                              "(the EKS cluster's name)")
    clash = [f for f, v in (("--kubeconfig", access.kubeconfig), ("--kube-context", access.context),
                            ("--kube-token", access.token)) if v]
    if clash:
        raise KubeconfigError(f"--eks-cluster and {' and '.join(clash)} cannot be used together: "
                              "the EKS login gives the cluster and the identity")
    from runner.aws.eks import EksError, connect

    try:
        found = connect(access.eks_cluster, access.eks_region, access.eks_role_arn)
    except EksError as err:
        raise KubeconfigError(str(err)) from err
    cluster = _override_cluster({"server": found.endpoint,
                                 "certificate-authority-data": base64.b64encode(found.ca_data).decode()}, access)
    config = _config(cluster, _override_user({}, access), access.namespace or "default", access,
                     f"eks:{found.region}:{found.name}")
    return replace(config, token_source=found.token)


# -- in-cluster -----------------------------------------------------------------------


@dataclass(frozen=True)
class _InCluster:
    """rest.InClusterConfig: the pod's service account (token, CA, namespace files)."""

    environ: Mapping[str, str]
    directory: Path

    def possible(self) -> bool:
        return bool(self.environ.get("KUBERNETES_SERVICE_HOST") and self.environ.get("KUBERNETES_SERVICE_PORT")
                    and (self.directory / "token").is_file())

    def namespace(self) -> str:
        if self.environ.get("POD_NAMESPACE"):
            return self.environ["POD_NAMESPACE"]
        try:
            return (self.directory / "namespace").read_text().strip() or "default"
        except OSError:
            return "default"

    def config(self, access: ClusterAccess) -> ConnectionConfig:
        """Only a server, a token and a CA file may override it (client-go's inClusterClientConfig)."""
        host, port = self.environ["KUBERNETES_SERVICE_HOST"], self.environ["KUBERNETES_SERVICE_PORT"]
        server = access.apiserver or f"https://{f'[{host}]' if ':' in host else host}:{port}"
        token_file = "" if access.token else str(self.directory / "token")
        try:
            ca = Path(access.ca_file or self.directory / "ca.crt").read_bytes()
        except OSError:
            ca = b""  # client-go logs and goes on with the system roots
        return ConnectionConfig(server=server, namespace=access.namespace or self.namespace(), ca_data=ca,
                                token=access.token, token_file=token_file, qps=access.qps, burst=access.burst)
