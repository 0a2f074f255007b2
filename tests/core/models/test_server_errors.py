"""What a real server answered in the field: overflows, crashes, silence, unknown windows."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.events import Done, Error, Notice, Token
from loki_desktop.core.llm.server_errors import answered_error
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import ContextOverflow, ThinkingUnsupported, ToolsUnsupported
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.core.models.conftest import served
from tests.fakes.ollama_server import ModelCard, Reply

LLAMA_CPP_OVERFLOW = {
    "code": 400,
    "message": "request (9412 tokens) exceeds the available context size (4096 tokens), "
    "try increasing it",
    "type": "exceed_context_size_error",
    "n_prompt_tokens": 9412,
    "n_ctx": 4096,
}
OPENAI_OVERFLOW = {
    "message": "This model's maximum context length is 4096 tokens. However, your messages "
    "resulted in 5120 tokens. Please reduce the length of the messages.",
    "type": "invalid_request_error",
    "param": "messages",
    "code": "context_length_exceeded",
}
RUNNER_CRASH = (
    "model runner has unexpectedly stopped, this may be due to resource limitations or an "
    "internal error, check ollama server logs for details"
)


def test_error_bodies_are_read_by_shape() -> None:
    overflow = answered_error(400, LLAMA_CPP_OVERFLOW)
    assert isinstance(overflow, ContextOverflow)
    assert (overflow.n_ctx, overflow.n_prompt) == (4096, 9412)
    openai = answered_error(400, OPENAI_OVERFLOW)
    assert isinstance(openai, ContextOverflow)
    assert (openai.n_ctx, openai.n_prompt) == (4096, 5120)
    text_only = answered_error(400, '{"error": "prompt is too long"}')
    assert isinstance(text_only, ContextOverflow)
    assert text_only.n_ctx is None
    tools = answered_error(400, "registry.ollama.ai/library/gemma3:4b does not support tools")
    assert isinstance(tools, ToolsUnsupported)
    assert isinstance(
        answered_error(400, '"gemma3:4b" does not support thinking'), ThinkingUnsupported
    )
    crash = str(answered_error(500, RUNNER_CRASH))
    assert crash.startswith("Le moteur du modèle s'est arrêté pendant la réponse")
    memory = str(
        answered_error(500, "model requires more system memory (9.1 GiB) than is available")
    )
    assert "pas assez de mémoire" in memory
    odd = str(answered_error(400, {"code": 400, "message": "bad grammar", "type": "x"}))
    assert odd == "Le serveur du modèle a refusé la requête (400) : bad grammar"


def _long_history(store: History, messages: int, chars: int) -> str:
    conversation = store.create("long")
    for index in range(messages):
        role = "user" if index % 2 == 0 else "assistant"
        store.append(conversation, ChatMessage(role, f"{index}: " + "mot " * (chars // 4)))
    return conversation


@pytest.mark.parametrize("body", [LLAMA_CPP_OVERFLOW, OPENAI_OVERFLOW])
async def test_a_context_overflow_is_recalibrated_trimmed_and_retried_once(
    store: History, workspace: Path, body: dict[str, object]
) -> None:
    conversation = _long_history(store, 6, 4000)
    async with served({"small:1b": ModelCard()}) as (server, backend):
        server.script(Reply.http_error(400, body), Reply.text("Réponse."), Reply.text("Encore."))
        # a context set larger than the one the server runs (compaction is tested apart)
        settings = Settings(model="small:1b", num_ctx=8192)
        agent = make_agent(backend, store, workspace, settings, skills=False, compaction=False)
        events = await turn(agent, "Résume", conversation)
        later = await turn(agent, "Et ensuite ?", conversation)
    assert "".join(e.text for e in events if isinstance(e, Token)) == "Réponse."
    assert not any(isinstance(e, Error) for e in events + later)
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("contexte de 4096 jetons" in n and "Contexte du modèle" in n for n in notices)
    first, retried, third = (len(b["messages"]) for b in server.chat_requests)
    assert retried < first  # the oldest history was left out to fit
    assert third <= retried + 2  # later turns fit the server's window at once
    assert "exceed_context_size_error" not in str(events)


async def test_a_second_overflow_is_a_sentence_not_a_loop(store: History, workspace: Path) -> None:
    async with served({"small:1b": ModelCard()}) as (server, backend):
        server.script(
            Reply.http_error(400, LLAMA_CPP_OVERFLOW), Reply.http_error(400, LLAMA_CPP_OVERFLOW)
        )
        agent = make_agent(backend, store, workspace, Settings(model="small:1b"), skills=False)
        events = await turn(agent, "Bonjour")
    errors = [e.message for e in events if isinstance(e, Error)]
    assert len(errors) == 1
    assert errors[0].startswith("La requête (~9412 jetons) dépasse le contexte de 4096 jetons")
    assert len(server.chat_requests) == 2


@pytest.mark.parametrize(
    ("reply", "sentence"),
    [
        (Reply.http_error(500, RUNNER_CRASH), "Le moteur du modèle s'est arrêté"),
        (Reply.http_error(500, "llama runner process has terminated: exit status 2"), "Le moteur"),
        (Reply.text("Je com", error=RUNNER_CRASH), "Le moteur du modèle s'est arrêté"),
        (
            Reply.http_error(400, {"message": "invalid 'messages'", "type": "x"}),
            "a refusé la requête",
        ),
    ],
)
async def test_server_error_bodies_become_sentences(
    store: History, workspace: Path, reply: Reply, sentence: str
) -> None:
    async with served({"small:1b": ModelCard()}) as (server, backend):
        server.script(reply)
        agent = make_agent(backend, store, workspace, Settings(model="small:1b"), skills=False)
        events = await turn(agent, "Bonjour")
    errors = [e.message for e in events if isinstance(e, Error)]
    assert len(errors) == 1
    assert sentence in errors[0]
    assert '{"' not in errors[0]
    assert "{'" not in errors[0]


async def test_an_empty_answer_is_said_and_can_be_retried(store: History, workspace: Path) -> None:
    async with served({"small:1b": ModelCard()}) as (server, backend):
        server.script(Reply.text(), Reply.text("Bonjour !"))
        agent = make_agent(backend, store, workspace, Settings(model="small:1b"), skills=False)
        events = await turn(agent, "Bonjour")
        assert isinstance(events[-1], Done)
        assert events[-1].reason == "error"
        session = events[-1].session
        assert session is not None
        retried = [event async for event in agent.retry_turn(session)]
    assert [e.message for e in events if isinstance(e, Error)] == [
        "Le modèle n'a rien répondu. Réessayez, ou reformulez votre message."
    ]
    assert "".join(e.text for e in retried if isinstance(e, Token)) == "Bonjour !"
    assert isinstance(retried[-1], Done)
    assert retried[-1].reason == "completed"


async def test_an_unknown_context_length_is_said_once_with_where_to_set_it(
    store: History, workspace: Path
) -> None:
    async with served({"small:1b": ModelCard(context_length=None)}) as (server, backend):
        server.script(Reply.text("a"), Reply.text("b"))
        settings = Settings(model="small:1b", num_ctx=8192)
        agent = make_agent(backend, store, workspace, settings, skills=False)
        first = await turn(agent, "Bonjour")
        second = await turn(agent, "Encore")
    told = [e.message for e in first if isinstance(e, Notice) and "suppose" in e.message]
    assert len(told) == 1
    assert "8192 jetons" in told[0]
    assert "Réglages → Général" in told[0]
    assert not any(isinstance(e, Notice) and "suppose" in e.message for e in second)
