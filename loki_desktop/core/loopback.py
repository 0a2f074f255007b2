"""Loopback never goes through a proxy: the HTTP client mounts for this machine's addresses.

httpx honours HTTP_PROXY / HTTPS_PROXY / ALL_PROXY from the environment, and only NO_PROXY
exempts a host: with a company proxy set and no NO_PROXY, a request to Ollama on
127.0.0.1 would be sent to the proxy, which cannot reach this machine's loopback. A mount
of None for a host pattern means "no proxy" (httpx's own way of applying NO_PROXY, through
the public `mounts` argument); remote hosts keep the environment's proxy.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

# Always direct: the loopback names and addresses every system has.
LOOPBACK_PATTERNS = ("all://localhost", "all://*.localhost", "all://127.0.0.1", "all://[::1]")


def direct_mounts(host: str) -> dict[str, None]:
    """The `mounts` of an httpx client that reaches loopback directly, whatever the proxy
    settings: the usual loopback names, plus `host` itself when it is on loopback (any of
    127.0.0.0/8, say)."""
    mounts: dict[str, None] = dict.fromkeys(LOOPBACK_PATTERNS)
    name = urlsplit(host if "://" in host else f"http://{host}").hostname or ""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return mounts
    if address.is_loopback:
        mounts[f"all://[{name}]" if address.version == 6 else f"all://{name}"] = None
    return mounts
