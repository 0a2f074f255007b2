"""Instructions that would never reach the model: a template with no system slot gets them
folded into the first user message, a base model is warned about, and a request that needed
a tool says when none was used (scripted Ollama and OpenAI-compatible servers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.events import Event, Notice
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.llm.openai_backend import OpenAIBackend
from loki_desktop.core.llm.template import read_template
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import (
    CHAT_TEMPLATE,
    NO_SYSTEM_TEMPLATE,
    PROMPT_ONLY_TEMPLATE,
    FakeOllama,
    ModelCard,
    Reply,
)
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.openai_server import Reply as OpenAIReply

# Shapes of real Ollama templates (gemma3's folds "system" into the user turn; qwen2.5's
# legacy branch prints .System)
GEMMA3 = (
    "{{- range $i, $_ := .Messages }}{{- $last := eq (len (slice $.Messages $i)) 1 }}"
    '{{- if or (eq .Role "user") (eq .Role "system") }}<start_of_turn>user\n{{ .Content }}'
    "<end_of_turn>\n{{ if $last }}<start_of_turn>model\n{{ end }}"
    '{{- else if eq .Role "assistant" }}<start_of_turn>model\n{{ .Content }}{{ if not $last }}'
    "<end_of_turn>\n{{ end }}{{- end }}{{- end }}"
)
MISTRAL_LEGACY = "[INST] {{ .System }} {{ .Prompt }} [/INST]"
LEGACY_NO_SYSTEM = "[INST] {{ .Prompt }} [/INST]"


@pytest.mark.parametrize(
    ("template", "system", "chat"),
    [
        (CHAT_TEMPLATE, True, True),
        (GEMMA3, True, True),
        (MISTRAL_LEGACY, True, True),
        (NO_SYSTEM_TEMPLATE, False, True),
        (LEGACY_NO_SYSTEM, False, True),
        (PROMPT_ONLY_TEMPLATE, False, False),
        ("", None, None),
        (None, None, None),
    ],
)
def test_what_a_template_does_with_the_system_text(
    template: str | None, system: bool | None, chat: bool | None
) -> None:
    facts = read_template(template)
    assert (facts.system, facts.chat) == (system, chat)


def _codes(events: list[Event]) -> list[str]:
    return [e.code for e in events if isinstance(e, Notice)]


def _roles(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [m["role"] for m in messages]


async def test_a_template_with_no_system_slot_gets_the_instructions_in_the_first_message(
    store: History, workspace: Path
) -> None:
    cards = {"gemma-like:1b": ModelCard(template=NO_SYSTEM_TEMPLATE)}
    with FakeOllama(models=(), cards=cards) as server:
        backend = OllamaBackend(server.url)
        try:
            server.script(Reply.text("Bonjour !"), Reply.text("Encore bonjour."))
            agent = make_agent(backend, store, workspace, Settings(model="gemma-like:1b"))
            first = await turn(agent, "Salut")
            session = first[-1].session  # type: ignore[union-attr]
            second = await turn(agent, "Et encore ?", session)
        finally:
            await backend.close()
    sent = server.chat_requests[0]["messages"]
    assert _roles(server.chat_requests[0]) == ["user"]
    assert "You are Loki" in sent[0]["content"]  # the system prompt, folded
    assert sent[0]["content"].endswith("---\n\nSalut")
    assert _codes(first).count("system_folded") == 1
    assert "system_folded" not in _codes(second)  # said once for the model
    # the history keeps the person's own words; only the request carries the fold
    assert _roles(server.chat_requests[1]) == ["user", "assistant", "user"]
    assert server.chat_requests[1]["messages"][2]["content"] == "Et encore ?"


async def test_a_chat_template_keeps_the_system_message(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Bonjour !"))
    events = await turn(make_agent(backend, store, workspace), "Salut")
    assert _roles(ollama.chat_requests[0])[0] == "system"
    assert "system_folded" not in _codes(events)


async def test_a_base_model_is_said_not_to_be_made_for_chat(
    store: History, workspace: Path
) -> None:
    cards = {"base:135m": ModelCard(template=PROMPT_ONLY_TEMPLATE)}
    with FakeOllama(models=(), cards=cards) as server:
        backend = OllamaBackend(server.url)
        try:
            server.script(Reply.text("et puis le texte continue"))
            agent = make_agent(backend, store, workspace, Settings(model="base:135m"))
            events = await turn(agent, "Bonjour")
        finally:
            await backend.close()
    codes = _codes(events)
    assert "base_model" in codes
    assert "system_folded" in codes  # {{ .Prompt }} drops the system text too
    notice = next(e for e in events if isinstance(e, Notice) and e.code == "base_model")
    assert "modèle de base" in notice.message


async def test_an_openai_server_set_to_fold_gets_no_system_message(
    store: History, workspace: Path
) -> None:
    with FakeOpenAI(models=("smollm2",)) as server:
        backend = OpenAIBackend(server.url, label="llama.cpp", fold_system=True)
        try:
            server.script(OpenAIReply.text("Bonjour"))
            settings = Settings(model="smollm2")
            events = await turn(make_agent(backend, store, workspace, settings), "Salut")
        finally:
            await backend.close()
    messages = server.chat_requests[0]["messages"]
    assert [m["role"] for m in messages] == ["user"]
    assert "You are Loki" in messages[0]["content"]
    assert "system_folded" in _codes(events)


async def test_a_file_described_but_not_written_says_no_tool_was_used(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Voici hello.py :\n```python\nprint('Bonjour')\n```"))
    events = await turn(make_agent(backend, store, workspace), "Écris hello.py qui dit Bonjour")
    assert _codes(events)[-1:] == ["no_tool_used"]
    assert not (workspace / "hello.py").exists()


async def test_a_question_that_needs_no_tool_gets_no_such_notice(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Il affiche Bonjour."))
    events = await turn(make_agent(backend, store, workspace), "Que fait ce script ?")
    assert "no_tool_used" not in _codes(events)


async def test_a_file_written_with_a_tool_gets_no_such_notice(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(
        Reply.tool("write_file", {"path": "hello.py", "content": "print('Bonjour')\n"}),
        Reply.text("C'est écrit."),
    )
    events = await turn(make_agent(backend, store, workspace), "Écris hello.py qui dit Bonjour")
    assert "no_tool_used" not in _codes(events)
    assert (workspace / "hello.py").exists()
