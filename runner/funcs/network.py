"""Template functions: Sprig's network.go (getHostByName).

Sprig calls net.LookupHost and returns one of the addresses at random
(rand.Intn over the list); when the lookup fails the list is empty and
rand.Intn panics, which the template reports as an error.
"""

from __future__ import annotations

import random
import socket

from runner.funcs.registry import FuncError, gofunc


def lookup_host(name: str) -> list[str]:
    """net.LookupHost: every IPv4 and IPv6 address of name, without duplicates."""
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


@gofunc("getHostByName", ("string",), returns="string")
def get_host_by_name(name: str) -> str:
    addresses = lookup_host(name)
    if not addresses:
        raise FuncError("invalid argument to Intn")
    return random.choice(addresses)
