"""Pulling charts from ECR: an ECR registry's credentials from ecr:GetAuthorizationToken.

A registry host `ACCOUNT.dkr.ecr.REGION.amazonaws.com` takes the user `AWS` and a
password that GetAuthorizationToken gives (base64 `AWS:PASSWORD`, valid 12 hours), at
the `proxyEndpoint` the same answer names (the registry's own address; `docker login`
uses it). Logins are kept per host until shortly before they expire, so a warm Lambda
asks once.
"""

from __future__ import annotations

import base64
import re
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from runner.aws import clients

ECR_HOST = re.compile(r"(?P<account>\d{12})\.dkr\.ecr(?:-fips)?\.(?P<region>[a-z0-9-]+)\.amazonaws\.com(?:\.cn)?")
RENEW_BEFORE_SECONDS = 15 * 60
DEFAULT_LIFETIME_SECONDS = 12 * 3600

_lock = threading.Lock()
_logins: dict[str, Login] = {}


@dataclass(frozen=True)
class Login:
    """Where an ECR registry is reached and the credentials it takes there."""

    host: str  # the proxyEndpoint's host[:port]
    username: str
    password: str
    plain_http: bool  # a proxyEndpoint over http (a test registry; ECR's is https)
    expires: float  # time.time()

    def __repr__(self) -> str:  # never the password
        return f"Login(host={self.host!r}, username={self.username!r})"


def ecr_registry(host: str) -> tuple[str, str] | None:
    """(account, region) of an ECR registry host, or None for any other host."""
    found = ECR_HOST.fullmatch(host.lower())
    return (found["account"], found["region"]) if found else None


def login(host: str) -> Login:
    """The credentials of ECR registry `host` (kept until RENEW_BEFORE_SECONDS before they expire)."""
    with _lock:
        kept = _logins.get(host)
        if kept is not None and kept.expires - RENEW_BEFORE_SECONDS > time.time():
            return kept
    found = ecr_registry(host)
    if found is None:
        raise clients.AwsError(f"{host} is not an ECR registry (ACCOUNT.dkr.ecr.REGION.amazonaws.com)")
    account, region = found
    ecr = clients.client("ecr", region)
    answer = clients.call(f"ecr:GetAuthorizationToken for {host}",
                          lambda: ecr.get_authorization_token(registryIds=[account]))
    made = _login(host, answer)
    with _lock:
        _logins[host] = made
    return made


def _login(host: str, answer: dict[str, object]) -> Login:
    data = answer.get("authorizationData")
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        raise clients.AwsError(f"ecr:GetAuthorizationToken for {host}: the answer has no authorizationData")
    entry = data[0]
    try:
        user, _, password = base64.b64decode(str(entry.get("authorizationToken") or "")).decode().partition(":")
    except (ValueError, UnicodeDecodeError) as err:
        raise clients.AwsError(f"ecr:GetAuthorizationToken for {host}: the token is not base64 USER:PASSWORD") from err
    if not user or not password:
        raise clients.AwsError(f"ecr:GetAuthorizationToken for {host}: the token is not USER:PASSWORD")
    endpoint = urlsplit(str(entry.get("proxyEndpoint") or f"https://{host}"))
    expires_at = entry.get("expiresAt")
    expires = expires_at.timestamp() if hasattr(expires_at, "timestamp") else time.time() + DEFAULT_LIFETIME_SECONDS
    return Login(endpoint.netloc or host, user, password, endpoint.scheme == "http", expires)


def forget() -> None:
    """Drop every kept login (a test's clean slate)."""
    with _lock:
        _logins.clear()
