"""Issue 16 in one process: turn lock timeout, calls left without a result by a crash,
cut answers sent back, oversized results."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.events import Done, Error, Notice
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply


async def test_a_turn_gives_up_with_a_sentence_when_the_conversation_stays_busy(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    ollama.script(Reply.text("Prêt."))
    agent = make_agent(backend, store, workspace, skills=False)
    session = (await turn(agent, "Bonjour"))[-1].session
    assert session is not None
    other = History(tmp_path / "history.db")  # another window on the same file
    held = other.lock_turn(session)
    assert held is not None
    agent.config.turn_wait_s = 0.3
    events = await turn(agent, "Et alors ?", session)
    assert isinstance(events[0], Notice)
    assert isinstance(events[-2], Error)
    assert "Un autre tour occupe cette conversation" in events[-2].message
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "error"
    assert len(ollama.chat_requests) == 1  # nothing sent
    assert len(store.messages(session)) == 2  # nothing stored
    held.release()
    ollama.script(Reply.text("Voilà."))
    events = await turn(agent, "Et alors ?", session)
    assert not any(isinstance(event, Notice) for event in events)
    assert [m.content for m in store.messages(session)][2:] == ["Et alors ?", "Voilà."]
    other.close()
