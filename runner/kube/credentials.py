"""Who we are to the API server: the Authorization and Impersonate-* headers and the TLS
client certificate, from a resolved ConnectionConfig, as client-go's transport sets them.

- a bearer token (or a token file, re-read every minute so that rotated
  service-account tokens are picked up, as client-go's cachingTokenSource does),
  basic auth, or a client certificate from the kubeconfig;
- otherwise an exec credential plugin (client.authentication.k8s.io v1/v1beta1:
  EKS, GKE, AKS, ...), which may return a token or a client certificate and key;
  its answer is kept until its expirationTimestamp, and run again after a 401;
- or an in-process token source (ConnectionConfig.token_source: runner.aws.eks's
  EKS token), kept and refreshed by the same cache as an exec plugin's answer;
- an `oidc` auth-provider's id-token while it is valid (the other legacy
  auth-providers were removed from client-go: their error says what replaces them).
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
import time
from typing import Any

from runner.errors import RunnerError
from runner.kube.kubeconfig import ConnectionConfig

TOKEN_FILE_REREAD_SECONDS = 60.0
EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
_INSTALL_HINT = (
    "\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\n"
    "To learn more about this feature, consult the documentation available at:\n"
    "      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins")
_REMOVED_PROVIDERS = {
    "gcp": ('The gcp auth plugin has been removed.\nPlease use the "gke-gcloud-auth-plugin" '
            "kubectl/client-go credential plugin instead.\nSee https://cloud.google.com/blog/products/"
            "containers-kubernetes/kubectl-auth-changes-in-gke for further details"),
    "azure": ("The azure auth plugin has been removed.\nPlease use the https://github.com/Azure/kubelogin "
              "kubectl/client-go credential plugin instead.\nSee https://kubernetes.io/docs/reference/"
              "access-authn-authz/authentication/#client-go-credential-plugins for further details"),
}


class CredentialError(RunnerError):
    """Credentials could not be obtained (client-go's "getting credentials: ...")."""


class Credentials:
    """The headers and client certificate of each request; thread-safe."""

    def __init__(self, config: ConnectionConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._file_token = ""
        self._file_read_at = 0.0
        self._renewable: RefreshingCredential | None = None
        if config.auth_provider:
            _check_auth_provider(config.auth_provider)
        if config.token_source is not None:
            self._renewable = SourceCredential(config.token_source)
        # The exec plugin only runs when nothing else identifies the user (client-go).
        elif config.exec_spec and not (self._static_token_configured() or config.username or config.cert_data):
            self._renewable = ExecPlugin(config)

    def _static_token_configured(self) -> bool:
        return bool(self.config.token or self.config.token_file)

    # -- TLS ---------------------------------------------------------------------------

    def client_certificate(self) -> tuple[bytes, bytes]:
        """PEM certificate and key to present (b'', b'' for none); may run the exec plugin."""
        if self.config.cert_data or self.config.key_data:
            return self.config.cert_data, self.config.key_data
        if self._renewable is not None:
            found = self._renewable.credentials()
            return found.cert, found.key
        return b"", b""

    # -- headers -------------------------------------------------------------------------

    def headers(self) -> list[tuple[str, str]]:
        """(name, value) pairs; a name may repeat (one Impersonate-Group per group)."""
        found = self._impersonation()
        authorization = self._authorization()
        if authorization:
            found.append(("Authorization", authorization))
        return found

    def _authorization(self) -> str:
        config = self.config
        if config.token:
            return f"Bearer {config.token}"
        if config.token_file:
            return f"Bearer {self._read_token_file()}"
        if config.username:
            pair = f"{config.username}:{config.password}".encode()
            return f"Basic {base64.b64encode(pair).decode()}"
        if self._renewable is not None:
            token = self._renewable.credentials().token
            return f"Bearer {token}" if token else ""
        if config.auth_provider:
            return f"Bearer {_oidc_id_token(config.auth_provider)}"
        return ""

    def _impersonation(self) -> list[tuple[str, str]]:
        config = self.config
        if not config.impersonate_user:
            return []
        # The API server reads every header line of a name as one value (no comma splitting).
        found = [("Impersonate-User", config.impersonate_user)]
        if config.impersonate_uid:
            found.append(("Impersonate-Uid", config.impersonate_uid))
        found += [("Impersonate-Group", group) for group in config.impersonate_groups]
        for key, values in config.impersonate_extra:
            found += [(f"Impersonate-Extra-{_header_key(key)}", value) for value in values]
        return found

    def _read_token_file(self) -> str:
        with self._lock:
            if self._file_token and time.monotonic() - self._file_read_at < TOKEN_FILE_REREAD_SECONDS:
                return self._file_token
            try:
                with open(self.config.token_file) as handle:
                    token = handle.read().strip()
            except OSError as err:
                if self._file_token:
                    return self._file_token  # keep the last good token, as client-go does
                raise CredentialError(f"open {self.config.token_file}: {(err.strerror or str(err)).lower()}") from err
            self._file_token, self._file_read_at = token, time.monotonic()
            return token

    def unauthorized(self) -> bool:
        """The server answered 401: the exec plugin runs again (the token source is asked
        again) for the next request. True when there is such a credential to renew, so that
        the request may be sent once more with it."""
        if self._renewable is None:
            return False
        self._renewable.expire()
        return True

    def refusal(self) -> str:
        """What to tell about a 401 that renewing the credential did not cure ("" for nothing
        more than the server's words): a token source says whose token was refused."""
        source = self.config.token_source
        return str(source.refused()) if source is not None and hasattr(source, "refused") else ""


def _header_key(key: str) -> str:
    """Impersonate-Extra-<key>: keys are percent-encoded as client-go does."""
    from urllib.parse import quote

    return quote(key, safe="!#$&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _check_auth_provider(provider: dict[str, Any]) -> None:
    name = str(provider.get("name") or "")
    if name in _REMOVED_PROVIDERS:
        raise CredentialError(_REMOVED_PROVIDERS[name])
    if name != "oidc":
        raise CredentialError(f'no Auth Provider found for name "{name}"')


def _oidc_id_token(provider: dict[str, Any]) -> str:
    """The oidc provider's id-token while it is valid. Refreshing it would mean writing the
    new tokens back into the user's kubeconfig (refresh tokens are often single-use), which
    kubectl does: an expired one says so instead."""
    token = str((provider.get("config") or {}).get("id-token") or "")
    if not token:
        raise CredentialError("oidc: the kubeconfig has no id-token: log in with kubectl first "
                              "(deploy-runner does not run the OIDC login flow)")
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        expiry = float(claims.get("exp", 0))
    except (IndexError, ValueError, TypeError, AttributeError) as err:
        raise CredentialError("oidc: the id-token in the kubeconfig is not a JWT") from err
    if expiry and expiry < time.time() + 10:
        raise CredentialError("oidc: the id-token in the kubeconfig has expired and deploy-runner "
                              "does not refresh it: run any kubectl command to refresh it, then retry")
    return token


class ExecResult:
    __slots__ = ("token", "cert", "key", "expires")

    def __init__(self, token: str, cert: bytes, key: bytes, expires: float) -> None:
        self.token, self.cert, self.key, self.expires = token, cert, key, expires

    def __repr__(self) -> str:  # the token and key stay out of logs and tracebacks
        return f"ExecResult(token={'set' if self.token else 'none'}, cert={'set' if self.cert else 'none'})"


def now() -> float:
    """The clock credential expiry is read against (unit tests move it)."""
    return time.time()


class RefreshingCredential:
    """client-go's exec Authenticator cache: a credential fetched when first needed, kept
    until its expiry (none: until a 401), fetched again after a 401 (`expire`). Exec plugins
    and in-process token sources share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cached: ExecResult | None = None

    def credentials(self) -> ExecResult:
        with self._lock:
            if self._cached is None or (self._cached.expires and now() >= self._cached.expires):
                self._cached = self._fetch()
            return self._cached

    def expire(self) -> None:
        with self._lock:
            self._cached = None

    def _fetch(self) -> ExecResult:
        raise NotImplementedError


class SourceCredential(RefreshingCredential):
    """An in-process token source (ConnectionConfig.token_source): its `fetch()` gives
    (token, expires) as an exec plugin's ExecCredential would (expires: seconds since the
    epoch, by which a new token is needed; runner.aws.eks gives its tokens 14 minutes, as
    `aws eks get-token` does). What it raises is the request's failure, in its words."""

    def __init__(self, source: Any) -> None:
        super().__init__()
        self.source = source

    def _fetch(self) -> ExecResult:
        try:
            token, expires = self.source.fetch()
        except RunnerError as err:
            raise CredentialError(str(err)) from err
        return ExecResult(token, b"", b"", expires)


class ExecPlugin(RefreshingCredential):
    """client-go's exec Authenticator: runs the plugin, caches its ExecCredential."""

    def __init__(self, config: ConnectionConfig) -> None:
        super().__init__()
        self.config = config
        self.spec = config.exec_spec
        self.api_version = str(self.spec.get("apiVersion") or "")
        if self.api_version not in EXEC_API_VERSIONS:
            raise CredentialError(f'exec plugin: invalid apiVersion "{self.api_version}"')

    def _fetch(self) -> ExecResult:
        return self._run()

    def _run(self) -> ExecResult:
        import subprocess  # only a cluster with an exec plugin pays for it

        command = str(self.spec.get("command") or "")
        interactive = self._interactive()
        env = {**os.environ, **{str(e["name"]): str(e["value"]) for e in self.spec.get("env") or []},
               "KUBERNETES_EXEC_INFO": json.dumps(self._exec_info(interactive))}
        try:
            # The plugin's stderr is the user's (prompts, warnings), as with kubectl.
            done = subprocess.run([command, *(str(a) for a in self.spec.get("args") or [])], env=env,
                                  stdin=None if interactive else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, check=False)
        except FileNotFoundError as err:
            hint = str(self.spec.get("installHint") or "")
            raise CredentialError(f"getting credentials: exec: executable {command} not found{_INSTALL_HINT}"
                                  + (f"\n\n{hint}" if hint else "")) from err
        except OSError as err:
            raise CredentialError(f"getting credentials: exec: {err}") from err
        if done.returncode != 0:
            raise CredentialError(f"getting credentials: exec: executable {command} failed with exit code "
                                  f"{done.returncode}")
        return self._parse(done.stdout)

    def _interactive(self) -> bool:
        mode = str(self.spec.get("interactiveMode") or "IfAvailable")
        is_terminal = sys.stdin is not None and sys.stdin.isatty()
        if mode == "Never":
            return False
        if mode == "IfAvailable":
            return is_terminal
        if mode == "Always":
            if not is_terminal:
                raise CredentialError("getting credentials: exec plugin cannot support interactive mode: "
                                      "standard input is not a terminal")
            return True
        raise CredentialError(f"getting credentials: exec plugin cannot support interactive mode: "
                              f'unknown interactiveMode: "{mode}"')

    def _exec_info(self, interactive: bool) -> dict[str, Any]:
        spec: dict[str, Any] = {"interactive": interactive}
        if self.spec.get("provideClusterInfo"):
            cluster = self.config.cluster
            spec["cluster"] = {k: v for k, v in {
                "server": self.config.server,
                "tls-server-name": self.config.tls_server_name,
                "insecure-skip-tls-verify": self.config.insecure,
                "certificate-authority-data": base64.b64encode(self.config.ca_data).decode(),
                "proxy-url": self.config.proxy_url,
                "disable-compression": bool(cluster.get("disable-compression")),
                "config": ((cluster.get("extensions") and _exec_extension(cluster["extensions"])) or None),
            }.items() if v}
        return {"kind": "ExecCredential", "apiVersion": self.api_version, "spec": spec}

    def _parse(self, stdout: bytes) -> ExecResult:
        try:
            credential = json.loads(stdout)
        except ValueError as err:
            raise CredentialError(f"getting credentials: decoding stdout: {err}") from err
        if not isinstance(credential, dict) or credential.get("kind") != "ExecCredential":
            raise CredentialError("getting credentials: decoding stdout: the plugin did not print an ExecCredential")
        if credential.get("apiVersion") != self.api_version:
            raise CredentialError(f"getting credentials: exec plugin is configured to use API version "
                                  f"{self.api_version}, plugin returned version {credential.get('apiVersion')}")
        status = credential.get("status")
        if not isinstance(status, dict):
            raise CredentialError("getting credentials: exec plugin didn't return a status field")
        token = str(status.get("token") or "")
        cert = str(status.get("clientCertificateData") or "").encode()
        key = str(status.get("clientKeyData") or "").encode()
        if not (token or cert or key):
            raise CredentialError("getting credentials: exec plugin didn't return a token or cert/key pair")
        if bool(cert) != bool(key):
            raise CredentialError("getting credentials: exec plugin returned only certificate or key, not both")
        expiry = status.get("expirationTimestamp")
        from datetime import datetime

        try:
            expires = datetime.fromisoformat(str(expiry).replace("Z", "+00:00")).timestamp() if expiry else 0.0
        except ValueError as err:
            raise CredentialError(f"getting credentials: decoding stdout: bad expirationTimestamp {expiry!r}") from err
        return ExecResult(token, cert, key, expires)


def _exec_extension(extensions: Any) -> Any:
    """The cluster's `client.authentication.k8s.io/exec` extension, passed to the plugin."""
    for item in extensions or []:
        if isinstance(item, dict) and item.get("name") == "client.authentication.k8s.io/exec":
            return item.get("extension")
    return None
