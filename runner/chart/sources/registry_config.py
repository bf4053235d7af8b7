"""The registry credentials file (`$HELM_REGISTRY_CONFIG`, Docker's config.json shape).

`registry login` stores `auths.<host>.auth` = base64("user:password") as oras'
file store does (0600, tab-indented JSON, keys sorted); pulls and pushes read
it back. Other keys of the file are kept.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any


def _read(path: Path) -> dict[str, Any]:
    try:
        content = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return content if isinstance(content, dict) else {}


def stored_credentials(host: str, path: Path) -> tuple[str, str]:
    """The user and password `registry login` stored for `host` ("", "" when none)."""
    auths = _read(path).get("auths") or {}
    if not isinstance(auths, dict):
        return "", ""
    entry = auths.get(host) or auths.get(f"https://{host}") or auths.get(f"http://{host}") or {}
    try:
        user, _, password = base64.b64decode(entry.get("auth", "")).decode().partition(":")
    except (ValueError, UnicodeDecodeError, AttributeError):
        return "", ""
    return user, password


def store_credentials(host: str, user: str, password: str, path: Path) -> None:
    content = _read(path)
    auths = content.get("auths") if isinstance(content.get("auths"), dict) else {}
    auths[host] = {"auth": base64.b64encode(f"{user}:{password}".encode()).decode()}
    content["auths"] = auths
    _write(path, content)


def remove_credentials(host: str, path: Path) -> None:
    content = _read(path)
    auths = content.get("auths") if isinstance(content.get("auths"), dict) else {}
    auths.pop(host, None)
    content["auths"] = auths
    _write(path, content)


def _write(path: Path, content: dict[str, Any]) -> None:
    """Replace the file whole (a private temporary file renamed into place), mode 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(content, indent="\t", sort_keys=True))
    os.replace(temporary, path)
