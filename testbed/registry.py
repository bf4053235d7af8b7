"""The CNCF distribution registry on loopback: the OCI registry of the chart-source tests.

Built from its Go module at the version pinned in testbed/go/registry/go.mod and
cached like the other testbed binaries (keyed by that version and the Go
toolchain), then started on a free loopback port with in-memory storage.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from testbed.build import go_tool
from testbed.errors import TestbedError

MODULE = "github.com/distribution/distribution/v3"
PACKAGE = f"{MODULE}/cmd/registry"
START_TIMEOUT = 30.0

_CONFIG = """version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  inmemory: {{}}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:{port}
{auth}"""
_AUTH = """auth:
  htpasswd:
    realm: deploy-runner-test
    path: {path}
"""


@dataclass(frozen=True)
class Registry:
    """A running registry: host:port to push to and pull from."""

    host: str
    port: int

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def registry_binary(log: Callable[[str], None] = print) -> Path:
    """The cached registry binary, built on first use."""
    return go_tool("registry", MODULE, PACKAGE, "registry", log)


PORT_ATTEMPTS = 3


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def htpasswd_line(user: str, password: str) -> str:
    """An htpasswd entry (bcrypt, the only scheme the registry accepts)."""
    import bcrypt

    return f"{user}:{bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=5)).decode()}\n"


@contextmanager
def running_registry(binary: Path | None = None, users: dict[str, str] | None = None) -> Iterator[Registry]:
    """Start a registry on a free loopback port (basic auth for `users` if given); stop it on exit."""
    binary = binary or registry_binary()
    with tempfile.TemporaryDirectory(prefix="deploy-runner-registry-") as tmp:
        auth = ""
        if users:
            htpasswd = Path(tmp) / "htpasswd"
            htpasswd.write_text("".join(htpasswd_line(u, p) for u, p in users.items()))
            auth = _AUTH.format(path=htpasswd)
        proc, port = _start(binary, Path(tmp), auth)
        try:
            yield Registry("127.0.0.1", port)
        finally:
            _stop(proc)


def _start(binary: Path, tmp: Path, auth: str) -> tuple[subprocess.Popen[bytes], int]:
    """The registry serving, and its port. A free port is free only when asked: another
    process (a parallel test worker) may take it before the registry binds it, so a start
    that finds its port taken tries another."""
    for attempt in range(PORT_ATTEMPTS):
        port = free_port()
        config = tmp / "config.yml"
        config.write_text(_CONFIG.format(port=port, auth=auth))
        log_path = tmp / f"registry-{attempt}.log"
        with open(log_path, "wb") as log_file:
            proc = subprocess.Popen([str(binary), "serve", str(config)], stdout=log_file,
                                    stderr=subprocess.STDOUT,
                                    env={**os.environ, "OTEL_TRACES_EXPORTER": "none"})
        try:
            _wait_ready(port, proc, log_path)
            return proc, port
        except TestbedError:
            _stop(proc)
            if "address already in use" not in log_path.read_text(errors="replace"):
                raise
    raise TestbedError(f"registry: {PORT_ATTEMPTS} free ports were each taken before it could bind one")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def _wait_ready(port: int, proc: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    url = f"http://127.0.0.1:{port}/v2/"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise TestbedError(f"registry exited: {log_path.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except urllib.error.HTTPError as err:
            if err.code == 401:  # up, and asking for credentials
                return
            time.sleep(0.1)
        except OSError:
            time.sleep(0.1)
    raise TestbedError(f"registry did not answer on {url} within {START_TIMEOUT:.0f}s")
