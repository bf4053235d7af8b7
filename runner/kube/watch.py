"""One watch request: the events the API server sends for a collection, as they come.

`events()` opens `?watch=1` from a resourceVersion (the one a list or get
returned, so nothing between the two is missed) and yields each event until
the server ends the watch at `timeout` seconds, the connection drops, or an
ERROR event comes (410 Gone: the resourceVersion is too old). Each of those
just ends the iteration: the caller lists again and watches from there, as
client-go's reflector does.

A read blocked on the socket is out of reach of the KeyboardInterrupt that
cancels the work (runner.deepstack passes it on between Python steps only), so
while a watch is open an interrupt also shuts its socket down.
"""

from __future__ import annotations

import json
import math
import socket
from collections.abc import Iterator

from runner.kube.client import KubeClient, KubeError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

READ_GRACE_SECONDS = 5.0  # past the server's own end of the watch, a silent socket is dead


def events(client: KubeClient, collection: str, *, resource_version: str, timeout: float,
           field_selector: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(type, object) for each ADDED / MODIFIED / DELETED in `collection` after
    `resource_version`, for at most `timeout` seconds. A refusal (403: no `watch`
    permission) raises KubeError; the caller may poll instead."""
    from urllib3.exceptions import HTTPError

    from runner.deepstack import WakeOnInterrupt

    query = [("watch", "1"), ("resourceVersion", resource_version),
             ("timeoutSeconds", str(max(1, math.ceil(timeout)))), ("allowWatchBookmarks", "false")]
    if field_selector:
        query.append(("fieldSelector", field_selector))
    response = client.stream(collection, query, read_timeout=timeout + READ_GRACE_SECONDS)
    try:
        if response.status >= 400:
            body = _decode(response.data) or {}
            raise KubeError(f"watch {collection}: {body.get('message') or f'HTTP {response.status}'}",
                            response.status, str(body.get("reason", "")), body)
        with WakeOnInterrupt(lambda: _shut_down(response)):
            try:
                yield from _read_events(response)
            except (HTTPError, OSError):
                return  # dropped or timed out: the caller lists again
    finally:  # a watch left mid-stream cannot be reused: closed, then handed back to the pool
        response.close()
        response.release_conn()


def _read_events(response: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    pending = b""
    for chunk in response.stream(decode_content=True):
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            event = _decode(line)
            if not event:
                continue
            kind, obj = str(event.get("type", "")), event.get("object") or {}
            if kind == "ERROR":
                return  # 410 Gone and the like: list again
            if kind != "BOOKMARK":
                yield kind, obj


def _decode(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _shut_down(response: Any) -> None:
    """Wake a read blocked on the watch's socket (called from the main thread)."""
    connection = getattr(response, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None:
        sock.shutdown(socket.SHUT_RDWR)
