"""getHostByName: Helm's engine stubs it to "" unless DNS is enabled
(pkg/engine funcs: `if !e.EnableDNS { funcMap["getHostByName"] = func(string) string { return "" } }`);
with DNS, Sprig returns one address of net.LookupHost at random and panics
(rand.Intn(0): "invalid argument to Intn") when there is none."""

from __future__ import annotations

import socket

import pytest

from runner.funcs import network
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError


def test_registered() -> None:
    assert registered()["getHostByName"].params == ("string",)


def test_default_is_helms_dns_disabled_stub() -> None:
    assert registered()["getHostByName"].impl("localhost") == ""
    assert network.get_host_by_name("127.0.0.1") == ""


def test_enable_dns_function_is_sprigs_lookup() -> None:
    func = network.enable_dns_function()
    assert func.name == "getHostByName" and func.params == ("string",)
    assert func.impl("127.0.0.1") == "127.0.0.1"  # an IP literal resolves to itself
    assert func.impl("localhost") in {"127.0.0.1", "::1"}


def test_failed_lookup_is_the_rand_intn_panic(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_args: object, **_kwargs: object) -> list[object]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(FuncError, match="^invalid argument to Intn$"):
        network.dns_get_host_by_name("no-such-host.invalid")


def test_addresses_are_deduplicated(monkeypatch: pytest.MonkeyPatch) -> None:
    infos = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.1", 0)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.1", 0)),
        (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("fe80::1%eth0", 0, 0, 2)),
    ]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: infos)
    assert network.lookup_host("example") == ["10.0.0.1", "fe80::1"]
