"""Models without native tools: tools described in the prompt, calls read from the text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loki_desktop.core.events import CheckReport, Done, Error, Notice, Token, ToolResult
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.core.models.conftest import served
from tests.fakes.ollama_server import ModelCard, Reply

GEMMA3 = ModelCard.no_tools("vision", family="gemma3")
PROMPTED = "n'a pas d'appels d'outils natifs"


def _call(name: str, **args: Any) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"


def _notices(events: list[Any], words: str) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice) and words in e.message]


async def test_a_model_without_tools_writes_a_file_through_the_prompt(
    store: History, workspace: Path
) -> None:
    async with served({"gemma3:4b": GEMMA3}) as (server, backend):
        server.script(
            Reply.text(
                "Je crée le fichier.\n", _call("write_file", path="hi.py", content="print('hi')\n")
            ),
            Reply.text("C'est fait : hi.py affiche hi."),
        )
        agent = make_agent(backend, store, workspace, Settings(model="gemma3:4b"), skills=False)
        events = await turn(agent, "Écris hi.py")
    assert (workspace / "hi.py").read_text() == "print('hi')\n"
    assert [e.ok for e in events if isinstance(e, CheckReport)] == [True]
    assert [e.ok for e in events if isinstance(e, ToolResult)] == [True]
    answer = "".join(e.text for e in events if isinstance(e, Token))
    assert answer == "Je crée le fichier.\nC'est fait : hi.py affiche hi."
    assert not any(isinstance(e, Error) for e in events)
    assert len(_notices(events, PROMPTED)) == 1
    assert not _notices(events, "au lieu de le faire")  # the form asked for is no surprise
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"
    first, second = server.chat_requests
    assert "tools" not in first
    assert "tools" not in second
    system = first["messages"][0]["content"]
    assert "- write_file(path: string, content: string) — " in system
    assert "<tool_call>" in system
    sent = second["messages"]
    assert not any(m["role"] == "tool" or "tool_calls" in m for m in sent)
    assert '"name": "write_file"' in sent[-2]["content"]
    assert sent[-1]["role"] == "user"
    assert sent[-1]["content"].startswith('<tool_result name="write_file">\n')
    assert "Automatic check of hi.py: no problems found." in sent[-1]["content"]


async def test_the_prompted_notice_is_said_once_per_conversation(
    store: History, workspace: Path
) -> None:
    async with served({"gemma3:4b": GEMMA3}) as (server, backend):
        server.script(Reply.text("Bonjour"), Reply.text("Re"), Reply.text("Autre"))
        agent = make_agent(backend, store, workspace, Settings(model="gemma3:4b"), skills=False)
        first = await turn(agent, "Salut")
        assert isinstance(first[-1], Done)
        again = await turn(agent, "Encore", first[-1].session)
        other = await turn(agent, "Nouvelle conversation")
    assert len(_notices(first, PROMPTED)) == 1
    assert _notices(again, PROMPTED) == []
    assert len(_notices(other, PROMPTED)) == 1


async def test_a_server_that_refuses_tools_gets_the_same_request_prompted(
    store: History, workspace: Path
) -> None:
    # /api/show claims tools, the chat answers 400 "does not support tools"
    card = ModelCard(refuse_tools=True)
    async with served({"phi4:14b": card}) as (server, backend):
        server.script(
            Reply.text(_call("write_file", path="a.txt", content="A")),
            Reply.text("Fait."),
            Reply.text("Rebonjour."),
        )
        agent = make_agent(backend, store, workspace, Settings(model="phi4:14b"), skills=False)
        events = await turn(agent, "Écris a.txt")
        assert isinstance(events[-1], Done)
        later = await turn(agent, "Merci", events[-1].session)
    assert (workspace / "a.txt").read_text() == "A"
    assert not any(isinstance(e, Error) for e in events + later)
    assert "does not support tools" not in str(events)
    assert len(_notices(events, PROMPTED)) == 1
    with_tools = ["tools" in body for body in server.chat_requests]
    assert with_tools == [True, False, False, False]  # remembered for that model


async def test_json_in_prose_is_still_not_a_call(store: History, workspace: Path) -> None:
    async with served({"gemma3:4b": GEMMA3}) as (server, backend):
        example = 'Un appel ressemble à {"name": "write_file", "arguments": {"path": "x"}}.'
        server.script(Reply.text(example))
        agent = make_agent(backend, store, workspace, Settings(model="gemma3:4b"), skills=False)
        events = await turn(agent, "Montre un exemple")
    assert "".join(e.text for e in events if isinstance(e, Token)) == example
    assert not list(workspace.iterdir())
    assert len(server.chat_requests) == 1


async def test_checks_and_the_one_fix_pass_work_the_same(store: History, workspace: Path) -> None:
    async with served({"gemma3:4b": GEMMA3}) as (server, backend):
        server.script(
            Reply.text(_call("write_file", path="bad.py", content="def f(:\n")),
            Reply.text("Voilà."),
            Reply.text(_call("write_file", path="bad.py", content="def f():\n    return 1\n")),
            Reply.text("Corrigé."),
        )
        agent = make_agent(backend, store, workspace, Settings(model="gemma3:4b"), skills=False)
        events = await turn(agent, "Écris bad.py")
    assert [e.ok for e in events if isinstance(e, CheckReport)] == [False, True]
    followup = server.chat_requests[2]["messages"][-1]
    assert followup["role"] == "user"
    assert "The automatic check still finds problems" in followup["content"]
    assert (workspace / "bad.py").read_text() == "def f():\n    return 1\n"


async def test_a_per_model_setting_forces_the_tool_mode(store: History, workspace: Path) -> None:
    async with served({"qwen2.5-coder:7b": ModelCard(), "gemma3:4b": GEMMA3}) as (server, backend):
        server.script(
            Reply.text(_call("list_dir", path=".")),
            Reply.text("Vide."),
            Reply.text(_call("write_file", path="no.txt", content="x")),
        )
        prompted = Settings(model="qwen2.5-coder:7b", tool_modes={"qwen2.5-coder:7b": "prompted"})
        events = await turn(make_agent(backend, store, workspace, prompted, skills=False), "Liste")
        none = Settings(model="gemma3:4b", tool_modes={"gemma3:4b": "none"})
        bare = await turn(make_agent(backend, store, workspace, none, skills=False), "Écris")
    assert [e.ok for e in events if isinstance(e, ToolResult)] == [True]
    assert ["tools" in b for b in server.chat_requests] == [False, False, False]
    assert "list_dir(" in server.chat_requests[0]["messages"][0]["content"]
    # no tools at all: nothing described, a call written anyway is only text
    bare_system = server.chat_requests[2]["messages"][0]["content"]
    assert "write_file(" not in bare_system
    assert "you have no tools in this conversation" in bare_system
    assert not (workspace / "no.txt").exists()
    assert '"name": "write_file"' in "".join(e.text for e in bare if isinstance(e, Token))


async def test_native_forced_on_a_model_that_refuses_says_where_to_change_it(
    store: History, workspace: Path
) -> None:
    async with served({"gemma3:4b": GEMMA3}) as (server, backend):
        forced = Settings(model="gemma3:4b", tool_modes={"gemma3:4b": "native"})
        events = await turn(make_agent(backend, store, workspace, forced, skills=False), "Salut")
    errors = [e.message for e in events if isinstance(e, Error)]
    assert len(errors) == 1
    assert "réglages" in errors[0]
    assert len(server.chat_requests) == 1
