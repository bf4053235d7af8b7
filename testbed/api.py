"""A few raw HTTPS calls the harness makes before any client library is needed.

Readiness probes and node registration use the standard library only, so
starting the testbed does not import the kubernetes package.
"""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from testbed.errors import TestbedError
from testbed.pki import Pki


class ApiClient:
    """Talks to the testbed's apiserver with the admin client certificate."""

    def __init__(self, server: str, pki: Pki) -> None:
        self.server = server
        self._context = ssl.create_default_context(cafile=str(pki.ca.cert))
        self._context.load_cert_chain(str(pki.admin.cert), str(pki.admin.key))

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, str]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, context=self._context, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")
        except (urllib.error.URLError, OSError) as error:
            return 0, str(error)

    def get_json(self, path: str) -> dict[str, Any] | None:
        status, text = self.request("GET", path)
        return json.loads(text) if status == 200 else None


def wait_until(
    condition: Callable[[], bool],
    timeout: float,
    what: str,
    on_timeout: Callable[[], str] = lambda: "",
    interval: float = 0.25,
) -> None:
    """Poll until condition() holds, or fail naming what was awaited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(interval)
    detail = on_timeout()
    raise TestbedError(f"timed out after {timeout:.0f}s waiting for {what}" + (f"\n{detail}" if detail else ""))


def http_ok(url: str, context: ssl.SSLContext | None = None) -> bool:
    try:
        with urllib.request.urlopen(url, context=context, timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False
