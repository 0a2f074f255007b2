"""Model profiles from /api/show: the shapes Ollama sends, asked once per model and host."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from loki_desktop.core.events import Done, Error
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.llm.profiles import ModelProfiles, capability_marks, describe, parse_profile
from loki_desktop.core.llm.thinking import think_choices, think_value
from loki_desktop.core.ports import BackendUnreachable, ModelProfile
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.core.models.conftest import served
from tests.fakes.ollama_server import FakeOllama, ModelCard, Reply

GPT_OSS = ModelCard.thinker("low", "medium", "high", family="gptoss", parameter_size="20.9B")
QWEN3 = ModelCard.thinker(family="qwen3", parameter_size="8.2B")
GEMMA3 = ModelCard.no_tools("vision", family="gemma3", parameter_size="4.3B")


async def test_a_thinking_model_with_levels_is_read_whole() -> None:
    with FakeOllama(cards={"gpt-oss:20b": GPT_OSS}) as server:
        backend = OllamaBackend(server.url)
        try:
            profile = await backend.model_profile("gpt-oss:20b")
        finally:
            await backend.close()
    assert profile.capabilities == {"completion", "tools", "thinking"}
    assert profile.think_values == ("low", "medium", "high")
    assert profile.think_default == "medium"
    assert profile.think_levels == ("low", "medium", "high")
    assert (profile.family, profile.parameter_size, profile.quantization) == (
        "gptoss",
        "20.9B",
        "Q4_K_M",
    )
    assert profile.context_length == 32768
    assert profile.tools
    assert profile.thinking
    assert not profile.vision
    assert profile.known


def test_the_documented_show_answers_are_parsed() -> None:
    # docs/capabilities/thinking: booleans for on/off, `[false]` for none; details as in api.md
    qwen = parse_profile(
        "qwen3:8b",
        {
            "capabilities": ["completion", "tools", "thinking"],
            "thinking": {"values": [False, True], "default": True},
            "details": {"family": "qwen3", "parameter_size": "8.2B", "quantization_level": "Q4"},
            "model_info": {"qwen3.context_length": 40960, "general.architecture": "qwen3"},
        },
    )
    assert qwen.thinking
    assert qwen.think_levels == ()
    assert qwen.context_length == 40960
    never = parse_profile(
        "x", {"capabilities": ["completion", "thinking"], "thinking": {"values": [False]}}
    )
    assert not never.thinking
    embed = parse_profile("nomic-embed-text", {"capabilities": ["embedding"]})
    assert not embed.for_chat
    assert capability_marks(embed) == ["embeddings seulement (pas pour la conversation)"]


@pytest.mark.parametrize(
    "shown",
    [
        {},  # an old server: no capabilities
        {"capabilities": "tools"},  # not a list
        {"capabilities": [], "model_info": {"llama.context_length": True}},
        ["not", "an", "object"],
    ],
)
def test_a_profile_the_server_cannot_give_is_assumed(shown: object) -> None:
    profile = parse_profile("m", shown)
    assert not profile.known
    assert profile.tools
    assert not profile.thinking
    assert not profile.vision
    assert profile.context_length is None


async def test_a_failing_show_means_tools_no_thinking_no_vision() -> None:
    with FakeOllama(cards={"broken:1b": ModelCard(show_status=500)}) as server:
        backend = OllamaBackend(server.url)
        try:
            profile = await backend.model_profile("broken:1b")
        finally:
            await backend.close()
    # what Ollama runs it with is still its default context (core.llm.context_size)
    assert profile == dataclasses.replace(ModelProfile.assumed("broken:1b"), server_ctx=4096)
    assert capability_marks(profile) == ["outils", "capacités inconnues"]


async def test_show_is_asked_once_per_model_and_host() -> None:
    with (
        FakeOllama(cards={"gemma3:4b": GEMMA3}) as one,
        FakeOllama(cards={"gemma3:4b": QWEN3}) as two,
    ):
        first, second = OllamaBackend(one.url), OllamaBackend(two.url)
        profiles = ModelProfiles()
        try:
            for _ in range(3):
                a = await profiles.get(first, "gemma3:4b")
                b = await profiles.get(second, "gemma3:4b")
            listed = await describe(first, profiles, ["gemma3:4b", "qwen2.5-coder:7b"])
        finally:
            await first.close()
            await second.close()
    assert a.vision
    assert not a.tools
    assert b.thinking
    assert not b.vision
    assert len(one.show_requests) == 2  # gemma3 once, then qwen2.5-coder for `describe`
    assert len(two.show_requests) == 1
    assert [p.name for p in listed] == ["gemma3:4b", "qwen2.5-coder:7b"]


async def test_an_unreachable_server_is_not_remembered() -> None:
    backend = OllamaBackend("http://127.0.0.1:9")
    profiles = ModelProfiles()
    try:
        with pytest.raises(BackendUnreachable):
            await profiles.get(backend, "m")
    finally:
        await backend.close()
    assert profiles.peek("http://127.0.0.1:9", "m") is None


def test_think_is_sent_only_as_the_model_allows() -> None:
    gpt = parse_profile(
        "gpt-oss",
        {
            "capabilities": ["completion", "thinking"],
            "thinking": {"values": ["low", "medium", "high"], "default": "medium"},
        },
    )
    qwen = parse_profile(
        "qwen3",
        {
            "capabilities": ["completion", "thinking"],
            "thinking": {"values": [False, True], "default": True},
        },
    )
    gemma = parse_profile("gemma3", {"capabilities": ["completion", "vision"]})
    assert think_choices(gpt) == ("auto", "off", "low", "medium", "high")
    assert think_choices(qwen) == ("auto", "off", "on")
    assert think_choices(gemma) == ("auto",)
    assert [think_value(m, gpt) for m in ("auto", "off", "on", "high", "max")] == [
        None,
        False,
        True,
        "high",
        None,  # never a level the model does not list
    ]
    assert [think_value(m, qwen) for m in ("auto", "off", "on", "high", "banana")] == [
        None,
        False,
        True,
        True,  # a usual level on a model without levels: thinking on
        None,  # a word the model does not know: its default
    ]
    assert [think_value(m, gemma) for m in ("auto", "off", "on", "high")] == [None] * 4


async def test_an_embedding_model_is_never_chosen_for_chat(store: History, workspace: Path) -> None:
    cards = {"nomic-embed-text:latest": ModelCard.embedding(), "qwen3:8b": QWEN3}
    async with served(cards) as (server, backend):
        server.script(Reply.text("Bonjour"))
        events = await turn(make_agent(backend, store, workspace, skills=False), "Salut")
        chosen = Settings(model="nomic-embed-text:latest")
        refused = await turn(make_agent(backend, store, workspace, chosen, skills=False), "Salut")
    assert [b["model"] for b in server.chat_requests] == ["qwen3:8b"]
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"
    errors = [e.message for e in refused if isinstance(e, Error)]
    assert errors == [
        "« nomic-embed-text:latest » est un modèle d'embeddings : il ne sait pas converser. "
        "Choisissez un autre modèle."
    ]
