"""Conversations that outlast the context: a real summary call, then summary + recent turns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loki_desktop.core.compaction import SUMMARY_HEADER, SUMMARY_SYSTEM
from loki_desktop.core.events import Compacted, Event, Notice, Token, event_to_json
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

MODEL = "qwen2.5-coder:7b"
FACT = "Retiens : mon serveur de prod tourne sur Debian 12, port 8443."
FILLER = (
    "Je détaille ici le contexte du projet, les contraintes de l'équipe et ce que nous avons "
    "essayé jusqu'à présent, sans rien conclure encore. "
)


def is_summary_call(body: dict[str, Any]) -> bool:
    return body["messages"][0]["content"] == SUMMARY_SYSTEM


def summariser(answer: str = "D'accord, c'est noté.") -> Any:
    """A scripted model: to a summary request it answers the facts the user asked it to keep
    (from the previous summary and the new messages), as the summary prompt asks; to
    anything else, `answer`."""

    def reply(body: dict[str, Any]) -> Reply:
        if not is_summary_call(body):
            return Reply.text(answer + " " + FILLER * 3)
        given = body["messages"][1]["content"]
        kept = [line for line in given.splitlines() if "Retiens" in line or line.startswith("- ")]
        facts = dict.fromkeys(line.split("Retiens : ", 1)[-1].lstrip("- ") for line in kept)
        return Reply.text("\n".join(f"- {fact}" for fact in facts) or "- rien de notable")

    return reply


def stored_conversation(store: History, turns: int, first: str = FACT) -> str:
    conversation = store.create("Projet")
    for index in range(turns):
        text = first if index == 0 else f"Question {index} : {FILLER * 3}"
        store.append(conversation, ChatMessage("user", text))
        store.append(conversation, ChatMessage("assistant", f"Réponse {index} : {FILLER * 3}"))
    return conversation


def contents(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


async def test_a_real_summary_call_then_the_request_holds_the_summary_and_recent_turns_only(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    conversation = stored_conversation(store, 16)
    ollama.default = summariser()
    agent = make_agent(backend, store, workspace, Settings(model=MODEL, num_ctx=8192))
    events = await turn(agent, "Et maintenant, où en sommes-nous ?", conversation)

    summary_request, answer_request = ollama.chat_requests
    assert is_summary_call(summary_request)
    assert "tools" not in summary_request
    assert FACT in summary_request["messages"][1]["content"]
    assert "Question 1 :" in summary_request["messages"][1]["content"]
    (compacted,) = [e for e in events if isinstance(e, Compacted)]
    assert "Debian 12, port 8443" in compacted.summary
    line = event_to_json(compacted)
    assert (line["type"], line["code"]) == ("notice", "compacted")

    sent = answer_request["messages"]
    systems = [m["content"] for m in sent if m["role"] == "system"]
    assert systems[-1] == SUMMARY_HEADER + compacted.summary
    users = [m["content"] for m in sent if m["role"] == "user"]
    # the turns the summary stands for are gone; the recent ones are there word for word
    assert FACT not in contents(answer_request)
    assert "Question 1 :" not in contents(answer_request)
    assert users[-1] == "Et maintenant, où en sommes-nous ?"
    assert users[-2].startswith("Question 15 :")
    kept = len([m for m in sent if m["role"] in ("user", "assistant")])
    stored = store.messages(conversation)
    (card,) = [m for m in stored if m.role == "system"]
    assert card.meta.compacted == len(stored) - kept - 2  # the card and the new answer
    # the full history stays stored
    assert sum(m.role == "user" for m in stored) == 17
    assert not [e for e in events if isinstance(e, Notice) and "pas été envoyé" in e.message]


async def test_a_forty_turn_session_on_an_8k_context_keeps_a_fact_from_turn_1(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.default = summariser()
    conversation: str | None = None
    every: list[Event] = []
    for index in range(40):
        agent = make_agent(backend, store, workspace, Settings(model=MODEL, num_ctx=8192))
        text = FACT if index == 0 else f"Question {index} : {FILLER * 3}"
        events = await turn(agent, text, conversation)
        conversation = agent.last_conversation
        every += events

    summaries = [body for body in ollama.chat_requests if is_summary_call(body)]
    assert len(summaries) >= 3
    # each summary after the first builds on the one before
    assert all("Summary so far:" in body["messages"][1]["content"] for body in summaries[1:])
    last = [body for body in ollama.chat_requests if not is_summary_call(body)][-1]
    assert "Debian 12, port 8443" in last["messages"][1]["content"] or any(
        "Debian 12, port 8443" in m["content"] for m in last["messages"] if m["role"] == "system"
    )
    assert FACT not in [m["content"] for m in last["messages"] if m["role"] == "user"]
    # nothing was dropped silently: compaction made the room each time
    assert not [e for e in every if isinstance(e, Notice) and "pas été envoyé" in e.message]
    assert len([e for e in every if isinstance(e, Compacted)]) == len(summaries)
    stored = store.messages(conversation or "")
    assert sum(m.role == "user" for m in stored) == 40
    assert next(m.content for m in stored if m.role == "user") == FACT


async def test_large_old_tool_results_shrink_before_anything_is_summarised(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    conversation = store.create("Lecture")
    call = CallRecord("call_1", "read_file", {"path": "big.log"})
    store.append(conversation, ChatMessage("user", "Lis big.log"))
    store.append(conversation, ChatMessage("assistant", "", tool_calls=(call,)))
    big = "ligne de journal sans intérêt particulier\n" * 700
    store.append(
        conversation,
        ChatMessage("tool", big, tool_call_id="call_1", tool_name="read_file"),
    )
    store.append(conversation, ChatMessage("assistant", "Le journal ne montre aucune erreur."))
    ollama.script(Reply.text("Oui."))
    agent = make_agent(backend, store, workspace, Settings(model=MODEL, num_ctx=8192))
    events = await turn(agent, "Merci, autre chose ?", conversation)

    (request,) = ollama.chat_requests  # no summary call
    (tool,) = [m for m in request["messages"] if m["role"] == "tool"]
    assert len(tool["content"]) < 2_000
    assert "more characters of this old tool result are not shown" in tool["content"]
    assert "".join(e.text for e in events if isinstance(e, Token)) == "Oui."
    # the stored result is whole
    stored_tool = next(m for m in store.messages(conversation) if m.role == "tool")
    assert stored_tool.content == big


async def test_a_failed_summary_is_said_and_the_turn_still_answers(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    conversation = stored_conversation(store, 30)  # past the whole window
    ollama.script(Reply.http_error(500, "model runner crashed"), Reply.text("Réponse."))
    agent = make_agent(backend, store, workspace, Settings(model=MODEL, num_ctx=8192))
    events = await turn(agent, "Alors ?", conversation)

    assert "".join(e.text for e in events if isinstance(e, Token)) == "Réponse."
    said = [e.message for e in events if isinstance(e, Notice)]
    assert any(m.startswith("Le résumé des échanges précédents a échoué") for m in said)
    assert any("pas été envoyés au modèle" in m for m in said)  # the old way, said
    assert not [m for m in store.messages(conversation) if m.role == "system"]


async def test_the_next_turn_reuses_the_stored_summary_without_a_new_call(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    conversation = stored_conversation(store, 16)
    ollama.default = summariser("Toujours là.")
    settings = Settings(model=MODEL, num_ctx=8192)
    await turn(make_agent(backend, store, workspace, settings), "Où en est-on ?", conversation)
    await turn(make_agent(backend, store, workspace, settings), "Et le port ?", conversation)

    requests = ollama.chat_requests
    assert [is_summary_call(body) for body in requests] == [True, False, False]
    systems = [m["content"] for m in requests[2]["messages"] if m["role"] == "system"]
    assert systems[-1].startswith(SUMMARY_HEADER)
    assert "Debian 12, port 8443" in systems[-1]
    assert FACT not in contents(requests[2])
