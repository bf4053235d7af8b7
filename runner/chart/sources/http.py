"""Helm's HTTP getter (pkg/getter/httpgetter.go): basic auth, TLS options, Helm's errors.

`requests` is imported inside the functions that need it, so importing this
module costs nothing on the render path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from runner.chart.sources.connection import ConnectionOptions
from runner.chart.sources.errors import SourceError

USER_AGENT = "Helm/4.1.4"
TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True)
class HttpOptions(ConnectionOptions):
    """Credentials and TLS settings of one request (getter.Options)."""

    # Credentials go only to this URL's host unless pass_credentials_all (Helm's repo URL).
    credentials_url: str = ""

    def sends_credentials_to(self, url: str) -> bool:
        if not (self.username or self.password):
            return False
        if self.pass_credentials_all or not self.credentials_url:
            return True
        origin, target = urlsplit(self.credentials_url), urlsplit(url)
        return (origin.scheme, origin.netloc) == (target.scheme, target.netloc)


def get(url: str, options: HttpOptions | None = None) -> bytes:
    """GET a URL the way Helm's HTTPGetter does; non-200 answers are Helm's error."""
    import requests

    options = options or HttpOptions()
    kwargs = _request_kwargs(url, options)
    try:
        response = requests.get(url, timeout=TIMEOUT_SECONDS, **kwargs)
    except requests.exceptions.SSLError as exc:
        raise SourceError(f'Get "{url}": {tls_reason(exc)}') from exc
    except requests.exceptions.RequestException as exc:
        raise SourceError(f'Get "{url}": {go_net_error(exc, url)}') from exc
    if response.status_code != 200:
        raise SourceError(f"failed to fetch {url} : {response.status_code} {response.reason}")
    return response.content


def _request_kwargs(url: str, options: HttpOptions) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"headers": {"User-Agent": USER_AGENT}}
    if options.sends_credentials_to(url):
        kwargs["auth"] = (options.username, options.password)
    if options.insecure_skip_tls_verify:
        kwargs["verify"] = False
        _quiet_insecure_warning()
    elif options.ca_file:
        kwargs["verify"] = options.ca_file
    if options.cert_file and options.key_file:
        kwargs["cert"] = (options.cert_file, options.key_file)
    return kwargs


def _quiet_insecure_warning() -> None:
    import urllib3

    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)


def tls_reason(exc: Exception) -> str:
    """Go's crypto/tls wording for the failures Python's ssl module reports."""
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text and "unable to get local issuer" in text:
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    if "CERTIFICATE_VERIFY_FAILED" in text and "self-signed" in text:
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return f"tls: failed to verify certificate: {_reason(exc)}"
    return f"remote error: tls: {_reason(exc)}"


def go_net_error(exc: Exception, url: str) -> str:
    """Go's net/http wording for a failed connection (what Helm prints after `Get "URL": `)."""
    import requests

    text = str(exc)
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = f"{parts.hostname}:{port}"
    if "Connection refused" in text:
        return f"dial tcp {address}: connect: connection refused"
    if "Name or service not known" in text or "nodename nor servname" in text or "getaddrinfo failed" in text:
        return f"dial tcp: lookup {parts.hostname}: no such host"
    if isinstance(exc, requests.exceptions.SSLError) and "WRONG_VERSION_NUMBER" in text:
        return "http: server gave HTTP response to HTTPS client"
    if isinstance(exc, requests.exceptions.Timeout):
        return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
    return _reason(exc)


def _reason(exc: Exception) -> str:
    text = str(exc.args[0]) if exc.args else str(exc)
    return text.split("(Caused by ", 1)[-1].rstrip(")") if "Caused by" in text else text
