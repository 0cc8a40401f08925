"""The address students type: this computer's address on the local network, read from the network
interfaces (psutil), never found by sending anything anywhere."""
from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

import psutil

LOOPBACK = "127.0.0.1"
_ANY = ("", "0.0.0.0", "::")


# Interfaces of containers, virtual machines and VPNs: their addresses are not the classroom's network
VIRTUAL = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "lxc", "lxd", "tun", "tap", "wg", "utun", "zt")


def lan_addresses() -> list[str]:
    """The IPv4 addresses of this computer's interfaces that are up, in :func:`ranked` order."""
    stats = psutil.net_if_stats()
    return ranked((name, address.address) for name, addresses in psutil.net_if_addrs().items()
                  if not (name in stats and not stats[name].isup)
                  for address in addresses if address.family == socket.AF_INET)


def ranked(interfaces: Iterable[tuple[str, str]]) -> list[str]:
    """IPv4 addresses of (interface name, address) pairs, loopback and link-local (169.254.x.x: no
    network gave it) left out; private addresses (a classroom's 192.168.x.x, 10.x.x.x) first, those
    of virtual interfaces (containers, VPNs) last, else in the interfaces' order."""
    found = []
    for name, text in interfaces:
        try:
            ip = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast):
            found.append((name.lower().startswith(VIRTUAL), not ip.is_private, str(ip)))
    ordered = [ip for _, _, ip in sorted(found, key=lambda item: item[:2])]  # sorted() keeps the order of ties
    return list(dict.fromkeys(ordered))


def lan_address() -> str:
    """The first of :func:`lan_addresses`, else the loopback address (a computer on no network)."""
    addresses = lan_addresses()
    return addresses[0] if addresses else LOOPBACK


def shown_host(host: str) -> str:
    """The host to put in the join address for a server bound to ``host``: the LAN address when it
    listens on every interface, else ``host`` itself (an IPv6 address in brackets)."""
    if host in _ANY:
        return lan_address()
    return f"[{host}]" if ":" in host else host


def page_url(host: str, port: int) -> str:
    """``http://HOST:PORT/``: the page students open."""
    return f"http://{shown_host(host)}:{port}/"


def join_url(url: str, code: str) -> str:
    """``url`` with the join code as its fragment: the page fills the code in, and a fragment never
    leaves the browser (no server log, no proxy sees it)."""
    return f"{url.split('#', 1)[0]}#{code}"
