"""Template functions: Sprig's network.go (getHostByName), as Helm wires it.

Helm's engine replaces Sprig's getHostByName with a function returning ""
unless DNS lookups are enabled (`--enable-dns`, Engine.EnableDNS, off by
default), so the registered function is that stub. `dns_get_host_by_name` is
Sprig's own: net.LookupHost, one address at random (rand.Intn over the
list); when the lookup fails the list is empty and rand.Intn panics, which
the template reports as an error. The engine installs it with
`enable_dns_function()` when DNS is enabled.
"""

from __future__ import annotations

from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError, GoFunc


def lookup_host(name: str) -> list[str]:
    """net.LookupHost: every IPv4 and IPv6 address of name, without duplicates."""
    import socket  # only with DNS enabled: keep the render path's imports small

    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    addresses: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = str(sockaddr[0]).split("%", 1)[0]
        if address not in addresses:
            addresses.append(address)
    return addresses


def dns_get_host_by_name(name: str) -> str:
    """Sprig's getHostByName (used when Helm's EnableDNS is on)."""
    addresses = lookup_host(name)
    if not addresses:
        raise FuncError("invalid argument to Intn")
    import random  # only with DNS enabled

    return random.choice(addresses)


@gofunc("getHostByName", ("string",), returns="string")
def get_host_by_name(_name: str) -> str:
    """Helm's default (EnableDNS false): no lookup, an empty string."""
    return ""


def enable_dns_function() -> GoFunc:
    """The getHostByName Helm uses with --enable-dns, for the engine to install."""
    return GoFunc("getHostByName", dns_get_host_by_name, ("string",), returns="string")
