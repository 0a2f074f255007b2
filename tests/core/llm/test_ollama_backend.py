"""OllamaBackend (httpx, our NDJSON reading, the silence watchdog) against the scripted server."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.ports import (
    BackendError,
    BackendUnreachable,
    ChatChunk,
    ModelNotFound,
    StreamCut,
)
from tests.fakes.ollama_server import FakeOllama, Reply

NESTED_TOOL = {
    "type": "function",
    "function": {
        "name": "mcp_web_search",
        "description": "Search.",
        "parameters": {
            "type": "object",
            "properties": {
                "filters": {
                    "type": "object",
                    "properties": {"lang": {"type": "string"}},
                    "required": ["lang"],
                },
            },
            "required": ["filters"],
        },
    },
}


async def collect(backend: OllamaBackend, **kwargs: Any) -> list[ChatChunk]:
    params: dict[str, Any] = {
        "model": "qwen2.5-coder:7b",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [],
        "options": {"num_ctx": 4096},
    }
    params.update(kwargs)
    return [chunk async for chunk in backend.chat(**params)]


async def test_nested_tool_schemas_reach_the_server_unchanged(
    backend: OllamaBackend, ollama: FakeOllama
) -> None:
    ollama.script(Reply.text("ok"))
    await collect(backend, tools=[NESTED_TOOL])
    assert ollama.chat_requests[0]["tools"] == [NESTED_TOOL]
    assert ollama.chat_requests[0]["options"] == {"num_ctx": 4096}


async def test_tool_arguments_sent_as_a_string_are_passed_through(
    backend: OllamaBackend, ollama: FakeOllama
) -> None:
    ollama.script(Reply.tool("read_file", '{"path": "a.txt"}'))
    chunks = await collect(backend)
    calls = [call for chunk in chunks for call in chunk.tool_calls]
    assert [(c.name, c.arguments) for c in calls] == [("read_file", '{"path": "a.txt"}')]


async def test_final_chunk_carries_the_counts(backend: OllamaBackend, ollama: FakeOllama) -> None:
    ollama.script(Reply.text("a", "b", prompt_eval_count=321, eval_count=2))
    chunks = await collect(backend)
    assert "".join(c.content for c in chunks) == "ab"
    assert chunks[-1].done
    assert (chunks[-1].prompt_eval_count, chunks[-1].eval_count) == (321, 2)


async def test_a_cut_stream_raises_stream_cut(backend: OllamaBackend, ollama: FakeOllama) -> None:
    ollama.script(Reply.text("a", "b", "c", cut_after=2))
    seen: list[str] = []

    async def drain() -> None:
        async for chunk in backend.chat(
            model="qwen2.5-coder:7b", messages=[], tools=[], options={}
        ):
            seen.append(chunk.content)

    with pytest.raises(StreamCut):
        await drain()
    assert seen == ["a", "b"]


async def test_unknown_model_lists_the_available_ones(backend: OllamaBackend) -> None:
    with pytest.raises(ModelNotFound, match=r"llama3\.1:8b"):
        await collect(backend, model="nope:1b")


async def test_unreachable_host(loki_home: object) -> None:
    backend = OllamaBackend("http://127.0.0.1:9")
    with pytest.raises(BackendUnreachable, match="ollama serve"):
        await backend.list_models()
    with pytest.raises(BackendUnreachable):
        await collect(backend)
    with pytest.raises(BackendUnreachable):  # "could not ask", not "the model does not say"
        await backend.context_length("qwen2.5-coder:7b")
    await backend.close()


async def test_context_length_comes_from_show(backend: OllamaBackend) -> None:
    assert await backend.context_length("qwen2.5-coder:7b") == 32768
    assert await backend.context_length("absent:1b") is None


async def test_an_error_line_mid_stream_is_a_backend_error(
    backend: OllamaBackend, ollama: FakeOllama
) -> None:
    ollama.script(Reply.text("a", error="out of memory"))
    with pytest.raises(BackendError, match="out of memory") as caught:
        await collect(backend)
    assert not isinstance(caught.value, StreamCut | ModelNotFound)


async def test_an_error_status_gives_the_server_sentence(
    backend: OllamaBackend, ollama: FakeOllama
) -> None:
    ollama.script(Reply.http_error(500, "GPU en feu"))
    with pytest.raises(BackendError, match=r"\(500\) : GPU en feu"):
        await collect(backend)


async def test_silence_past_the_limit_cuts_the_stream(ollama: FakeOllama) -> None:
    # one line, then the server goes quiet far longer than the (shortened) limit
    ollama.script(Reply.text("a", "b", token_delay=30.0))
    backend = OllamaBackend(ollama.url, silence_limit_s=0.2)
    seen: list[str] = []

    async def drain() -> None:
        async for chunk in backend.chat(
            model="qwen2.5-coder:7b", messages=[], tools=[], options={}
        ):
            seen.append(chunk.content)

    try:
        with pytest.raises(StreamCut, match=r"rien envoyé pendant 0\.2 s"):
            await drain()
    finally:
        await backend.close()
    assert seen == ["a"]
    me = asyncio.current_task()
    assert me is not None
    assert me.cancelling() == 0  # the watchdog took its own cancel back


async def test_the_limit_is_on_silence_not_on_the_whole_answer(ollama: FakeOllama) -> None:
    # every gap is well under the limit; together they are several times longer than it
    ollama.script(Reply.text(*"abcdefghij", token_delay=0.1))
    backend = OllamaBackend(ollama.url, silence_limit_s=0.35)
    try:
        chunks = await collect(backend)
    finally:
        await backend.close()
    assert "".join(c.content for c in chunks) == "abcdefghij"


async def test_a_cancel_during_a_wait_stays_a_cancel(ollama: FakeOllama) -> None:
    """Stop while the server is silent: the turn is cancelled, not told "silence"."""
    ollama.script(Reply.text("a", "b", token_delay=30.0))
    backend = OllamaBackend(ollama.url)
    first = asyncio.Event()

    async def drain() -> None:
        async for _chunk in backend.chat(
            model="qwen2.5-coder:7b", messages=[], tools=[], options={}
        ):
            first.set()

    task = asyncio.create_task(drain())
    await first.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await backend.close()


async def test_a_backlog_of_lines_leaves_the_loop_turns(
    backend: OllamaBackend, ollama: FakeOllama
) -> None:
    """Lines read ahead are handed out without a real wait; when the consumer is slower than
    the server, the backlog must not run in one step of the loop (the window would freeze)."""
    ollama.script(Reply.text(*[f"t{i} " for i in range(400)]))
    turns = 0
    stop = asyncio.Event()

    async def other_work() -> None:
        nonlocal turns
        while not stop.is_set():
            turns += 1
            await asyncio.sleep(0)

    other = asyncio.create_task(other_work())
    await asyncio.sleep(0)
    seen = 0
    run = longest_run = 0  # chunks handed out in a row while the other task never ran
    last_turns = turns
    async for _chunk in backend.chat(model="qwen2.5-coder:7b", messages=[], tools=[], options={}):
        seen += 1
        run = run + 1 if turns == last_turns else 1
        longest_run, last_turns = max(longest_run, run), turns
        busy_until = time.monotonic() + 0.001  # a consumer slower than the server
        while time.monotonic() < busy_until:
            pass
    stop.set()
    await other
    assert seen == 401
    # a turn every 20 ms of handling (~20 chunks here), not the whole backlog in one step
    assert longest_run < 100
