"""runner.kube.observe.LogStream: a container's log followed as it is written
(GET pods/<pod>/log?follow=true), over a fake client whose response is read as
the transport's StreamedReply would be."""

from __future__ import annotations

import queue
import threading

import pytest

from runner.kube.client import KubeError
from runner.kube.observe import LogStream


class _Response:
    """A log response: the pieces pushed to `pieces` until None, or until shut down."""

    def __init__(self, status: int = 200, data: bytes = b"") -> None:
        self.status, self.data = status, data
        self.pieces: queue.Queue[bytes | None] = queue.Queue()
        self.shut = threading.Event()
        self.released = False

    def stream(self, decode_content: bool = True):
        while not self.shut.is_set():
            try:
                piece = self.pieces.get(timeout=0.02)
            except queue.Empty:
                continue
            if piece is None:
                return
            yield piece

    def shutdown(self) -> None:
        self.shut.set()

    def settimeout(self, seconds: float | None) -> None:
        pass

    def close(self) -> None:
        self.released = True


class _Client:
    def __init__(self, response: _Response) -> None:
        self.response = response
        self.asked: list[tuple[str, dict[str, str], str]] = []

    def stream(self, path, query, read_timeout, *, accept="application/json"):
        self.asked.append((path, dict(query), accept))
        return self.response


def test_the_log_is_followed_and_its_text_comes_as_written():
    response = _Response()
    client = _Client(response)
    for piece in (b"migrating 1\n", b"caf\xc3", b"\xa9 2\n", None):  # a character cut in two
        response.pieces.put(piece)

    stream = LogStream(client, "ns", "app-migrate-x1", "main")

    assert "".join(stream.chunks()) == "migrating 1\ncafé 2\n"
    assert client.asked == [("/api/v1/namespaces/ns/pods/app-migrate-x1/log",
                             {"container": "main", "follow": "true"}, "*/*")]
    assert response.released  # the connection is handed back, never reused mid-stream


def test_a_container_that_has_not_started_is_refused_with_the_kubelets_words():
    message = b'{"kind":"Status","message":"container \\"main\\" in pod \\"p\\" is waiting to start: PodInitializing"}'
    response = _Response(400, message)

    with pytest.raises(KubeError, match='^log of p/main: container "main" in pod "p" is waiting to start') as err:
        LogStream(_Client(response), "ns", "p", "main")

    assert err.value.status == 400 and response.released


def test_close_from_another_thread_ends_a_read_that_waits():
    response = _Response()
    stream = LogStream(_Client(response), "ns", "p", "main")
    response.pieces.put(b"one\n")
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.extend(stream.chunks()))
    reader.start()

    while not got:
        reader.join(0.01)
    stream.close()
    reader.join(5)

    assert not reader.is_alive() and got == ["one\n"]
