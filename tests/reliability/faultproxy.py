"""A faulty API server: an HTTPS proxy on loopback in front of the testbed's kube-apiserver
that delays answers, drops connections (before or after the request reached the server)
and answers 429 (with Retry-After) and 5xx (before the request is passed on, or after it
took effect), each with a probability, from a seeded random generator.

    with FaultProxy(testbed, Faults(drop_after=0.1), seed=1) as proxy:
        kubeconfig = proxy.kubeconfig(tmp_path / "kubeconfig")   # our CLI goes through it
        ...
        proxy.counts   # Counter of the faults injected, by kind

It terminates TLS with the apiserver's own serving certificate (valid for 127.0.0.1)
and talks to the apiserver as the testbed's admin, one connection per request; answers
without a length (watches) are passed on chunk by chunk as they come.
"""

from __future__ import annotations

import http.client
import json
import random
import ssl
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from testbed.cluster import Testbed
from testbed.pki import write_kubeconfig

UPSTREAM_TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True)
class Faults:
    """The probability of each fault for one request (the first that draws wins)."""

    delay: float = 0.0  # pass it on after up to max_delay seconds
    max_delay: float = 1.0
    drop_before: float = 0.0  # close the connection; the server never saw the request
    drop_after: float = 0.0  # pass it on, then close without an answer: it took effect
    too_many: float = 0.0  # 429 with Retry-After: 1, not passed on
    unavailable: float = 0.0  # 503, not passed on
    timeout_after: float = 0.0  # 504 once the server answered: it took effect

    def draw(self, rng: random.Random) -> str:
        roll = rng.random()
        for kind in ("drop_before", "drop_after", "too_many", "unavailable", "timeout_after", "delay"):
            chance = getattr(self, kind)
            if roll < chance:
                return kind
            roll -= chance
        return ""


NO_FAULTS = Faults()


class FaultProxy:
    def __init__(self, testbed: Testbed, faults: Faults = NO_FAULTS, seed: int = 0) -> None:
        self.testbed = testbed
        self.faults = faults
        self.counts: Counter[str] = Counter()
        self.requests = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="fault-proxy")

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self._server.server_address[1]}"

    def kubeconfig(self, path: Path) -> Path:
        """The testbed's admin kubeconfig, through this proxy."""
        return write_kubeconfig(path, self.url, self.testbed.pki)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def fault(self) -> tuple[str, float]:
        """The fault for the next request (counted), and a delay when it is one."""
        with self._lock:
            self.requests += 1
            kind = self.faults.draw(self._rng)
            delay = self._rng.uniform(0, self.faults.max_delay) if kind == "delay" else 0.0
            if kind:
                self.counts[kind] += 1
            return kind, delay

    def upstream(self) -> http.client.HTTPSConnection:
        pki = self.testbed.pki
        context = ssl.create_default_context(cafile=str(pki.ca.cert))
        context.load_cert_chain(str(pki.admin.cert), str(pki.admin.key))
        parts = urlsplit(self.testbed.server)
        return http.client.HTTPSConnection(parts.hostname or "127.0.0.1", parts.port,
                                           context=context, timeout=UPSTREAM_TIMEOUT_SECONDS)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, proxy: FaultProxy) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.proxy = proxy
        pki = proxy.testbed.pki
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(pki.apiserver.cert), str(pki.apiserver.key))
        self.socket = context.wrap_socket(self.socket, server_side=True)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away (our own drops included) is no news


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except (OSError, ssl.SSLError, http.client.HTTPException):
            self.close_connection = True

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        kind, delay = self.server.proxy.fault()
        if kind == "drop_before":
            self.close_connection = True
            return
        if kind == "too_many":
            self._status(429, "TooManyRequests", "Too many requests, please try again later.",
                         retry_after="1")
            return
        if kind == "unavailable":
            self._status(503, "ServiceUnavailable", "the server is currently unable to handle the request")
            return
        time.sleep(delay)
        self._pass_on(body, kind)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def _pass_on(self, body: bytes | None, kind: str) -> None:
        upstream = self.server.proxy.upstream()
        try:
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in ("host", "connection", "content-length")}
            upstream.request(self.command, self.path, body=body, headers=headers)
            answer = upstream.getresponse()
            if kind == "drop_after":
                answer.read()
                self.close_connection = True
                return
            if kind == "timeout_after":
                answer.read()
                self._status(504, "Timeout", "Timeout: request did not complete within requested timeout")
                return
            self._relay(answer)
        finally:
            upstream.close()

    def _relay(self, answer: http.client.HTTPResponse) -> None:
        streamed = answer.getheader("Content-Length") is None
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                self.send_header(name, value)
        if not streamed:
            data = answer.read()
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while chunk := answer.read1(65536):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def _status(self, code: int, reason: str, message: str, retry_after: str = "") -> None:
        data = json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                           "message": message, "reason": reason, "code": code}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if retry_after:
            self.send_header("Retry-After", retry_after)
        self.end_headers()
        self.wfile.write(data)
