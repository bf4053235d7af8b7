"""HTTP to the API server straight from a kubeconfig, over urllib3.

Importing the `kubernetes` package costs about two seconds (it loads every
API model), which a deploy step pays on every run; this transport covers what
kubeconfigs hold in practice — server and CA, client certificates, bearer
tokens (inline or file), basic auth and exec credential plugins (EKS, GKE,
AKS) — and `KubeClient.from_kubeconfig` falls back to the kubernetes
package for anything else (legacy auth-provider entries).
"""

from __future__ import annotations

import base64
import json
import os
import ssl
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlencode

from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

DEFAULT_TIMEOUT_SECONDS = 60.0


class KubeconfigError(RunnerError):
    """The kubeconfig cannot be read or names something it does not define."""


class UnsupportedKubeconfig(Exception):  # noqa: N818 - internal signal, never shown to users
    """A kubeconfig feature this transport leaves to the kubernetes package."""


@dataclass(frozen=True)
class Kubeconfig:
    server: str
    namespace: str
    cluster: dict[str, Any]
    user: dict[str, Any]
    base: Path  # relative file paths resolve from the kubeconfig's directory


def load_kubeconfig(path: str | None, context: str | None) -> Kubeconfig:
    files = [p for p in (path or os.environ.get("KUBECONFIG") or "~/.kube/config").split(os.pathsep) if p]
    docs = [_read(Path(p).expanduser()) for p in files]
    docs = [d for d in docs if d]
    if not docs:
        raise KubeconfigError("invalid configuration: no configuration has been provided")
    chosen = context or next((d.get("current-context") for d in docs if d.get("current-context")), "")
    ctx = _named(docs, "contexts", chosen, "context")
    cluster = _named(docs, "clusters", ctx.get("cluster", ""), "cluster")
    user = _named(docs, "users", ctx.get("user", ""), "user") if ctx.get("user") else {}
    if not cluster.get("server"):
        raise KubeconfigError("invalid configuration: no server found for cluster")
    base = Path(files[0]).expanduser().resolve().parent
    return Kubeconfig(str(cluster["server"]).rstrip("/"), str(ctx.get("namespace") or "default"),
                      cluster, user, base)


def _read(path: Path) -> dict[str, Any]:
    import yaml

    if not path.exists():
        return {}
    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present
        data = yaml.load(path.read_text(), Loader=loader)  # noqa: S506 - a safe loader
    except (OSError, yaml.YAMLError) as err:
        raise KubeconfigError(f"error loading config file \"{path}\": {err}") from err
    return data if isinstance(data, dict) else {}


def _named(docs: list[dict[str, Any]], section: str, name: str, key: str) -> dict[str, Any]:
    for doc in docs:  # the first file defining a name wins, as kubectl merges
        for item in doc.get(section) or []:
            if item.get("name") == name:
                return dict(item.get(key) or {})
    what = section.rstrip("s")
    raise KubeconfigError(f'{what} "{name}" does not exist' if name else
                          "invalid configuration: no configuration has been provided")


@dataclass
class Reply:
    status: int
    data: bytes


@dataclass
class Transport:
    config: Kubeconfig
    _pool: Any = None
    _token: str = ""
    _token_expiry: float = 0.0
    _temp: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        import urllib3

        if "auth-provider" in self.config.user:
            raise UnsupportedKubeconfig("auth-provider")
        self._pool = urllib3.PoolManager(maxsize=8, ssl_context=self._ssl_context(),
                                         timeout=urllib3.Timeout(total=DEFAULT_TIMEOUT_SECONDS),
                                         retries=False)

    def request(self, method: str, path: str, query: list[tuple[str, str]], headers: dict[str, str],
                body: bytes | None) -> Reply:
        import urllib3

        url = self.config.server + path + (f"?{urlencode(query)}" if query else "")
        headers = {**headers, **self._auth_headers()}
        try:
            response = self._pool.request(method, url, body=body, headers=headers)
        except urllib3.exceptions.HTTPError as err:
            raise RunnerError(f"kubernetes cluster unreachable: {err}") from err
        return Reply(response.status, response.data)

    # -- TLS -----------------------------------------------------------------------

    def _ssl_context(self) -> ssl.SSLContext:
        cluster, user = self.config.cluster, self.config.user
        # Only the cluster's CA when the kubeconfig names one: loading the system
        # store as well costs a noticeable part of a second on every run.
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        has_ca = cluster.get("certificate-authority-data") or cluster.get("certificate-authority")
        if not has_ca:
            context.load_default_certs()
        if cluster.get("insecure-skip-tls-verify"):
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif cluster.get("certificate-authority-data"):
            context.load_verify_locations(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
        elif cluster.get("certificate-authority"):
            context.load_verify_locations(cafile=str(self._path(cluster["certificate-authority"])))
        cert = self._file(user, "client-certificate")
        key = self._file(user, "client-key")
        if cert and key:
            context.load_cert_chain(cert, key)
        return context

    def _file(self, entry: dict[str, Any], name: str) -> str:
        if entry.get(f"{name}-data"):
            handle = tempfile.NamedTemporaryFile(prefix="kube-", delete=False)  # noqa: SIM115
            with handle:
                handle.write(base64.b64decode(entry[f"{name}-data"]))
            self._temp.append(handle.name)
            return handle.name
        return str(self._path(entry[name])) if entry.get(name) else ""

    def _path(self, name: str) -> Path:
        path = Path(name).expanduser()
        return path if path.is_absolute() else self.config.base / path

    def close(self) -> None:
        for name in self._temp:
            Path(name).unlink(missing_ok=True)
        self._temp.clear()

    # -- credentials ------------------------------------------------------------------

    def _auth_headers(self) -> dict[str, str]:
        user = self.config.user
        if user.get("token"):
            return {"Authorization": f"Bearer {user['token']}"}
        if user.get("tokenFile"):
            return {"Authorization": f"Bearer {self._path(user['tokenFile']).read_text().strip()}"}
        if user.get("username"):
            pair = f"{user['username']}:{user.get('password', '')}".encode()
            return {"Authorization": f"Basic {base64.b64encode(pair).decode()}"}
        if user.get("exec"):
            return {"Authorization": f"Bearer {self._exec_token()}"}
        return {}

    def _exec_token(self) -> str:
        """client.authentication.k8s.io ExecCredential: run the plugin, cache until expiry."""
        if self._token and time.time() < self._token_expiry:
            return self._token
        spec = self.config.user["exec"]
        env = {**os.environ, **{e["name"]: e["value"] for e in spec.get("env") or []}}
        try:
            done = subprocess.run([spec["command"], *(spec.get("args") or [])], env=env,
                                  capture_output=True, text=True, timeout=60, check=True)
        except (OSError, subprocess.SubprocessError) as err:
            raise KubeconfigError(f"getting credentials: exec: {err}") from err
        status = (json.loads(done.stdout or "{}").get("status") or {})
        if not status.get("token"):
            raise UnsupportedKubeconfig("exec plugin without a token")
        self._token = status["token"]
        expiry = status.get("expirationTimestamp")
        self._token_expiry = (datetime.fromisoformat(expiry.replace("Z", "+00:00")).timestamp() - 30
                              if expiry else time.time() + 300)
        return self._token
