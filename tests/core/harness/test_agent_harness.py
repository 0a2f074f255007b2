"""The turn loop with text-form calls and the context budget: real client, HTTP, SQLite, files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.events import Done, Error, Event, Notice, Token, ToolCall, ToolResult
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import ToolOutcome, ToolSpec
from loki_desktop.core.settings import Settings
from loki_desktop.core.skills.loader import load_builtin_skills
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

SCHEMAS = Path(__file__).resolve().parents[2] / "corpus" / "schemas"
DEBUG_REQUEST = "Mon script plante avec une TypeError, corrige-le"
ARGS = {"path": "notes/todo.md", "content": "- tester Loki\n"}
ARGS_JSON = json.dumps(ARGS)

# The same write_file call, written as text in every form the harness recovers.
TEXT_FORMS = {
    "hermes": f'<tool_call>\n{{"name": "write_file", "arguments": {ARGS_JSON}}}\n</tool_call>',
    "mistral": f'[TOOL_CALLS] [{{"name": "write_file", "arguments": {ARGS_JSON}}}]',
    "mistral_args": f"[TOOL_CALLS]write_file[ARGS]{ARGS_JSON}",
    "llama": f"<function=write_file>{ARGS_JSON}</function>",
    "python_tag": f'<|python_tag|>{{"name": "write_file", "parameters": {ARGS_JSON}}}',
    "bare_json": f'{{"name": "write_file", "parameters": {ARGS_JSON}}}',
    "fenced_json": f'```json\n{{"name": "write_file", "arguments": {ARGS_JSON}}}\n```',
    "qwen_xml": (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes/todo.md\n</parameter>\n"
        "<parameter=content>\n- tester Loki\n\n</parameter>\n</function>\n</tool_call>"
    ),
    "single_quotes": (
        "<tool_call>{'name': 'write_file', 'arguments': "
        "{'path': 'notes/todo.md', 'content': '- tester Loki\\n',}}</tool_call>"
    ),
    "arguments_as_string": (
        '<tool_call>{"name": "write_file", "arguments": ' + json.dumps(ARGS_JSON) + "}</tool_call>"
    ),
}


def pieces(text: str, size: int = 3) -> list[str]:
    """Stream a text in small pieces, as a model does."""
    return [text[i : i + size] for i in range(0, len(text), size)]


class StaticTools:
    """An MCP-like tool source with real server schemas (its calls are not the point here)."""

    def __init__(self, server: str) -> None:
        tools = json.loads((SCHEMAS / f"{server}.json").read_text(encoding="utf-8"))
        self._specs = [
            ToolSpec(t["name"], t["description"], t["inputSchema"], server) for t in tools
        ]

    async def prepare(self) -> list[str]:
        return []

    def specs(self) -> list[ToolSpec]:
        return self._specs

    def owns(self, name: str) -> bool:
        return any(spec.name == name for spec in self._specs)

    async def call(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome(ok=False, output="Error: not connected")


def shown(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, Token))


def notices(events: list[Event]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice)]


# --- text-form tool calls ----------------------------------------------------------------


@pytest.mark.parametrize("form", sorted(TEXT_FORMS))
async def test_a_text_form_call_runs_and_the_turn_goes_on(
    form: str, ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text(*pieces(TEXT_FORMS[form])), Reply.text("Fichier ", "créé."))
    events = await turn(make_agent(backend, store, workspace), "Crée la liste")

    assert (workspace / "notes" / "todo.md").read_text() == "- tester Loki\n"
    calls = [e for e in events if isinstance(e, ToolCall)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [(c.name, c.args) for c in calls] == [("write_file", ARGS)]
    assert results[0].ok
    assert shown(events) == "Fichier créé."  # the call text never reached the screen
    assert any("en texte" in notice and "write_file" in notice for notice in notices(events))
    done = events[-1]
    assert isinstance(done, Done)
    assert done.reason == "completed"

    # stored as a native call, so the next request shows the model the proper form
    conversation = done.session
    assert conversation is not None
    stored = store.messages(conversation)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[1].content == ""
    assert [(c.name, c.args) for c in stored[1].tool_calls] == [("write_file", ARGS)]
    second = ollama.chat_requests[1]["messages"]
    assert second[-2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "write_file", "arguments": ARGS}}],
    }
    assert second[-1]["role"] == "tool"
    assert second[-1]["tool_name"] == "write_file"


async def test_prose_before_a_marker_is_shown_and_kept(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    prose = "Je vais d'abord lire le fichier.\n"
    call = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
    ollama.script(Reply.text(*pieces(prose + call, 4)), Reply.text("x vaut 1."))
    events = await turn(make_agent(backend, store, workspace), "Que vaut x ?")
    assert shown(events) == prose + "x vaut 1."
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.ok
    assert "x = 1" in result.output
    assert ollama.chat_requests[1]["messages"][-2]["content"] == prose


async def test_several_text_calls_in_one_reply_all_run(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("A")
    (workspace / "b.txt").write_text("B")
    text = (
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>\n'
        '<tool_call>{"name": "read_file", "arguments": {"path": "b.txt"}}</tool_call>'
    )
    ollama.script(Reply.text(*pieces(text)), Reply.text("A et B."))
    events = await turn(make_agent(backend, store, workspace), "Lis a et b")
    outputs = [e.output for e in events if isinstance(e, ToolResult)]
    assert outputs == ["A", "B"]
    assert [m["role"] for m in ollama.chat_requests[1]["messages"][-3:]] == [
        "assistant",
        "tool",
        "tool",
    ]


async def test_an_unknown_tool_gets_an_error_naming_the_real_ones(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    text = '<tool_call>{"name": "search_web", "arguments": {"query": "ollama"}}</tool_call>'
    ollama.script(Reply.text(*pieces(text)), Reply.text("Je ne peux pas chercher en ligne."))
    events = await turn(make_agent(backend, store, workspace), "Cherche ollama")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok
    tool_message = ollama.chat_requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "unknown tool 'search_web'" in tool_message["content"]
    assert "read_file" in tool_message["content"]
    assert shown(events) == "Je ne peux pas chercher en ligne."


@pytest.mark.parametrize(
    "answer",
    [
        '```json\n{\n  "name": "my-app",\n  "version": "1.0.0",\n  "private": true\n}\n```',
        '{"name": "Alice", "email": "alice@example.com"}',
        'Un exemple d\'appel :\n```json\n{"name": "write_file", "arguments": {"path": "x"}}\n```',
        "Qwen écrit `<tool_call>{...}</tool_call>` quand son modèle de prompt est cassé.",
        '```python\ncall = {"name": "write_file", "arguments": {"path": "x"}}\n```',
    ],
    ids=["package-json", "record", "example-call", "inline-marker", "python"],
)
async def test_an_answer_containing_json_is_shown_not_executed(
    answer: str, ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text(*pieces(answer)))
    events = await turn(make_agent(backend, store, workspace), "Montre un exemple")
    assert shown(events) == answer
    assert not [e for e in events if isinstance(e, ToolCall)]
    assert not any("en texte" in notice for notice in notices(events))
    assert len(ollama.chat_requests) == 1
    assert not (workspace / "x").exists()
    done = events[-1]
    assert isinstance(done, Done)
    assert done.session is not None
    assert store.messages(done.session)[-1].content == answer


async def test_a_stream_cut_while_holding_shows_what_was_held(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text('{"name": ', '"write_file", ', '"argu', cut_after=3))
    events = await turn(make_agent(backend, store, workspace), "Écris")
    assert shown(events) == '{"name": "write_file", "argu'
    assert isinstance(events[-2], Error)
    assert not (workspace / "notes").exists()


# --- the context budget ---------------------------------------------------------------------


def fill_conversation(store: History, exchanges: int) -> str:
    conversation = store.create("Longue conversation")
    for i in range(exchanges):
        store.append(conversation, ChatMessage("user", f"Question {i} : " + "détaille " * 60))
        store.append(conversation, ChatMessage("assistant", f"Réponse {i} : " + "voici " * 80))
    return conversation


async def test_a_long_conversation_keeps_system_skill_and_last_message(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    conversation = fill_conversation(store, 40)
    ollama.script(Reply.text("Voyons ", "la trace."), Reply.text("Autre chose ?"))
    # the oldest left out (compaction, which would summarise them, is tested apart)
    agent = make_agent(backend, store, workspace, Settings(num_ctx=2048), compaction=False)
    events = await turn(agent, DEBUG_REQUEST, conversation)

    request = ollama.chat_requests[0]
    messages = request["messages"]
    skill = next(s for s in load_builtin_skills().skills if s.name == "debogage-systematique")
    assert messages[0]["role"] == "system"
    assert messages[0]["content"].startswith("You are Loki")
    assert messages[1] == {"role": "system", "content": skill.body}
    assert messages[-1] == {"role": "user", "content": DEBUG_REQUEST}
    assert len(messages) < 2 + 81
    dropped = [n for n in notices(events) if "messages anciens" in n]
    assert dropped == [
        f"{2 + 81 - len(messages)} messages anciens n'ont pas été envoyés au modèle "
        "(contexte de 2048 jetons)."
    ]
    assert shown(events) == "Voyons la trace."

    # the next turn too; num_ctx is in every request
    await turn(agent, "Merci", conversation)
    assert all(r["options"]["num_ctx"] == 2048 for r in ollama.chat_requests)
    assert ollama.chat_requests[1]["messages"][-1] == {"role": "user", "content": "Merci"}


async def test_expensive_mcp_tools_are_left_out_with_a_notice(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("D'accord."))
    sources = [StaticTools("playwright"), StaticTools("fetch")]
    agent = make_agent(backend, store, workspace, Settings(num_ctx=4096), extra_sources=sources)
    events = await turn(agent, "Ouvre la page d'accueil")
    names = {tool["function"]["name"] for tool in ollama.chat_requests[0]["tools"]}
    assert {"read_file", "write_file", "fetch"} <= names
    assert not any(name.startswith("browser_") for name in names)
    assert any("« playwright »" in notice for notice in notices(events))
    assert not any("« fetch »" in notice for notice in notices(events))


async def test_tool_definitions_are_sent_slimmed(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Bien."))
    agent = make_agent(backend, store, workspace, extra_sources=[StaticTools("context7")])
    await turn(agent, "Doc de FastAPI")
    tools = {t["function"]["name"]: t["function"] for t in ollama.chat_requests[0]["tools"]}
    resolve = tools["resolve-library-id"]
    assert resolve["description"] == (
        "Resolves a package/product name to a Context7-compatible library ID and returns "
        "matching libraries."
    )
    assert resolve["parameters"]["required"] == ["query", "libraryName"]
    assert "$schema" not in json.dumps(resolve["parameters"])


async def test_a_prompt_cut_by_ollama_anyway_is_reported(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    # Ollama's runner keeps exactly num_ctx tokens of a prompt that overflows
    ollama.prompt_counter = lambda body: int(body["options"]["num_ctx"])
    ollama.script(Reply.text("Réponse."))
    events = await turn(make_agent(backend, store, workspace, Settings(num_ctx=2048)), "Bonjour")
    assert any("Ollama en a coupé le début" in notice for notice in notices(events))
    assert shown(events) == "Réponse."


async def test_a_message_too_long_for_the_context_is_an_error(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    events = await turn(
        make_agent(backend, store, workspace, Settings(num_ctx=1024)), "mot " * 2000
    )
    errors = [e for e in events if isinstance(e, Error)]
    assert errors
    assert "contexte de 1024 jetons" in errors[0].message
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "error"
    assert ollama.chat_requests == []
