"""Issue 16 in one process: turn lock timeout, calls left without a result by a crash,
cut answers sent back, oversized results."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from loki_desktop.core.events import CutArgument, Done, Error, Notice, ToolCall, event_to_json
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.messages import CUT_MARKER, CallRecord, ChatMessage
from loki_desktop.core.settings import Settings
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


async def test_calls_without_a_result_get_one_in_place_when_the_conversation_loads(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    session = store.create("t")
    a, b, c = (CallRecord(f"call_{n}", "read_file", {"path": f"{n}.txt"}) for n in "abc")
    # an old conversation (written before the fix): call c was never answered, then it went on
    store.append(session, ChatMessage("user", "lis c"))
    store.append(session, ChatMessage("assistant", "", tool_calls=(c,)))
    store.append(session, ChatMessage("user", "et a et b ?"))
    # then a crash in the middle of a round: a answered, b not
    store.append(session, ChatMessage("assistant", "", tool_calls=(a, b)))
    store.append(session, ChatMessage("tool", "A", tool_call_id="call_a", tool_name="read_file"))
    ollama.script(Reply.text("Voilà."))
    events = await turn(make_agent(backend, store, workspace, skills=False), "suite", session)
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"

    sent = [m for m in ollama.chat_requests[0]["messages"] if m["role"] != "system"]
    assert [m["role"] for m in sent] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
    ]
    assert "interrupted" in sent[2]["content"]
    assert sent[5]["content"] == "A"
    assert "interrupted" in sent[6]["content"]
    # the one at the end is stored (the window shows it); the old one is only patched
    stored = store.messages(session)
    assert [(m.role, m.tool_call_id) for m in stored][4:7] == [
        ("tool", "call_a"),
        ("tool", "call_b"),
        ("user", None),
    ]
    assert stored[5].meta.ok is False


async def test_a_stopped_answer_goes_back_to_the_model_marked_as_cut(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Il était ", "une fois", done_reason="length"), Reply.text("…un roi."))
    agent = make_agent(backend, store, workspace, skills=False)
    session = (await turn(agent, "Raconte une histoire"))[-1].session
    assert session is not None
    await turn(agent, "continue", session)

    sent = [m for m in ollama.chat_requests[1]["messages"] if m["role"] != "system"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"].startswith("Il était une fois")
    assert CUT_MARKER in sent[1]["content"]
    assert sent[2]["content"] == "continue"
    # stored and shown as it was said, still marked cut for the window
    answer = store.messages(session)[1]
    assert (answer.content, answer.cut) == ("Il était une fois", True)


async def test_a_complete_answer_carries_no_cut_marker(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Bonjour."), Reply.text("Oui."))
    agent = make_agent(backend, store, workspace, skills=False)
    session = (await turn(agent, "Salut"))[-1].session
    await turn(agent, "Ça va ?", session)
    sent = ollama.chat_requests[1]["messages"]
    assert sent[-2] == {"role": "assistant", "content": "Bonjour."}


async def test_an_oversized_result_reaches_the_model_cut_with_its_call(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "digits.txt").write_text("0123456789" * 790)  # ~7,900 tokens: one a digit
    ollama.script(Reply.tool("read_file", {"path": "digits.txt"}), Reply.text("Lu."))
    agent = make_agent(backend, store, workspace, Settings(num_ctx=4096), skills=False)
    events = await turn(agent, "Lis digits.txt")
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"
    sent = ollama.chat_requests[1]["messages"]
    assert [m["role"] for m in sent][-3:] == ["user", "assistant", "tool"]
    assert sent[-1]["content"].startswith("0123456789")
    assert "more characters cut here" in sent[-1]["content"]
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("read_file" in n and "coupés" in n for n in notices)
    # the history keeps the whole result
    stored = [m for m in store.messages(events[-1].session or "") if m.role == "tool"]
    assert stored[0].content.startswith("0123456789" * 700)


async def test_a_10_mb_write_file_is_stored_once_and_its_event_is_capped(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    content = "x = 1\n" * (10 * 1024 * 1024 // 6)
    ollama.script(
        Reply.tool("write_file", {"path": "big.py", "content": content}), Reply.text("Écrit.")
    )
    agent = make_agent(backend, store, workspace, skills=False)
    events = await turn(agent, "Écris big.py")
    assert (workspace / "big.py").read_text() == content

    [call] = [e for e in events if isinstance(e, ToolCall)]
    line = json.dumps(event_to_json(call))
    assert len(line) < 10_000
    assert call.args["path"] == "big.py"
    assert content.startswith(call.args["content"])
    assert call.cut_args == (CutArgument("content", len(content)),)
    assert json.loads(line)["cut_args"] == [{"name": "content", "chars": len(content)}]
    # stored once, whole: what the database holds is about the size of the file
    stored = store.messages(events[-1].session or "")
    assert stored[1].tool_calls[0].args["content"] == content
    db = sqlite3.connect(tmp_path / "history.db")
    held = db.execute(
        "SELECT SUM(LENGTH(content) + IFNULL(LENGTH(tool_calls), 0) + IFNULL(LENGTH(extra), 0))"
        " FROM messages"
    ).fetchone()[0]
    db.close()
    assert len(content) < held < 1.5 * len(content)
    # and the model learns its call ran: call and result are sent, the content cut
    sent = ollama.chat_requests[1]["messages"]
    assert [m["role"] for m in sent][-2:] == ["assistant", "tool"]
    sent_content = sent[-2]["tool_calls"][0]["function"]["arguments"]["content"]
    assert "more characters cut here" in sent_content
