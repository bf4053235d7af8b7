"""The tests' OCI registry (the real distribution binary) when the free port it was given
is taken before it binds it, as a parallel worker can do: it starts on another port."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from testbed import registry


def test_a_port_taken_before_the_registry_binds_it_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        busy = taken.getsockname()[1]
        given: list[int] = []
        real_free_port = registry.free_port

        def free_port() -> int:  # the taken port first, as a race would give it
            given.append(real_free_port() if given else busy)
            return given[-1]

        monkeypatch.setattr(registry, "free_port", free_port)
        with registry.running_registry() as running:
            assert given[0] == busy and running.port == given[1] != busy
            with urllib.request.urlopen(f"http://127.0.0.1:{running.port}/v2/", timeout=5) as answer:
                assert answer.status == 200
