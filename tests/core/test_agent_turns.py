"""What a turn records: parsed call arguments, answered calls after a Stop, cut answers."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.events import Done, Event, Notice, ToolCall, ToolResult
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

INTERRUPTED = "Error: interrupted by the user; the tool did not finish."


async def test_arguments_sent_as_a_json_string_are_recorded_parsed(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hello")
    ollama.script(
        Reply.tool("read_file", '{"path": "a.txt"}'),
        Reply.tool("read_file", '{"path": '),  # not JSON at all: kept as the model sent it
        Reply.text("ok"),
    )
    events = await turn(make_agent(backend, store, workspace, skills=False), "lis a.txt")

    calls = [event for event in events if isinstance(event, ToolCall)]
    assert [call.args for call in calls] == [{"path": "a.txt"}, {"raw": '{"path": '}]
    results = [event for event in events if isinstance(event, ToolResult)]
    assert [result.ok for result in results] == [True, False]
    assert "not valid JSON" in results[1].output
    session = events[-1].session
    assert session is not None
    stored = [m.tool_calls[0].args for m in store.messages(session) if m.tool_calls]
    assert stored == [{"path": "a.txt"}, {"raw": '{"path": '}]
    sent = ollama.chat_requests[1]["messages"]
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == {"path": "a.txt"}


class WaitingApprover:
    """Never answers: the user has not clicked yet when Stop comes."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def approve_shell(self, command: str, cwd: Path) -> bool:
        self.asked.set()
        await asyncio.Event().wait()
        return False


async def test_stopping_during_a_tool_call_stores_a_result_for_it(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    approver = WaitingApprover()
    agent = build_agent(
        settings=Settings(),
        backend=backend,
        store=store,
        workspace=workspace,
        approver=approver,
        options=TurnOptions(skills=False),
    )
    ollama.script(Reply.tool("run_shell", {"command": "ls"}), Reply.text("Bonjour"))
    conversation = store.create("c")

    async def drain() -> None:
        async with contextlib.aclosing(agent.run_turn("liste", conversation)) as stream:
            async for _event in stream:
                pass

    task = asyncio.create_task(drain())
    await asyncio.wait_for(approver.asked.wait(), 10)
    task.cancel()  # the Stop button
    with contextlib.suppress(asyncio.CancelledError):
        await task

    stored = store.messages(conversation)
    assert [(m.role, m.content) for m in stored] == [
        ("user", "liste"),
        ("assistant", ""),
        ("tool", INTERRUPTED),
    ]
    call_id = stored[1].tool_calls[0].id
    assert (stored[2].tool_call_id, stored[2].tool_name) == (call_id, "run_shell")
    assert stored[2].meta.ok is False

    await turn(agent, "bonjour", conversation)
    sent = ollama.chat_requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user"]
    assert sent[3]["content"] == INTERRUPTED


async def test_an_answer_stopped_by_the_length_limit_is_marked_cut_with_a_notice(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Voici le début", done_reason="length"))
    events = await turn(make_agent(backend, store, workspace, skills=False), "raconte")

    notices = [event.message for event in events if isinstance(event, Notice)]
    assert len(notices) == 1
    assert "limite de longueur" in notices[0]
    done = events[-1]
    assert isinstance(done, Done)
    assert done.session is not None
    answer = store.messages(done.session)[-1]
    assert (answer.content, answer.cut) == ("Voici le début", True)


async def test_a_conversation_the_agent_creates_records_its_workspace(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("ok"))
    events: list[Event] = await turn(make_agent(backend, store, workspace, skills=False), "hé")

    [info] = store.list_conversations()
    assert info.id == events[-1].session  # type: ignore[union-attr]
    assert info.workspace == str(workspace.resolve())
