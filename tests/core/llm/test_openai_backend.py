"""OpenAIBackend (httpx, SSE, delta assembly, errors as sentences) against the scripted server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from loki_desktop.core.llm.openai_backend import OpenAIBackend
from loki_desktop.core.llm.profiles import ModelProfiles
from loki_desktop.core.ports import (
    BackendError,
    BackendUnreachable,
    ChatChunk,
    ContextOverflow,
    ModelNotFound,
    StreamCut,
    ToolsUnsupported,
)
from tests.fakes.openai_server import Call, FakeOpenAI, Reply

MODEL = "Qwen/Qwen2.5-Coder-7B-Instruct"
WRITE = {
    "type": "function",
    "function": {"name": "write_file", "description": "Write.", "parameters": {"type": "object"}},
}


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(max_model_len=16384) as fake:
        yield fake


@pytest.fixture
async def backend(server: FakeOpenAI) -> AsyncIterator[OpenAIBackend]:
    client = OpenAIBackend(server.url, label="vLLM du labo")
    yield client
    await client.close()


async def collect(backend: OpenAIBackend, **kwargs: Any) -> list[ChatChunk]:
    params: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [],
        "options": {"num_ctx": 4096},
    }
    params.update(kwargs)
    return [chunk async for chunk in backend.chat(**params)]


async def test_streams_tokens_then_a_done_chunk_with_usage(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    server.script(Reply.text("Bon", "jour", prompt_tokens=321))
    chunks = await collect(backend)
    assert [c.content for c in chunks if c.content] == ["Bon", "jour"]
    last = chunks[-1]
    assert last.done
    assert last.done_reason == "stop"
    assert (last.prompt_eval_count, last.eval_count) == (321, 2)
    sent = server.chat_requests[0]
    assert sent["stream"] is True
    assert sent["stream_options"] == {"include_usage": True}
    assert "options" not in sent
    assert "num_ctx" not in json.dumps(sent)


async def test_tool_calls_assembled_from_argument_pieces(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    first = {"path": "a.py", "content": "print('é')\n" * 5}
    second = {"path": "b.txt", "content": "{not json inside a string}"}
    server.script(Reply(calls=[Call("write_file", first, 7), Call("read_file", second, 4)]))
    chunks = await collect(backend, tools=[WRITE])
    calls = chunks[-1].tool_calls
    assert [c.name for c in calls] == ["write_file", "read_file"]
    assert [json.loads(c.arguments) for c in calls] == [first, second]
    assert server.chat_requests[0]["tools"] == [WRITE]


async def test_interleaved_calls_by_index(backend: OpenAIBackend, server: FakeOpenAI) -> None:
    """Pieces of two calls that arrive in turns land in their own call."""
    from loki_desktop.core.llm.openai_stream import DeltaAssembler

    assembler = DeltaAssembler()
    pieces = [
        {"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": ""}},
        {"index": 1, "id": "b", "type": "function", "function": {"name": "g", "arguments": "{"}},
        {"index": 0, "function": {"arguments": '{"x": '}},
        {"index": 1, "function": {"arguments": '"y": 2}'}},
        {"index": 0, "function": {"arguments": "1}"}},
    ]
    for piece in pieces:
        event = {"choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]}
        assembler.feed(json.dumps(event))
    assembler.feed("[DONE]")
    final = assembler.final()
    assert [(c.name, json.loads(c.arguments)) for c in final.tool_calls] == [
        ("f", {"x": 1}),
        ("g", {"y": 2}),
    ]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_fields_are_thinking(
    backend: OpenAIBackend, server: FakeOpenAI, field: str
) -> None:
    server.script(Reply(reasoning=["Je ", "pense"], tokens=["Oui"], reasoning_field=field))
    chunks = await collect(backend)
    assert "".join(c.thinking for c in chunks) == "Je pense"
    assert "".join(c.content for c in chunks) == "Oui"


async def test_images_go_as_content_parts_and_tool_results_get_ids(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"
    messages = [
        {"role": "user", "content": "Décris", "images": [png]},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a"}}}],
        },
        {"role": "tool", "content": "contenu", "tool_name": "read_file"},
    ]
    server.script(Reply.text("ok"))
    await collect(backend, messages=messages)
    sent = server.chat_requests[0]["messages"]
    assert sent[0]["content"] == [
        {"type": "text", "text": "Décris"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}},
    ]
    call = sent[1]["tool_calls"][0]
    assert call["type"] == "function"
    assert json.loads(call["function"]["arguments"]) == {"path": "a"}
    assert sent[2] == {"role": "tool", "tool_call_id": call["id"], "content": "contenu"}


async def test_models_and_context_length_from_max_model_len(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    models = await backend.list_models()
    assert [m.name for m in models] == [MODEL]
    assert await backend.context_length(MODEL) == 16384
    profile = await backend.model_profile(MODEL)
    assert profile.tools
    assert not profile.vision  # unknown until the server accepted an image (accepts_images)
    assert not profile.known


async def test_the_server_is_asked_once_whether_a_model_takes_images() -> None:
    with FakeOpenAI(models=("texte", "yeux"), vision_models=("yeux",)) as server:
        backend = OpenAIBackend(server.url)
        profiles = ModelProfiles()
        try:
            assert not await profiles.takes_images(backend, "texte")  # 400: not multimodal
            assert await profiles.takes_images(backend, "yeux")
            assert (await profiles.get(backend, "yeux")).vision  # remembered in its profile
            asked = len(server.requests)
            assert await profiles.takes_images(backend, "yeux")
            assert not await profiles.takes_images(backend, "texte")
            assert len(server.requests) == asked  # asked once per model
            probe = server.requests[-1][2]
            assert probe["max_tokens"] == 1
            assert probe["messages"][0]["content"][1]["type"] == "image_url"
        finally:
            await backend.close()


async def test_a_per_model_setting_wins_over_the_server(server: FakeOpenAI) -> None:
    backend = OpenAIBackend(server.url, context_lengths={MODEL: 4096})
    try:
        assert await backend.context_length(MODEL) == 4096
    finally:
        await backend.close()


async def test_the_api_key_goes_as_a_bearer_and_a_bad_one_is_a_sentence() -> None:
    with FakeOpenAI(api_key="sk-good") as server:
        good = OpenAIBackend(server.url, api_key="sk-good")
        bad = OpenAIBackend(server.url, api_key="sk-bad", label="Labo")
        try:
            assert [m.name for m in await good.list_models()] == [MODEL]
            with pytest.raises(BackendError) as caught:
                await collect(bad)
            with pytest.raises(BackendError) as listing:
                await bad.list_models()
        finally:
            await good.close()
            await bad.close()
    for error in (caught.value, listing.value):
        assert "« Labo »" in str(error)
        assert "401" in str(error)
        assert "clé" in str(error)


async def test_unknown_model_names_the_server_and_its_models(backend: OpenAIBackend) -> None:
    with pytest.raises(ModelNotFound) as caught:
        await collect(backend, model="gpt-9")
    assert "gpt-9" in str(caught.value)
    assert "vLLM du labo" in str(caught.value)
    assert MODEL in str(caught.value)


async def test_vllm_overflow_is_a_context_overflow_with_the_numbers(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    server.script(Reply.overflow(n_ctx=4096, requested=9000, messages=5000))
    with pytest.raises(ContextOverflow) as caught:
        await collect(backend)
    assert (caught.value.n_ctx, caught.value.n_prompt) == (4096, 5000)


async def test_server_down_is_unreachable_naming_it() -> None:
    with FakeOpenAI() as server:
        url = server.url
    backend = OpenAIBackend(url, label="Cluster")
    try:
        with pytest.raises(BackendUnreachable) as caught:
            await collect(backend)
    finally:
        await backend.close()
    assert "« Cluster »" in str(caught.value)


async def test_a_stream_cut_midway_is_stream_cut(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    server.script(Reply.text("a", "b", "c", cut_after=1))
    with pytest.raises(StreamCut) as caught:
        await collect(backend)
    assert "vLLM du labo" in str(caught.value)


async def test_a_stream_without_an_end_is_stream_cut(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    server.script(Reply.text("a", no_done=True))
    with pytest.raises(StreamCut):
        await collect(backend)


async def test_an_empty_200_is_a_sentence_or_a_tool_refusal(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    server.script(Reply(empty=True), Reply(empty=True))
    with pytest.raises(BackendError) as caught:
        await collect(backend)
    assert "vide" in str(caught.value)
    assert not isinstance(caught.value, ToolsUnsupported)
    with pytest.raises(ToolsUnsupported):
        await collect(backend, tools=[WRITE])


async def test_an_error_event_mid_stream_is_a_sentence(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    error = {"message": "CUDA out of memory", "type": "InternalServerError", "code": 500}
    server.script(Reply.text("a", error=error))
    with pytest.raises(BackendError) as caught:
        await collect(backend)
    assert "out of memory" in str(caught.value)


async def test_a_wrong_path_says_where_the_api_is() -> None:
    with FakeOpenAI() as server:
        backend = OpenAIBackend(server.url.removesuffix("/v1"))
        try:
            with pytest.raises(BackendError) as caught:
                await backend.list_models()
        finally:
            await backend.close()
    assert "/v1" in str(caught.value)


async def test_llama_cpp_python_overflow_500_is_a_context_overflow(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    server.script(
        Reply.http_error(
            500, "Requested tokens (3000) exceed context window of 2048", "internal", 500
        )
    )
    with pytest.raises(ContextOverflow) as caught:
        await collect(backend)
    assert (caught.value.n_ctx, caught.value.n_prompt) == (2048, 3000)


async def test_the_connection_is_kept_for_the_next_request(
    backend: OpenAIBackend, server: FakeOpenAI
) -> None:
    """The body is read past `[DONE]`: a response left unread would close its connection."""
    server.script(Reply.text("a"), Reply.text("b"))
    await collect(backend)
    await collect(backend)
    assert len(set(server.peers)) == 1
