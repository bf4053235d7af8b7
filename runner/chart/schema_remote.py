"""Remote `$ref`s of values.schema.json (`"$ref": "https://host/defs.json#/definitions/x"`),
fetched as Helm 4.1.4's schema loader fetches them (pkg/chart/common/util/jsonschema.go):
a GET with Helm's User-Agent, proxies from the environment, a 15 s timeout, only a 200
accepted, the body read as JSON. Failures read as santhosh-tekuri/jsonschema reports
them, naming the document's URL without its fragment:

    failing loading "https://host/defs.json": HTTP request to https://host/defs.json returned status 404 (Not Found)

Documents are cached for the run (CACHE_SECONDS in a long-lived process, such as a warm
Lambda), failures too: one unreachable host costs one timeout, not one per subchart.

Air-gapped runners set DEPLOY_RUNNER_OFFLINE_SCHEMAS=1: nothing is fetched, and a chart
whose schema needs a remote document fails with a line that says so (or renders with
--skip-schema-validation). `requests` is imported only when a document is fetched.
"""

from __future__ import annotations

import os
import time
from urllib.parse import urldefrag

from runner.chart.schema_json import unmarshal_json

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

OFFLINE_VARIABLE = "DEPLOY_RUNNER_OFFLINE_SCHEMAS"
TIMEOUT_SECONDS = 15.0  # Helm's http.Client{Timeout: 15 * time.Second}
CACHE_SECONDS = 300.0
REMOTE_SCHEMES = ("http", "https")

# url -> (when fetched, the document or None, the error text or None)
_CACHE: dict[str, tuple[float, Any, str | None]] = {}


class RemoteSchemaError(Exception):
    """A remote document could not be had; str() is what follows `failing loading "URL": `."""


def offline() -> bool:
    return os.environ.get(OFFLINE_VARIABLE, "") not in ("", "0", "false")


def document(url: str) -> Any:
    """The JSON document at `url` (no fragment), fetched once per run."""
    now = time.monotonic()
    cached = _CACHE.get(url)
    if cached is None or now - cached[0] > CACHE_SECONDS:
        try:
            cached = (now, _fetch(url), None)
        except RemoteSchemaError as exc:
            cached = (now, None, str(exc))
        _CACHE[url] = cached
    if cached[2] is not None:
        raise RemoteSchemaError(cached[2])
    return cached[1]


def url_of(contents: Any) -> str | None:
    """The URL a fetched document came from (json-pointer errors name it)."""
    for url, (_, doc, _) in _CACHE.items():
        if doc is contents:
            return url
    return None


def clear_cache() -> None:
    _CACHE.clear()


def retrieve(uri: str) -> Any:
    """`referencing`'s retrieve hook: a Resource for an http(s) document (draft 2020-12
    when it names none, santhosh's default)."""
    from referencing import Resource
    from referencing.exceptions import NoSuchResource
    from referencing.jsonschema import DRAFT202012

    url = urldefrag(uri).url
    if url.split(":", 1)[0].lower() not in REMOTE_SCHEMES:
        raise NoSuchResource(ref=uri)  # file: and others: runner.chart.schema says why
    return Resource.from_contents(document(url), default_specification=DRAFT202012)


def _fetch(url: str) -> Any:
    if offline():
        raise RemoteSchemaError(f"remote schemas are not fetched ({OFFLINE_VARIABLE} is set)")
    body = _get(url)
    try:
        return unmarshal_json(body.decode("utf-8", "replace"))
    except ValueError as exc:
        raise RemoteSchemaError(str(exc)) from None


def _get(url: str) -> bytes:
    """HTTPURLLoader.Load's request and its error texts."""
    import requests

    from runner.chart.sources.http import USER_AGENT, go_net_error, tls_reason

    try:
        response = requests.get(url, headers={"User-Agent": USER_AGENT}, timeout=TIMEOUT_SECONDS)
    except requests.exceptions.SSLError as exc:
        raise RemoteSchemaError(f'HTTP request failed for {url}: Get "{url}": {tls_reason(exc)}') from exc
    except requests.exceptions.RequestException as exc:
        raise RemoteSchemaError(f'HTTP request failed for {url}: Get "{url}": {go_net_error(exc, url)}') from exc
    if response.status_code != 200:
        raise RemoteSchemaError(f"HTTP request to {url} returned status {response.status_code} "
                                f"({_status_text(response.status_code)})")
    return response.content


# net/http's StatusText where Python's phrase differs
_GO_STATUS_TEXT = {414: "Request URI Too Long", 418: "I'm a teapot"}


def _status_text(code: int) -> str:
    """net/http's StatusText: Python's phrases, but where Go words it otherwise."""
    from http import HTTPStatus

    if code in _GO_STATUS_TEXT:
        return _GO_STATUS_TEXT[code]
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return ""
