"""Fixtures for the MCP tests: real server processes, the real keyring adapter on memory."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.fakes.mcp_servers import TAG_VARIABLE, script, start_http, zombie_children

PY = sys.executable


def stdio(
    server_id: str,
    name: str,
    *,
    enabled: bool = True,
    tag: str = "",
    params: dict[str, str] | None = None,
    **kwargs: object,
) -> ServerConfig:
    """A custom server (enabled by default) running a script of tests/fakes/mcp_servers.

    `tag` marks its process (see processes_tagged) so a test finds what it left running.
    """
    params = dict(params or {})
    if tag:
        params[TAG_VARIABLE] = tag
    return ServerConfig(
        server_id,
        "stdio",
        enabled,
        params=params,
        command=(PY, script(name)),
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def tag() -> str:
    """A tag unique to this test, for the processes it starts."""
    return uuid.uuid4().hex


@pytest.fixture
def secrets() -> KeyringSecrets:
    """The real keyring adapter, on the in-memory backend of the autouse fixture."""
    return KeyringSecrets()


@pytest.fixture(scope="module")
def http_echo() -> Iterator[str]:
    """The echo server over streamable HTTP on a free loopback port; yields its URL."""
    with _http_server("echo") as url:
        yield url


@contextlib.contextmanager
def _http_server(name: str) -> Iterator[str]:
    process, (port,) = start_http(name, "--http", "0")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def no_zombies() -> Iterator[None]:
    """Fails the test if it leaves an unreaped child process behind."""
    yield
    assert zombie_children(os.getpid()) == []


@pytest.fixture(scope="module")
def launch_echo_http() -> Iterator[str]:
    """The launch_echo server over streamable HTTP on a free loopback port; yields its URL."""
    with _http_server("launch_echo") as url:
        yield url


@pytest.fixture(scope="module")
def auth_echo_http() -> Iterator[str]:
    """The echo server behind the SDK's bearer-token check (401 / 403); yields its URL."""
    with _http_server("auth_echo") as url:
        yield url


async def eventually(condition: Callable[[], bool], within_s: float = 60) -> bool:
    """Whether `condition` became true within `within_s` (polled: a test waits on a condition,
    never on a fixed sleep; generous for a loaded machine)."""
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True
