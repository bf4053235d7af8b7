"""The transport's own rules: proxies (proxy-url, HTTPS_PROXY/NO_PROXY), client-side
throttling, client keys kept in memory, failures in Go's words."""

from __future__ import annotations

import contextlib
import os
import socket
import ssl
import tempfile
import time

import pytest

from runner.kube import transport
from runner.kube.kubeconfig import ConnectionConfig, KubeconfigError
from runner.kube.transport import ConnectionFailed, Transport


def config(server: str = "https://k.example:6443", **fields) -> ConnectionConfig:
    return ConnectionConfig(server=server, **fields)


@pytest.mark.parametrize(("host", "rules", "bypassed"), [
    ("k.example.com", "*", True),
    ("k.example.com", "example.com", True),
    ("example.com", "example.com", True),
    ("example.com", ".example.com", False),
    ("k.example.com", ".example.com", True),
    ("k.example.com", "*.example.com", True),
    ("notexample.com", "example.com", False),
    ("10.1.2.3", "10.0.0.0/8", True),
    ("11.1.2.3", "10.0.0.0/8", False),
    ("10.1.2.3", "10.1.2.3", True),
    ("k.example.com", "other.org, example.com", True),
])
def test_no_proxy_rules(host, rules, bypassed):
    assert transport._no_proxy(host, 6443, rules) is bypassed


def test_proxy_url_wins_over_the_environment():
    env = {"HTTPS_PROXY": "http://env-proxy:3128"}
    assert transport._proxy_for(config(proxy_url="http://mine:8080"), env) == "http://mine:8080"
    assert transport._proxy_for(config(), env) == "http://env-proxy:3128"
    assert transport._proxy_for(config(), {**env, "NO_PROXY": "k.example"}) == ""


def test_loopback_servers_are_never_proxied_from_the_environment():
    env = {"HTTPS_PROXY": "http://env-proxy:3128"}
    assert transport._proxy_for(config("https://127.0.0.1:6443"), env) == ""
    assert transport._proxy_for(config("https://localhost:6443"), env) == ""


def test_socks_proxies_are_refused_with_what_to_do():
    with pytest.raises(KubeconfigError, match='proxy-url "socks5://127.0.0.1:1080": socks5 proxies are not supported'):
        transport._proxy_for(config(proxy_url="socks5://127.0.0.1:1080"), {})


def test_throttling_lets_a_burst_through_then_keeps_to_qps(monkeypatch):
    clock = [100.0]
    slept: list[float] = []
    monkeypatch.setattr(transport.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(transport.time, "sleep", lambda s: slept.append(s))
    limiter = transport._RateLimiter(qps=2.0, burst=3)
    for _ in range(3):
        limiter.wait()
    assert slept == []
    limiter.wait()
    assert slept == [pytest.approx(0.5)]


def test_throttling_defaults_and_off():
    assert (transport._RateLimiter(0, 0).rate, transport._RateLimiter(0, 0).burst) == (5.0, 10)
    assert transport._RateLimiter(0, 50).rate == 5.0  # a burst limit alone: client-go's 5/s after it
    assert transport._RateLimiter(0, 100).rate < 0  # Helm's defaults untouched: no throttling
    off = transport._RateLimiter(-1, 1)
    start = time.monotonic()
    for _ in range(50):
        off.wait()
    assert time.monotonic() - start < 0.5


def test_client_keys_are_loaded_without_a_file(tmp_path, monkeypatch):
    from testbed.pki import create_pki

    pki = create_pki(tmp_path / "pki")
    cert, key = pki.admin.cert.read_bytes(), pki.admin.key.read_bytes()
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))  # where a temporary file would go
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    transport._load_cert_chain(context, cert, key)
    assert context.cert_store_stats() is not None and os.listdir(private_tmp) == []
    # Without memfd_create (macOS), through a pipe: also no file.
    monkeypatch.delattr(os, "memfd_create", raising=False)
    transport._load_cert_chain(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), cert, key)
    assert os.listdir(private_tmp) == []


def test_a_key_that_does_not_match_is_a_clear_error(tmp_path):
    from testbed.pki import create_pki

    pki = create_pki(tmp_path / "pki")
    with pytest.raises(KubeconfigError, match="failed to load the client certificate and key"):
        transport._load_cert_chain(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), pki.admin.cert.read_bytes(),
                                   pki.apiserver.key.read_bytes())


def test_a_refused_connection_in_go_words():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, not listening: connections are refused
        with pytest.raises(ConnectionFailed) as raised:
            Transport(config(f"https://127.0.0.1:{port}", qps=-1)).request("GET", "/version", [], {}, None)
    assert str(raised.value) == (f'Get "https://127.0.0.1:{port}/version": '
                                 f"dial tcp 127.0.0.1:{port}: connect: connection refused")


def test_an_unknown_host_in_go_words():
    with pytest.raises(ConnectionFailed, match=r'^Get "https://no-such-host.invalid/api\?a=b": '
                                                r"dial tcp: lookup no-such-host.invalid: no such host$"):
        Transport(config("https://no-such-host.invalid")).request("GET", "/api", [("a", "b")], {}, None)


def test_a_certificate_that_does_not_verify_is_final_and_in_go_words():
    """ssl's error carries a string `reason`: the walk through the causes must not take it
    for one (it did: `internal error: AttributeError`)."""
    failure = ssl.SSLCertVerificationError(1, "certificate verify failed: Hostname mismatch")
    failure.reason = "CERTIFICATE_VERIFY_FAILED"
    failure.verify_code = 62
    failure.verify_message = "Hostname mismatch, certificate is not valid for 'wrong.example'."
    assert transport._failure_kind(failure) == (True, False)  # a retry cannot mend it
    assert transport._go_reason(failure, config("https://127.0.0.1:6443")).startswith(
        "tls: failed to verify certificate: x509: ")


class _Server:
    """A plain-HTTP server on loopback that answers every request with `{}` over keep-alive
    connections; it counts the connections it accepted and can close the idle ones."""

    def __init__(self, delay: float = 0.0) -> None:
        import threading

        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.accepted: list[socket.socket] = []
        self.heads: list[str] = []
        self.delay = delay
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import threading

        while True:
            try:
                conn = self.listener.accept()[0]
            except OSError:
                return
            self.accepted.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        pending = b""
        try:
            while True:
                while b"\r\n\r\n" not in pending:
                    data = conn.recv(65536)
                    if not data:
                        return
                    pending += data
                head, pending = pending.split(b"\r\n\r\n", 1)
                self.heads.append(head.decode())
                time.sleep(self.delay)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        except OSError:
            return

    def close_idle(self) -> None:
        for conn in self.accepted:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)  # the FIN goes out (a close alone waits for the reader)
            conn.close()

    def stop(self) -> None:
        self.listener.close()
        self.close_idle()


def test_requests_in_a_row_share_one_keep_alive_connection():
    server = _Server()
    try:
        transport = Transport(config(server.url, qps=-1))
        for _ in range(3):
            assert transport.request("GET", "/version", [], {}, None).data == b"{}"
        assert len(server.accepted) == 1
        assert len(server.heads) == 3 and all("User-Agent: deploy-runner" in head.split("\r\n") for head in server.heads)
    finally:
        server.stop()


def test_a_connection_the_server_closed_while_idle_is_not_used_again():
    """Servers close idle connections (the API server after its idle timeout): the next
    request goes out on a new one at once, without a failure or a retry's wait."""
    server = _Server()
    try:
        transport = Transport(config(server.url, qps=-1))
        transport._sleep = lambda seconds: pytest.fail(f"a retry waited {seconds} s")
        assert transport.request("GET", "/version", [], {}, None).status == 200
        server.close_idle()
        time.sleep(0.1)  # the close reaches our end of the connection
        assert transport.request("GET", "/version", [], {}, None).status == 200
        assert len(server.accepted) == 2
    finally:
        server.stop()


def test_an_answer_that_does_not_come_in_time_in_go_words():
    server = _Server(delay=2.0)
    try:
        transport = Transport(config(server.url, qps=-1))
        transport._sleep = lambda seconds: None
        with pytest.raises(ConnectionFailed) as raised:
            transport._attempt("GET", "/version", [], {}, None, timeouts=(5.0, 0.2))
        assert str(raised.value) == f'Get "{server.url}/version": net/http: timeout awaiting response headers'
    finally:
        server.stop()
