"""HTTP to the API server from a resolved ConnectionConfig, over the standard library's
http.client: the one request path of deploy-runner (importing the `kubernetes` package
would cost about two seconds a run, urllib3 a tenth of one; neither is used).

What client-go's transport does and users rely on is done the same way here:
- keep-alive: up to 8 idle connections are kept for the next requests (requests go out
  from several threads at once, runner.kube.parallel); one found closed by the server
  is dropped before it is used;
- TLS: the cluster's CA (or the system roots), `insecure-skip-tls-verify`,
  `tls-server-name` (SNI and the name the certificate must carry), client
  certificates; keys and certificates stay in memory (see `_load_cert_chain`);
- timeouts: 30 s to connect, 10 s for the TLS handshake (Go's
  net/http TLSHandshakeTimeout, so a server that accepts and never answers
  fails in 10 s), 60 s for an answer;
- proxies: the cluster's `proxy-url` (http/https CONNECT), else HTTPS_PROXY /
  HTTP_PROXY / NO_PROXY (with CIDRs, as client-go) for non-loopback servers; an http
  server's requests go to an http proxy whole (absolute URLs), as Go's do;
- client-side throttling when asked for: a token bucket of `qps` and `burst` (client-go's);
- retries, bounded and after the server's Retry-After, of what is safe to send again
  (runner.kube.retry says which and when);
- errors in Go's words, since Helm prints them: `Get "https://.../version":
  dial tcp 127.0.0.1:1: connect: connection refused`.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import math
import os
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from runner.errors import RunnerError
from runner.kube.credentials import CredentialError, Credentials
from runner.kube.kubeconfig import DEFAULT_BURST as HELM_DEFAULT_BURST
from runner.kube.kubeconfig import ConnectionConfig, KubeconfigError

# what the API server's audit log and its metrics name the client by (client-go sends
# "<program>/<version> (<os>/<arch>) kubernetes/<commit>"; the version would cost an import)
USER_AGENT = "deploy-runner"

DIAL_TIMEOUT_SECONDS = 30.0           # client-go's net.Dialer Timeout
TLS_HANDSHAKE_TIMEOUT_SECONDS = 10.0  # client-go's TLSHandshakeTimeout
READ_TIMEOUT_SECONDS = 60.0
MIN_TIMEOUT_SECONDS = 0.01  # a socket timeout of 0 would not wait at all: a try at the deadline fails at once
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
    stream: Any = None     # stream(): the StreamedReply, its body unread (data is empty)
    warnings: tuple[str, ...] = ()  # the Warning headers, as sent (runner.kube.warning_header)

    def discard(self) -> None:
        """Give up this answer for another attempt (a stream's connection goes back)."""
        if self.stream is not None:
            self.stream.close()


class Transport:
    """Requests to one API server; thread-safe (KubeClient is shared by worker threads)."""

    def __init__(self, config: ConnectionConfig, environ: Mapping[str, str] | None = None) -> None:
        self.config = config
        self.credentials = Credentials(config)
        self._tls = urlsplit(config.server).scheme == "https"
        self._proxy = _proxy_for(config, os.environ if environ is None else environ)
        self._limiter = _RateLimiter(config.qps, config.burst)
        self._lock = threading.Lock()
        self._pool: _Pool | None = None
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
        """A GET whose body is read as it comes (a watch): a StreamedReply, its body unread;
        the caller closes it. A read waits at most `read_timeout` seconds. Opening it is
        retried as any GET is (a watch is a read), but never past `deadline`
        (time.monotonic()): each try's connect and header waits end there, and no retry
        starts after it, so a wait on a misbehaving server ends at its own timeout. A
        connection that drops once events flow is the caller's to open again
        (runner.kube.watch lists again)."""
        from runner.kube import retry

        def attempt() -> Reply:
            left = max(deadline - time.monotonic(), MIN_TIMEOUT_SECONDS)
            timeouts = (min(DIAL_TIMEOUT_SECONDS, left), min(read_timeout, left))
            return self._attempt("GET", path, query, headers, None, streamed=True, timeouts=timeouts)

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
                 body: bytes | None, *, streamed: bool = False,
                 timeouts: tuple[float, float] = (DIAL_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS)) -> Reply:
        """One try. A streamed answer's body is left unread in `stream`.

        A 401 renews a credential that can be renewed (an exec plugin's, a token source's)
        and sends the request once more with it: a token that expired or was revoked early
        costs no failure. A 401 that stays is the answer; a token source's words on it
        (whose token was refused) are added to the Status's message."""
        url = self.config.server + path + (f"?{urlencode(query)}" if query else "")
        answer = self._send(method, url, headers, body, timeouts)
        if answer.status == 401 and self._tls and self.credentials.unauthorized():
            answer.read_whole()
            answer = self._send(method, url, headers, body, timeouts)
        retry_after = answer.header("Retry-After")
        warnings = tuple(_utf8(value) for value in answer.warnings)
        if streamed:
            return Reply(answer.status, b"", retry_after, answer, warnings)
        data = self._read(method, url, answer)
        if answer.status == 401 and self._tls:
            data = _with_refusal(data, self.credentials.refusal())
        return Reply(answer.status, data, retry_after, warnings=warnings)

    def _send(self, method: str, url: str, headers: dict[str, str], body: bytes | None,
              timeouts: tuple[float, float]) -> StreamedReply:
        self._limiter.wait()
        try:
            pool = self._current_pool()
            # client-go reads credentials only for TLS servers (never sends them in clear).
            sent = [*headers.items(), *(self.credentials.headers() if self._tls else ())]
            return pool.exchange(method, url, sent, body, timeouts)
        except (CredentialError, KubeconfigError) as err:
            raise ConnectionFailed(f'{method.title()} "{url}": {err}') from err
        except (OSError, http.client.HTTPException) as err:
            left, transient = _failure_kind(err)
            raise ConnectionFailed(f'{method.title()} "{url}": {_go_reason(err, self.config)}',
                                   sent=left, transient=transient) from err

    def _read(self, method: str, url: str, answer: StreamedReply) -> bytes:
        """The whole body of an answer (its connection kept for the next request)."""
        try:
            return answer.read_whole()
        except (OSError, http.client.HTTPException) as err:
            raise ConnectionFailed(f'{method.title()} "{url}": {_go_reason(err, self.config)}') from err

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.clear()
            self._pool = None

    # -- connections --------------------------------------------------------------------

    def _current_pool(self) -> _Pool:
        """The connection pool, made again when an exec plugin rotates the client certificate."""
        cert = self.credentials.client_certificate() if self._tls else (b"", b"")
        with self._lock:
            if self._pool is None or cert != self._pool_cert:
                if self._pool is not None:
                    self._pool.clear()
                context = _ssl_context(self.config, cert) if self._tls else None
                self._pool, self._pool_cert = _Pool(_Route(self.config, self._proxy, context)), cert
            return self._pool


class _Route:
    """Where a connection is dialled and what is said on it: the server, directly or through
    a proxy (a CONNECT tunnel for an https server; absolute URLs to an http proxy else)."""

    def __init__(self, config: ConnectionConfig, proxy: str, context: ssl.SSLContext | None) -> None:
        server = urlsplit(config.server)
        self.host_header = server.netloc.rpartition("@")[2]
        self.server = (server.hostname or "", server.port or (443 if context is not None else 80))
        self.context = context
        self.server_name = config.tls_server_name or self.server[0]
        self.proxy: tuple[str, int] | None = None
        self.proxy_context: ssl.SSLContext | None = None
        if proxy:
            parts = urlsplit(proxy)
            self.proxy = (parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
            if parts.scheme == "https":
                self.proxy_context = ssl.create_default_context()

    def target(self, url: str) -> str:
        """The request target: the path (an absolute URL to a proxy that is not tunnelled)."""
        if self.proxy is not None and self.context is None:
            return url
        parts = urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    def connect(self, connect_timeout: float) -> Any:
        """A socket ready for requests to the server (TLS, through the tunnel, as needed)."""
        sock: Any = _dial(*(self.proxy or self.server), connect_timeout, proxied=self.proxy is not None)
        try:
            if self.proxy is not None:
                if self.proxy_context is not None:
                    sock = _handshake(lambda s: self.proxy_context.wrap_socket(s, server_hostname=self.proxy[0]), sock)
                if self.context is not None:
                    _tunnel(sock, self.server)
            if self.context is not None:
                if isinstance(sock, ssl.SSLSocket):  # TLS inside the proxy's TLS
                    sock = _handshake(lambda s: _TlsInTls(s, self.context, self.server_name), sock)
                else:
                    sock = _handshake(lambda s: self.context.wrap_socket(s, server_hostname=self.server_name), sock)
        except BaseException:
            sock.close()
            raise
        return sock


class _Connection(http.client.HTTPConnection):
    """One keep-alive connection whose socket comes from the route (http.client speaks HTTP/1.1
    on it, whatever it is); a closed one is connected again only through the pool."""

    def __init__(self, route: _Route) -> None:
        super().__init__(*route.server)
        self.route = route

    def connect(self) -> None:
        raise http.client.NotConnected("a connection is opened by the pool")


class _Pool:
    """Keep-alive connections over one route: any number in use, at most `size` kept idle."""

    def __init__(self, route: _Route, size: int = 8) -> None:
        self.route = route
        self.size = size
        self._idle: list[_Connection] = []
        self._lock = threading.Lock()

    def exchange(self, method: str, url: str, headers: list[tuple[str, str]], body: bytes | None,
                 timeouts: tuple[float, float]) -> StreamedReply:
        """Send one request and read the head of its answer; the body is the caller's to read."""
        connection = self._take()
        try:
            if connection.sock is None:
                connection.sock = self.route.connect(timeouts[0])
            sock = connection.sock
            sock.settimeout(timeouts[1])
            connection.putrequest(method, self.route.target(url), skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", self.route.host_header)
            connection.putheader("User-Agent", USER_AGENT)
            for name, value in headers:
                connection.putheader(name, value)
            if body is not None or method in ("POST", "PUT", "PATCH"):
                connection.putheader("Content-Length", str(len(body or b"")))
            connection.endheaders(body)
            response = connection.getresponse()
        except BaseException:
            connection.close()
            raise
        return StreamedReply(response, connection, sock, self)

    def _take(self) -> _Connection:
        with self._lock:
            while self._idle:
                connection = self._idle.pop()
                if not _dropped(connection.sock):
                    return connection
                connection.close()
        return _Connection(self.route)

    def give_back(self, connection: _Connection) -> None:
        with self._lock:
            if connection.sock is not None and len(self._idle) < self.size:
                self._idle.append(connection)
                return
        connection.close()

    def clear(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


def _dropped(sock: Any) -> bool:
    """Whether an idle connection was closed by the server (or sent what was not asked for)."""
    if sock is None:
        return True
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


class StreamedReply:
    """An answer whose head is read: its status and headers; the body read whole
    (`read_whole`) or as it comes (`stream`, a watch or a followed log)."""

    def __init__(self, response: http.client.HTTPResponse, connection: _Connection, sock: Any,
                 pool: _Pool) -> None:
        self.status = response.status
        self.warnings: list[str] = response.msg.get_all("Warning") or []
        self._response = response
        self._connection: _Connection | None = connection
        self._sock = sock
        self._pool = pool
        self._data: bytes | None = None

    def header(self, name: str) -> str:
        return self._response.getheader(name) or ""

    def read_whole(self) -> bytes:
        """The rest of the body; the connection then serves the next request."""
        if self._data is None:
            try:
                self._data = self._response.read()
            except BaseException:
                self.close()
                raise
            self._pool.give_back(self._connection)
            self._connection = None  # another request's now: close() leaves it alone
        return self._data

    @property
    def data(self) -> bytes:
        """The body of an answer that is not streamed (a refused watch's Status)."""
        return self.read_whole()

    def stream(self, decode_content: bool = True) -> Iterator[bytes]:
        """The body's pieces as they come; a broken one raises OSError."""
        try:
            while chunk := self._response.read1(65536):
                yield chunk
        except http.client.HTTPException as err:  # an incomplete chunk: the connection dropped
            raise ConnectionError(str(err)) from err

    def settimeout(self, seconds: float | None) -> None:
        """How long a read of the stream waits (None: until data comes or it is shut down)."""
        self._sock.settimeout(seconds)

    def shutdown(self) -> None:
        """Wake a read blocked on the stream (from any thread)."""
        if self._connection is not None:
            self._sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """Give the answer up: its connection is closed, never reused mid-stream (one whose
        body was read whole went back to the pool, and stays there)."""
        self._response.close()
        if self._connection is not None:
            self._connection.close()
            self._sock.close()


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


class _DialError(OSError):
    def __init__(self, go: str) -> None:
        super().__init__(go)
        self.go = go


class _HandshakeTimeout(OSError):
    go = "net/http: TLS handshake timeout"


def _dial(host: str, port: int, timeout: float, *, proxied: bool = False) -> socket.socket:
    """net.Dialer: every address of the host in turn, `timeout` each; the last failure in Go's words."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise _DialError(f"dial tcp: lookup {host}: no such host") from err
    failure = ""
    for family, kind, proto, _, address in addresses:
        sock = socket.socket(family, kind, proto)
        sock.settimeout(timeout)
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
    raise _DialError(f"proxyconnect tcp: {failure}" if proxied else failure)


def _host_port(address: tuple[Any, ...]) -> str:
    host = str(address[0])
    return f"[{host}]:{address[1]}" if ":" in host else f"{host}:{address[1]}"


def _strerror(err: OSError) -> str:
    text = err.strerror or str(err)
    return text[:1].lower() + text[1:]  # Go's errno texts are lower case


def _handshake(wrap: Callable[[Any], Any], sock: Any) -> Any:
    """A TLS client handshake on `sock`, given 10 s as Go's TLSHandshakeTimeout gives it."""
    sock.settimeout(TLS_HANDSHAKE_TIMEOUT_SECONDS)
    try:
        return wrap(sock)
    except TimeoutError as err:
        raise _HandshakeTimeout(_HandshakeTimeout.go) from err


def _tunnel(sock: Any, server: tuple[str, int]) -> None:
    """HTTP CONNECT to the server through the proxy on `sock`; a refusal in Go's words (the
    proxy's status text)."""
    target = f"[{server[0]}]:{server[1]}" if ":" in server[0] else f"{server[0]}:{server[1]}"
    sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode("ascii"))
    head = b""
    while b"\r\n\r\n" not in head:  # the proxy says nothing more before the handshake
        piece = sock.recv(1)
        if not piece:
            raise ConnectionError("EOF")
        head += piece
        if len(head) > 65536:
            raise ConnectionError("proxy: malformed HTTP response")
    status = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
    if len(status) < 2 or status[1] != "200":
        raise _DialError(status[2] if len(status) > 2 else " ".join(status))


class _TlsInTls:
    """The server's TLS inside an https proxy's (the ssl module does not wrap an SSLSocket
    again): the inner session runs over memory buffers, as much of a socket as http.client uses."""

    def __init__(self, outer: ssl.SSLSocket, context: ssl.SSLContext, server_name: str) -> None:
        self._outer = outer
        self._incoming, self._outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self._tls = context.wrap_bio(self._incoming, self._outgoing, server_hostname=server_name)
        self._run(self._tls.do_handshake)

    def _run(self, step: Callable[..., Any], *args: Any) -> Any:
        while True:
            try:
                result = step(*args)
            except ssl.SSLWantReadError:
                self._flush()
                data = self._outer.recv(65536)
                if data:
                    self._incoming.write(data)
                else:
                    self._incoming.write_eof()
                continue
            self._flush()
            return result

    def _flush(self) -> None:
        if pending := self._outgoing.read():
            self._outer.sendall(pending)

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[self._run(self._tls.write, view):]

    def recv_into(self, buffer: Any, size: int = 0) -> int:
        try:
            return int(self._run(self._tls.read, size or len(buffer), buffer))
        except ssl.SSLZeroReturnError:
            return 0

    def makefile(self, mode: str = "rb") -> Any:
        return io.BufferedReader(_Reader(self))

    def settimeout(self, seconds: float | None) -> None:
        self._outer.settimeout(seconds)

    def fileno(self) -> int:
        return self._outer.fileno()

    def shutdown(self, how: int) -> None:
        self._outer.shutdown(how)

    def close(self) -> None:
        self._outer.close()


class _Reader(io.RawIOBase):
    """_TlsInTls's reading side as a raw stream (what socket.makefile gives http.client)."""

    def __init__(self, tls: _TlsInTls) -> None:
        super().__init__()
        self._tls = tls

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._tls.recv_into(buffer)


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
        if isinstance(current, _HandshakeTimeout):
            return False, True
    return True, True


def _causes(err: BaseException) -> list[BaseException]:
    """The error and what caused it, outermost first."""
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
        if isinstance(current, TimeoutError):  # dialling and handshakes have their own
            return "net/http: timeout awaiting response headers"
        if isinstance(current, (http.client.RemoteDisconnected, http.client.IncompleteRead)):
            return "EOF"  # closed before (or while) answering
        if isinstance(current, ConnectionResetError):
            return "read: connection reset by peer"
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
