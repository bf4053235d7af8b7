"""The kubelet's container-log API for the testbed's pods, which kwok only simulates.

The API server sends a log request (GET pods/<pod>/log) to the pod's node: every
node names this server's port as its kubelet's (testbed.kwok_config). It
reads the pod from the API server and answers as a kubelet does:

- the lines are the container's ``TESTBED_LOG`` (one per line), else
  ``POD_LOG_LINES``; init containers have their own logs like the others;
- a pod annotated ``testbed.deploy-runner/runtime: 4s`` writes its containers'
  lines evenly over that time from their start, so a follower (or a poller) sees
  them come one by one; a container that has ended has written them all;
- the query: follow, tailLines, limitBytes, timestamps (RFC 3339, nine decimals),
  sinceSeconds, sinceTime and previous;
- a container that has not started gets the kubelet's 400 `container "c" in pod
  "p" is waiting to start: PodInitializing`; one that restarts (CrashLoopBackOff)
  serves its last run's log.

It runs as a testbed component:
``python -m testbed.pod_logs --port N --server URL --pki DIR``.
"""

from __future__ import annotations

import argparse
import ssl
import sys
import time
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from testbed.api import ApiClient
from testbed.kwok_config import LOG_ENV, POD_LOG_LINES, RUNTIME_ANNOTATION
from testbed.pki import load_pki

LOOPBACK = "127.0.0.1"
FOLLOW_POLL_SECONDS = 0.2


class LogError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def container_log(pod: dict[str, Any], name: str, *, previous: bool = False,
                  now: datetime | None = None) -> tuple[list[tuple[datetime, str]], bool]:
    """(the lines written by now with their times, whether the container still runs)."""
    spec = _container_spec(pod, name)
    status = _container_status(pod, name)
    state = _log_state(pod, name, status, previous)
    lines = _lines(spec)
    started = _parse_time(state.get("startedAt")) or datetime.now(UTC)
    runtime = _runtime_seconds(pod)
    step = runtime / len(lines) if lines and runtime else 0.0
    timed = [(started + timedelta(seconds=index * step), line) for index, line in enumerate(lines)]
    running = "running" in (status.get("state") or {}) and not previous
    if running:
        moment = now or datetime.now(UTC)
        timed = [(at, line) for at, line in timed if at <= moment]
    return timed, running


def _container_spec(pod: dict[str, Any], name: str) -> dict[str, Any]:
    spec = pod.get("spec") or {}
    for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        if container.get("name") == name:
            return container
    pod_name = pod["metadata"]["name"]
    raise LogError(400, f"container {name} is not valid for pod {pod_name}")


def _container_status(pod: dict[str, Any], name: str) -> dict[str, Any]:
    status = pod.get("status") or {}
    for entry in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        if entry.get("name") == name:
            return entry
    return {}


def _log_state(pod: dict[str, Any], name: str, status: dict[str, Any], previous: bool) -> dict[str, Any]:
    """The run whose log is asked for (the kubelet's validateContainerLogStatus)."""
    pod_name = pod["metadata"]["name"]
    state, last = status.get("state") or {}, (status.get("lastState") or {}).get("terminated")
    if previous:
        if last is None:
            raise LogError(400, f'previous terminated container "{name}" in pod "{pod_name}" not found')
        return last
    if "running" in state:
        return state["running"]
    if "terminated" in state:
        return state["terminated"]
    if last is not None:
        return last
    reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
    raise LogError(400, f'container "{name}" in pod "{pod_name}" is waiting to start: {reason}')


def _lines(container: dict[str, Any]) -> list[str]:
    for entry in container.get("env") or []:
        if entry.get("name") == LOG_ENV:
            return str(entry.get("value") or "").splitlines()
    return list(POD_LOG_LINES)


def _runtime_seconds(pod: dict[str, Any]) -> float:
    from runner.golang.time import parse_duration

    text = ((pod.get("metadata") or {}).get("annotations") or {}).get(RUNTIME_ANNOTATION, "")
    try:
        return parse_duration(text) / 1e9 if text else 0.0
    except ValueError:
        return 0.0


def _parse_time(text: Any) -> datetime | None:
    if not text:
        return None
    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def _stamp(moment: datetime) -> str:
    """The kubelet's timestamp: RFC 3339 with nine decimals."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}000Z"


class LogQuery:
    """The kubelet's PodLogOptions, from the query string."""

    def __init__(self, query: dict[str, list[str]]) -> None:
        def one(key: str) -> str:
            return (query.get(key) or [""])[0]

        self.follow = one("follow") == "true"
        self.previous = one("previous") == "true"
        self.timestamps = one("timestamps") == "true"
        self.tail = int(one("tailLines")) if one("tailLines").lstrip("-").isdigit() else None
        self.limit = int(one("limitBytes")) if one("limitBytes").isdigit() else None
        self.since: datetime | None = _parse_time(one("sinceTime"))
        if one("sinceSeconds").isdigit():
            self.since = datetime.now(UTC) - timedelta(seconds=int(one("sinceSeconds")))

    def select(self, timed: list[tuple[datetime, str]]) -> list[tuple[datetime, str]]:
        if self.since is not None:
            timed = [(at, line) for at, line in timed if at >= self.since]
        if self.tail is not None and self.tail >= 0:
            timed = timed[len(timed) - self.tail:] if self.tail else []
        return timed

    def text(self, timed: list[tuple[datetime, str]]) -> bytes:
        return "".join(f"{_stamp(at)} {line}\n" if self.timestamps else f"{line}\n" for at, line in timed).encode()


class PodLogHandler(BaseHTTPRequestHandler):
    api: ApiClient  # set by serve()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) != 4 or parts[0] != "containerLogs":
            self._fail(LogError(404, "the testbed's kubelet serves container logs only"))
            return
        namespace, pod_name, container = parts[1:]
        query = LogQuery(parse_qs(url.query))
        try:
            pod = self._pod(namespace, pod_name)
            timed, running = container_log(pod, container, previous=query.previous)
        except LogError as err:
            self._fail(err)
            return
        sent = query.select(timed)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        try:
            self._write(query, sent)
            if query.follow and running:
                self._follow(query, namespace, pod_name, container, len(timed))
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            return  # the client went away

    def _follow(self, query: LogQuery, namespace: str, pod_name: str, container: str, seen: int) -> None:
        """Send lines as they are written, until the container stops running."""
        while True:
            time.sleep(FOLLOW_POLL_SECONDS)
            try:
                timed, running = container_log(self._pod(namespace, pod_name), container)
            except LogError:
                return  # the pod is gone, or no longer has this container running
            if len(timed) > seen:
                self._write(query, timed[seen:])
                seen = len(timed)
            if not running:
                return

    def _write(self, query: LogQuery, timed: list[tuple[datetime, str]]) -> None:
        data = query.text(timed)
        if query.limit is not None:
            data = data[:query.limit]
        self.wfile.write(data)
        self.wfile.flush()

    def _pod(self, namespace: str, name: str) -> dict[str, Any]:
        pod = self.api.get_json(f"/api/v1/namespaces/{quote(namespace)}/pods/{quote(name)}")
        if pod is None:
            raise LogError(404, f'pods "{name}" not found')
        return pod

    def _fail(self, err: LogError) -> None:
        body = str(err).encode()
        self.send_response(err.status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        sys.stderr.write(f"{self.address_string()} {format % args}\n")


def serve(port: int, server: str, pki_dir: Path) -> None:
    pki = load_pki(pki_dir)
    PodLogHandler.api = ApiClient(server, pki)
    httpd = ThreadingHTTPServer((LOOPBACK, port), PodLogHandler)
    httpd.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(pki.kwok.cert), str(pki.kwok.key))
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    print(f"serving container logs on https://{LOOPBACK}:{port}", flush=True)
    httpd.serve_forever()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m testbed.pod_logs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--server", required=True, help="the API server's URL")
    parser.add_argument("--pki", type=Path, required=True, help="the testbed's certificates")
    args = parser.parse_args(argv)
    serve(args.port, args.server, args.pki)
    return 0


if __name__ == "__main__":
    sys.exit(main())
