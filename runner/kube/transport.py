"""HTTP to the API server from a resolved ConnectionConfig, over urllib3: the one
request path of deploy-runner (importing the `kubernetes` package would cost about
two seconds a run; it is not used at all).

What client-go's transport does and users rely on is done the same way here:
- TLS: the cluster's CA (or the system roots), `insecure-skip-tls-verify`,
  `tls-server-name` (SNI and the name the certificate must carry), client
  certificates; keys and certificates stay in memory (see `_load_cert_chain`);
- timeouts: 30 s to connect, 10 s for the TLS handshake (Go's
  net/http TLSHandshakeTimeout, so a server that accepts and never answers
  fails in 10 s), 60 s for an answer;
- proxies: the cluster's `proxy-url` (http/https CONNECT), else HTTPS_PROXY /
  HTTP_PROXY / NO_PROXY (with CIDRs, as client-go) for non-loopback servers;
- client-side throttling when asked for: a token bucket of `qps` and `burst` (client-go's);
- retries, bounded and after the server's Retry-After, of what is safe to send again
  (runner.kube.retry says which and when);
- errors in Go's words, since Helm prints them: `Get "https://.../version":
  dial tcp 127.0.0.1:1: connect: connection refused`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from runner.errors import RunnerError
from runner.kube.credentials import CredentialError, Credentials
from runner.kube.kubeconfig import DEFAULT_BURST as HELM_DEFAULT_BURST
from runner.kube.kubeconfig import ConnectionConfig, KubeconfigError

DIAL_TIMEOUT_SECONDS = 30.0           # client-go's net.Dialer Timeout
TLS_HANDSHAKE_TIMEOUT_SECONDS = 10.0  # client-go's TLSHandshakeTimeout
READ_TIMEOUT_SECONDS = 60.0
MIN_TIMEOUT_SECONDS = 0.01  # urllib3 refuses a timeout of 0: a try at the deadline fails at once
DEFAULT_QPS, DEFAULT_BURST = 5.0, 10  # client-go's when the config leaves them 0


class ConnectionFailed(RunnerError):
    """No answer from the API server: the text is Go's (`Get "url": reason`).

    `sent` is False when the request never left (the connection was refused or timed
    out); `transient` is False when trying again cannot help (no such host, a
    certificate that does not verify, credentials that cannot be loaded)."""

    def __init__(self, message: str, *, sent: bool = True, transient: bool = False) -> None:
        super().__init__(message)
        self.sent = sent
        self.transient = transient


@dataclass
class Reply:
    status: int
    data: bytes
    retry_after: str = ""  # the Retry-After header of a 429 or 5xx
    stream: Any = None     # stream(): the urllib3 response, its body unread (data is empty)
    warnings: tuple[str, ...] = ()  # the Warning headers, as sent (runner.kube.warning_header)

    def discard(self) -> None:
        """Give up this answer for another attempt (a stream's connection goes back)."""
        if self.stream is not None:
            self.stream.close()
            self.stream.release_conn()


class Transport:
    """Requests to one API server; thread-safe (KubeClient is shared by worker threads)."""

    def __init__(self, config: ConnectionConfig, environ: Mapping[str, str] | None = None) -> None:
        self.config = config
        self.credentials = Credentials(config)
        self._tls = urlsplit(config.server).scheme == "https"
        self._proxy = _proxy_for(config, os.environ if environ is None else environ)
        self._limiter = _RateLimiter(config.qps, config.burst)
        self._lock = threading.Lock()
        self._pool: Any = None
        self._pool_cert: tuple[bytes, bytes] | None = None
        self._answered = False  # the server has answered once: a refusal now is a restart
        self._sleep = _pause

    def request(self, method: str, path: str, query: list[tuple[str, str]], headers: dict[str, str],
                body: bytes | None) -> Reply:
        """One request, sent again where runner.kube.retry allows it (bounded, after Retry-After)."""
        from runner.kube import retry

        call = retry.Call(method, path, query, headers.get("Content-Type", ""), body)
        return self._retried(call, lambda: self._attempt(method, path, query, headers, body))

    def stream(self, path: str, query: list[tuple[str, str]], headers: dict[str, str],
               read_timeout: float, deadline: float = math.inf) -> Any:
        """A GET whose body is read as it comes (a watch): the urllib3 response, unread;
        the caller closes it. A read waits at most `read_timeout` seconds. Opening it is
        retried as any GET is (a watch is a read), but never past `deadline`
        (time.monotonic()): each try's connect and header waits end there, and no retry
        starts after it, so a wait on a misbehaving server ends at its own timeout. A
        connection that drops once events flow is the caller's to open again
        (runner.kube.watch lists again)."""
        from runner.kube import retry

        def attempt() -> Reply:
            left = max(deadline - time.monotonic(), MIN_TIMEOUT_SECONDS)
            timeout = urllib3.Timeout(connect=min(DIAL_TIMEOUT_SECONDS, left), read=min(read_timeout, left))
            return self._attempt("GET", path, query, headers, None, preload_content=False, timeout=timeout)

        reply = self._retried(retry.Call("GET", path, query), attempt, retry.Budget(deadline=deadline))
        return reply.stream

    def _retried(self, call: Any, attempt: Callable[[], Reply], budget: Any = None) -> Reply:
        """`attempt` until its answer stands (runner.kube.retry decides), or no retry is left."""
        from runner.kube import retry

        budget = budget or retry.Budget()
        while True:
            try:
                reply = attempt()
            except ConnectionFailed as failure:
                verdict = retry.after_failure(call, failure.sent, failure.transient, self._answered)
                wait = None if verdict == retry.FINAL else budget.next_wait()
                if wait is None:
                    raise
            else:
                self._answered = True
                verdict = retry.after_reply(call, reply.status, reply.retry_after)
                wait = None if verdict == retry.FINAL else budget.next_wait(reply.retry_after)
                if wait is None:
                    return reply
                reply.discard()
            self._sleep(wait)
            if verdict == retry.LOOK_FIRST:
                found = self._look(call)
                if found is not None:
                    return found

    def _look(self, call: Any) -> Reply | None:
        """After a write whose outcome is unknown: the object, when it shows the write took
        effect (then that is the answer), else None (send the write again)."""
        from runner.kube import retry

        try:
            live = self.request("GET", call.target, [], {"Accept": "application/json"}, None)
        except ConnectionFailed:
            return None  # the resend fails the same way, or gets the real answer
        if not retry.settled(call, live.status, live.data):
            return None
        if call.method == "DELETE":
            return Reply(200, b'{"kind":"Status","apiVersion":"v1","status":"Success"}')
        return Reply(201 if call.method == "POST" else 200, live.data)

    def _attempt(self, method: str, path: str, query: list[tuple[str, str]], headers: dict[str, str],
                 body: bytes | None, **options: Any) -> Reply:
        """One try. With preload_content=False (a stream) the body is left unread in `stream`.

        A 401 renews a credential that can be renewed (an exec plugin's, a token source's)
        and sends the request once more with it: a token that expired or was revoked early
        costs no failure. A 401 that stays is the answer; a token source's words on it
        (whose token was refused) are added to the Status's message."""
        url = self.config.server + path + (f"?{urlencode(query)}" if query else "")
        response = self._send(method, url, headers, body, options)
        if response.status == 401 and self._tls and self.credentials.unauthorized():
            _release(response)
            response = self._send(method, url, headers, body, options)
        retry_after = response.headers.get("Retry-After", "")
        warnings = tuple(_utf8(value) for value in response.headers.getlist("Warning"))
        if not options.get("preload_content", True):
            return Reply(response.status, b"", retry_after, response, warnings)
        data = response.data
        if response.status == 401 and self._tls:
            data = _with_refusal(data, self.credentials.refusal())
        return Reply(response.status, data, retry_after, warnings=warnings)

    def _send(self, method: str, url: str, headers: dict[str, str], body: bytes | None,
              options: dict[str, Any]) -> Any:
        self._limiter.wait()
        try:
            pool = self._current_pool()
            # client-go reads credentials only for TLS servers (never sends them in clear).
            sent = urllib3.HTTPHeaderDict(headers)
            for name, value in self.credentials.headers() if self._tls else ():
                sent.add(name, value)
            return pool.request(method, url, body=body, headers=sent, **options)
        except (CredentialError, KubeconfigError) as err:
            raise ConnectionFailed(f'{method.title()} "{url}": {err}') from err
        except urllib3.exceptions.HTTPError as err:
            left, transient = _failure_kind(err)
            raise ConnectionFailed(f'{method.title()} "{url}": {_go_reason(err, self.config)}',
                                   sent=left, transient=transient) from err

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.clear()
            self._pool = None

    # -- connections --------------------------------------------------------------------

    def _current_pool(self) -> Any:
        """The connection pool, made again when an exec plugin rotates the client certificate."""
        cert = self.credentials.client_certificate() if self._tls else (b"", b"")
        with self._lock:
            if self._pool is None or cert != self._pool_cert:
                if self._pool is not None:
                    self._pool.clear()
                self._pool, self._pool_cert = self._new_pool(cert), cert
            return self._pool

    def _new_pool(self, cert: tuple[bytes, bytes]) -> Any:
        options: dict[str, Any] = {"maxsize": 8, "retries": False,
                                   "timeout": urllib3.Timeout(connect=DIAL_TIMEOUT_SECONDS, read=READ_TIMEOUT_SECONDS)}
        if self._tls:
            options["ssl_context"] = _ssl_context(self.config, cert)
            if self.config.tls_server_name:
                options["server_hostname"] = self.config.tls_server_name
        if self._proxy:
            manager = urllib3.ProxyManager(self._proxy, **options)
        else:
            manager = urllib3.PoolManager(**options)
        manager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}
        return manager


def _release(response: Any) -> None:
    """Give up an answer unread, its connection back to the pool."""
    with contextlib.suppress(urllib3.exceptions.HTTPError):
        response.drain_conn()
    response.release_conn()


def _with_refusal(data: bytes, refusal: str) -> bytes:
    """A 401's Status with `refusal` added to its message (the body as it was when there is
    nothing to add or it is no Status)."""
    if not refusal:
        return data
    import json

    try:
        status = json.loads(data)
    except ValueError:
        status = None
    if not isinstance(status, dict):
        status = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Unauthorized",
                  "code": 401, "message": "Unauthorized"}
    status["message"] = f"{status.get('message') or 'Unauthorized'}: {refusal}"
    return json.dumps(status).encode()


def _utf8(header: str) -> str:
    """A header value as Go reads it: its bytes (http.client decodes them as latin-1) in UTF-8."""
    try:
        return header.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return header  # not latin-1 text to begin with, or not UTF-8: left as it came


def _ssl_context(config: ConnectionConfig, cert: tuple[bytes, bytes]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if config.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif config.ca_data:
        try:
            context.load_verify_locations(cadata=config.ca_data.decode("ascii"))
        except (ssl.SSLError, UnicodeDecodeError, ValueError) as err:
            raise KubeconfigError(f"unable to load root certificates: {err}") from err
    else:
        # Only without a cluster CA: loading the system store costs part of a second.
        context.load_default_certs()
    if cert[0] and cert[1]:
        _load_cert_chain(context, *cert)
    return context


def _load_cert_chain(context: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    """Load a PEM certificate and key that exist only in memory.

    Python's ssl (through 3.13) loads a key only from a file name. Writing one to
    /tmp would leave it behind (on Lambda /tmp survives between invocations), so
    each goes into an anonymous memory file (memfd_create, Linux): it has no name
    in any directory, OpenSSL opens it through /proc/self/fd, and it is freed when
    closed a moment later. Elsewhere (macOS) a pipe does the same: the bytes pass
    through the kernel's pipe buffer and are never stored.
    """
    descriptors: list[int] = []
    try:
        paths = [_memory_file(data, descriptors) for data in (cert, key)]
        context.load_cert_chain(paths[0], paths[1])
    except ssl.SSLError as err:
        raise KubeconfigError(f"tls: failed to load the client certificate and key: {err.reason or err}") from err
    finally:
        for fd in descriptors:
            os.close(fd)


def _memory_file(data: bytes, descriptors: list[int]) -> str:
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("kube-client-credential", os.MFD_CLOEXEC)
        descriptors.append(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        return f"/proc/self/fd/{fd}"
    read_end, write_end = os.pipe()
    descriptors.append(read_end)
    # A writer thread: a pipe holds 16-64 KiB, a certificate chain may be longer.
    threading.Thread(target=_write_and_close, args=(write_end, data), daemon=True).start()
    return f"/dev/fd/{read_end}"


def _write_and_close(fd: int, data: bytes) -> None:
    try:
        os.write(fd, data)
    except OSError:
        pass  # the reader stopped early (it found what it needed)
    finally:
        os.close(fd)


# -- Go's dialer and handshake timeout, with Go's words for failures -------------------------


class _DialError(NewConnectionError):
    def __init__(self, conn: Any, go: str) -> None:
        super().__init__(conn, go)
        self.go = go


class _HandshakeTimeout(ConnectTimeoutError):
    go = "net/http: TLS handshake timeout"


def _dial(conn: Any) -> socket.socket:
    """net.Dialer: every address of the host in turn, 30 s each; the last failure in Go's words."""
    host, port = conn._dns_host, conn.port
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise _DialError(conn, f"dial tcp: lookup {host}: no such host") from err
    failure = ""
    for family, kind, proto, _, address in addresses:
        sock = socket.socket(family, kind, proto)
        sock.settimeout(DIAL_TIMEOUT_SECONDS)
        try:
            sock.connect(address)
        except TimeoutError:
            failure = f"dial tcp {_host_port(address)}: i/o timeout"
        except OSError as err:
            failure = f"dial tcp {_host_port(address)}: connect: {_strerror(err)}"
        else:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        sock.close()
    if getattr(conn, "proxy", None) is not None:
        failure = f"proxyconnect tcp: {failure}"
    raise _DialError(conn, failure)


def _host_port(address: tuple[Any, ...]) -> str:
    host = str(address[0])
    return f"[{host}]:{address[1]}" if ":" in host else f"{host}:{address[1]}"


def _strerror(err: OSError) -> str:
    text = err.strerror or str(err)
    return text[:1].lower() + text[1:]  # Go's errno texts are lower case


class _HTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        sock = _dial(self)
        sock.settimeout(self.timeout)
        return sock


class _HTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:
        sock = _dial(self)
        sock.settimeout(TLS_HANDSHAKE_TIMEOUT_SECONDS)  # urllib3 handshakes on this socket next
        return sock

    def connect(self) -> None:
        try:
            super().connect()
        except TimeoutError as err:  # the handshake (a TCP timeout is a _DialError)
            raise _HandshakeTimeout(self, _HandshakeTimeout.go) from err


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


def _pause(seconds: float) -> None:
    """Wait before a retry. On a deep-stack thread a Ctrl-C or SIGTERM arrives only between
    Python steps, so the wait is one the interrupt can end (runner.deepstack)."""
    from runner.deepstack import WakeOnInterrupt

    woken = threading.Event()
    with WakeOnInterrupt(woken.set):
        woken.wait(seconds)


def _failure_kind(err: BaseException) -> tuple[bool, bool]:
    """(sent, transient) for a failed request: whether it may have reached the server,
    and whether trying again can help."""
    for current in _causes(err):
        if isinstance(current, (ssl.SSLCertVerificationError, ssl.CertificateError)):
            return True, False
        if isinstance(current, _DialError):
            return False, "no such host" not in current.go
        if isinstance(current, ConnectTimeoutError):  # dialling or the TLS handshake
            return False, True
    return True, True


def _causes(err: BaseException) -> list[BaseException]:
    """The error and what caused it, outermost first (urllib3 wraps)."""
    seen: list[BaseException] = []
    current: BaseException | None = err
    while current is not None and all(current is not s for s in seen):
        seen.append(current)
        reason = getattr(current, "reason", None)  # an SSLError's is a string
        current = (reason if isinstance(reason, BaseException) else None) or current.__cause__ \
            or current.__context__
    return seen


def _go_reason(err: BaseException, config: ConnectionConfig) -> str:
    """Go's text for a failed request (what follows `Get "url": `)."""
    for current in _causes(err):
        if hasattr(current, "go"):
            return str(current.go)
        if isinstance(current, ssl.SSLCertVerificationError):
            return _x509_reason(current, config)
        if isinstance(current, urllib3.exceptions.ReadTimeoutError):
            return "net/http: timeout awaiting response headers"
        if isinstance(current, ConnectionResetError):
            return "read: connection reset by peer"
        if isinstance(current, urllib3.exceptions.ProtocolError) and "RemoteDisconnected" in repr(current):
            return "EOF"
    return str(err)


def _x509_reason(err: ssl.SSLCertVerificationError, config: ConnectionConfig) -> str:
    prefix = "tls: failed to verify certificate: x509: "
    if err.verify_code in (2, 18, 19, 20, 21):  # no trusted issuer (OpenSSL's X509_V_ERR_*)
        return prefix + "certificate signed by unknown authority"
    if err.verify_code in (62, 64):  # X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH
        host = config.tls_server_name or (urlsplit(config.server).hostname or "")
        return "tls: failed to verify certificate: " + _hostname_error(host, _peer_certificate(config))
    if err.verify_code in (9, 10):
        return prefix + "certificate has expired or is not yet valid"
    return prefix + str(err.verify_message or err)


def _hostname_error(host: str, der: bytes) -> str:
    """Go's x509.HostnameError text: the names the certificate does carry."""
    from cryptography import x509

    try:
        certificate = x509.load_der_x509_certificate(der)
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        return f"x509: certificate is not valid for any names, but wanted to match {host}"
    try:
        ipaddress.ip_address(host)
    except ValueError:
        valid = ", ".join(names.get_values_for_type(x509.DNSName))
    else:
        addresses = names.get_values_for_type(x509.IPAddress)
        if not addresses:
            return f"x509: cannot validate certificate for {host} because it doesn't contain any IP SANs"
        valid = ", ".join(str(a) for a in addresses)
    if not valid:
        return f"x509: certificate is not valid for any names, but wanted to match {host}"
    return f"x509: certificate is valid for {valid}, not {host}"


def _peer_certificate(config: ConnectionConfig) -> bytes:
    """The server's certificate, fetched again without verification to say what it names."""
    parts = urlsplit(config.server)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((parts.hostname, parts.port or 443), timeout=TLS_HANDSHAKE_TIMEOUT_SECONDS) as raw, \
                context.wrap_socket(raw, server_hostname=config.tls_server_name or parts.hostname) as tls:
            return tls.getpeercert(binary_form=True) or b""
    except OSError:
        return b""


# -- proxies --------------------------------------------------------------------------


def _proxy_for(config: ConnectionConfig, environ: Mapping[str, str]) -> str:
    """The proxy URL for this server: proxy-url, else Go's ProxyFromEnvironment."""
    if config.proxy_url:
        scheme = urlsplit(config.proxy_url).scheme
        if scheme not in ("http", "https"):
            raise KubeconfigError(
                f'proxy-url "{config.proxy_url}": {scheme or "this"} proxies are not supported by '
                "deploy-runner (http and https proxies are); reach the API server through an SSH "
                "tunnel (ssh -L) or an HTTP CONNECT proxy instead")
        return config.proxy_url
    parts = urlsplit(config.server)
    host = parts.hostname or ""
    if _is_loopback(host):
        return ""  # Go never proxies requests to localhost
    names = ("HTTPS_PROXY", "https_proxy") if parts.scheme == "https" else ("HTTP_PROXY", "http_proxy")
    proxy = next((environ[n] for n in names if environ.get(n)), "")
    if not proxy or _no_proxy(host, parts.port, environ.get("NO_PROXY") or environ.get("no_proxy") or ""):
        return ""
    return proxy if "://" in proxy else f"http://{proxy}"


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _no_proxy(host: str, port: int | None, rules: str) -> bool:
    """NO_PROXY as Go's httpproxy reads it, plus CIDRs (client-go's NewProxierWithNoProxyCIDR)."""
    for rule in (r.strip().lower() for r in rules.split(",")):
        if not rule:
            continue
        if rule == "*":
            return True
        try:
            if ipaddress.ip_address(host) in ipaddress.ip_network(rule, strict=False):
                return True
            continue
        except ValueError:
            pass
        name, _, rule_port = rule.rpartition(":") if rule.count(":") == 1 else (rule, "", "")
        if rule_port and port is not None and rule_port != str(port):
            continue
        if name.startswith("*."):
            name = name[1:]
        host = host.lower()
        # ".example.com" matches subdomains only; "example.com" the domain and its subdomains.
        if host.endswith(name) if name.startswith(".") else host == name or host.endswith(f".{name}"):
            return True
    return False


# -- client-side throttling --------------------------------------------------------------


class _RateLimiter:
    """flowcontrol.NewTokenBucketRateLimiter(qps, burst); qps < 0 turns it off.

    Only when asked for (--qps / HELM_QPS, or a --burst-limit other than Helm's 100):
    with Helm's defaults client-go allows 5 requests a second once 100 are spent, and
    deploy-runner's per-object reads pass 100 on a chart of 60 objects (an install
    measured 6.4 s instead of 1.8 s). The API server's priority and fairness
    protects it either way."""

    def __init__(self, qps: float, burst: int) -> None:
        asked = qps != 0 or burst != HELM_DEFAULT_BURST
        self.rate = (qps if qps != 0 else DEFAULT_QPS) if asked else -1.0
        self.burst = burst if burst > 0 else DEFAULT_BURST
        self._tokens = float(self.burst)
        self._last = time.monotonic()
        self._lock = threading.Lock()

    def wait(self) -> None:
        if self.rate < 0:
            return
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
            self._last = now
            self._tokens -= 1  # reserve ours; a negative balance is the wait
            delay = -self._tokens / self.rate if self._tokens < 0 else 0.0
        if delay > 0:
            time.sleep(delay)
