"""The Lambda's configuration read from AWS: the spec (an S3 object, an SSM parameter or a
file of the package), a kubeconfig kept in Secrets Manager, and the GitHub credentials
kept there (a token, or a GitHub App's id and private key).

Secrets are kept in memory for SECRET_SECONDS, so a warm container asks Secrets Manager
once in a while, not at every invocation, and a rotated secret is read within that time;
they never reach a log line or a result. A kubeconfig is written under the function's
/tmp (0600) only when it changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.aws import clients
from runner.errors import RunnerError

SECRET_SECONDS = 300.0
MAX_SPEC_BYTES = 1024 * 1024

_lock = threading.Lock()
_secrets: dict[str, tuple[float, str]] = {}


class ConfigError(RunnerError):
    """The function's configuration cannot be read: one line naming the variable and why."""


@dataclass(frozen=True)
class SpecText:
    """A spec's text and the names it goes by."""

    text: str
    source: str  # the name errors use: s3://..., ssm:NAME, the file's path
    base_dir: str  # where relative chart and values paths point


def read_spec(where: str, task_root: str, *, from_event: bool = False) -> SpecText:
    """The spec `where` names: `s3://bucket/key`, `ssm:NAME` (an SSM parameter, SecureString
    decrypted) or a file (relative to the package's root, `task_root`). A reference that
    came in an event (`from_event`) may name only files inside the package."""
    if where.startswith("s3://"):
        from runner.aws import s3
        from runner.chart.sources.errors import SourceError

        try:
            data = s3.read(where, MAX_SPEC_BYTES)
        except SourceError as err:
            raise ConfigError(f"the spec: {err}") from err
        return SpecText(_text(data, where), where, task_root)
    if where.startswith("ssm:"):
        name = where.removeprefix("ssm:")
        if not name:
            raise ConfigError(f"the spec {where!r}: names no SSM parameter")
        ssm = clients.client("ssm")
        answer = clients.call(f"ssm:GetParameter {name}", lambda: ssm.get_parameter(Name=name, WithDecryption=True))
        return SpecText(str((answer.get("Parameter") or {}).get("Value") or ""), where, task_root)
    return _package_file(where, task_root, from_event)


def _package_file(where: str, task_root: str, from_event: bool) -> SpecText:
    root = os.path.realpath(task_root)
    path = os.path.realpath(os.path.join(root, where))
    if from_event and os.path.commonpath([root, path]) != root:
        raise ConfigError(f"specRef {where!r}: a file must be inside the function's package")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SPEC_BYTES + 1)
    except OSError as err:
        raise ConfigError(f"the spec {where}: {(err.strerror or str(err)).lower()}") from None
    if len(data) > MAX_SPEC_BYTES:
        raise ConfigError(f"the spec {where}: more than {MAX_SPEC_BYTES} bytes")
    return SpecText(_text(data, where), where, os.path.dirname(path))


def _text(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"the spec {where}: not UTF-8 text ({err.reason} at byte {err.start})") from None


def secret(secret_id: str, clock: Callable[[], float] = time.monotonic) -> str:
    """A Secrets Manager secret's text (kept SECRET_SECONDS)."""
    with _lock:
        kept = _secrets.get(secret_id)
        if kept is not None and kept[0] > clock():
            return kept[1]
    manager = clients.client("secretsmanager")
    answer = clients.call(f"secretsmanager:GetSecretValue {secret_id}",
                          lambda: manager.get_secret_value(SecretId=secret_id))
    text = answer.get("SecretString")
    if not isinstance(text, str):
        raise ConfigError(f"the secret {secret_id} holds no text (SecretString)")
    with _lock:
        _secrets[secret_id] = (clock() + SECRET_SECONDS, text)
    return text


def kubeconfig_file(secret_id: str, directory: str) -> str:
    """A kubeconfig kept in Secrets Manager, as a file of `directory` (0600), rewritten
    only when the secret changed; its path."""
    text = secret(secret_id)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = os.path.join(directory, f"kubeconfig-{digest}")
    if not os.path.exists(path):
        os.makedirs(directory, mode=0o700, exist_ok=True)
        partial = f"{path}.{os.getpid()}.partial"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(partial, path)
    return path


@dataclass(frozen=True)
class GitHubCredentials:
    """What the function posts to GitHub with: a token, or a GitHub App's id and key."""

    token: str = ""
    app_id: str = ""
    private_key: str = ""
    installation_id: int = 0  # 0: the App's installation on the repository, asked for

    def __repr__(self) -> str:  # never the secret parts
        return f"GitHubCredentials(app_id={self.app_id!r}, installation_id={self.installation_id!r})"


def github_credentials(secret_id: str) -> GitHubCredentials:
    """The secret as GitHub credentials: a token as it is, or JSON `{"token": ...}` or
    `{"app_id": ..., "private_key": ..., "installation_id": ...}`."""
    text = secret(secret_id).strip()
    if not text.startswith("{"):
        if not text:
            raise ConfigError(f"the GitHub secret {secret_id} is empty")
        return GitHubCredentials(token=text)
    try:
        data: Any = json.loads(text)
    except ValueError:
        raise ConfigError(f"the GitHub secret {secret_id} is neither a token nor JSON") from None
    if isinstance(data, dict) and isinstance(data.get("token"), str) and data["token"]:
        return GitHubCredentials(token=data["token"])
    if isinstance(data, dict) and data.get("app_id") and isinstance(data.get("private_key"), str):
        installation = data.get("installation_id") or 0
        if not isinstance(installation, int | str) or not str(installation).isdigit():
            raise ConfigError(f"the GitHub secret {secret_id}: installation_id must be a number")
        return GitHubCredentials(app_id=str(data["app_id"]), private_key=data["private_key"],
                                 installation_id=int(installation))
    raise ConfigError(f'the GitHub secret {secret_id}: JSON must have "token", or "app_id" and '
                      '"private_key" (and optionally "installation_id")')


def forget() -> None:
    """Drop every kept secret (a test's clean slate)."""
    with _lock:
        _secrets.clear()
