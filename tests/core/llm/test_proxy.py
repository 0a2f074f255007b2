"""Issue 16.9: with HTTP(S)_PROXY set and no NO_PROXY, Ollama on loopback is reached
directly, and a remote host still goes through the proxy. A real loopback proxy records
every request it gets."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from loki_desktop.core.llm.ollama import OllamaBackend
from tests.fakes.http_proxy import RecordingProxy
from tests.fakes.ollama_server import FakeOllama


@pytest.fixture
def proxy(ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordingProxy]:
    with RecordingProxy(upstream=ollama.url) as running:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
            monkeypatch.setenv(name, running.url)
        for name in ("NO_PROXY", "no_proxy", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        yield running


async def _models(host: str) -> list[str]:
    backend = OllamaBackend(host)
    try:
        return [model.name for model in await backend.list_models()]
    finally:
        await backend.close()


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
async def test_loopback_ollama_never_goes_through_the_proxy(
    name: str, ollama: FakeOllama, proxy: RecordingProxy
) -> None:
    assert await _models(f"http://{name}:{ollama.port}") == list(ollama.models)
    assert proxy.seen == []


@pytest.mark.parametrize("bind", ["::1", "127.0.0.2"])
async def test_other_loopback_addresses_never_go_through_the_proxy(
    bind: str, proxy: RecordingProxy
) -> None:
    with FakeOllama(bind=bind) as server:
        assert bind in server.url
        assert await _models(server.url) == list(server.models)
    assert proxy.seen == []


async def test_a_remote_host_still_goes_through_the_proxy(
    ollama: FakeOllama, proxy: RecordingProxy
) -> None:
    assert await _models("http://ollama.example:11434") == list(ollama.models)
    assert proxy.seen == ["http://ollama.example:11434/api/tags"]
