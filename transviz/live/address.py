"""The address students type: this computer's address on the local network, read from the network
interfaces (psutil), never found by sending anything anywhere."""
from __future__ import annotations

import ipaddress
import socket

import psutil

LOOPBACK = "127.0.0.1"
_ANY = ("", "0.0.0.0", "::")


def lan_addresses() -> list[str]:
    """The IPv4 addresses of the interfaces that are up, loopback and link-local (169.254.x.x, no
    network gave it) left out; private addresses (a classroom's 192.168.x.x, 10.x.x.x) first."""
    stats = psutil.net_if_stats()
    found: list[ipaddress.IPv4Address] = []
    for name, addresses in psutil.net_if_addrs().items():
        if name in stats and not stats[name].isup:
            continue
        for address in addresses:
            if address.family != socket.AF_INET:
                continue
            try:
                ip = ipaddress.IPv4Address(address.address)
            except ValueError:
                continue
            if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast) and ip not in found:
                found.append(ip)
    return [str(ip) for ip in sorted(found, key=lambda ip: not ip.is_private)]  # stable: interfaces' order kept


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
