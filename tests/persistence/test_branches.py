"""Branches: today's databases migrate with every undo valid; edits and regenerations branch."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.branches import BranchBusy, sibling, switch_branch
from loki_desktop.core.changes.note import apply_and_note
from loki_desktop.core.changes.undo import pick_turn, plan
from loki_desktop.core.events import Done, Error, Notice, Token
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import NotInConversation
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.checkpoints import CheckpointFolder
from loki_desktop.persistence.history import SCHEMA_VERSION, History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

TODAY = Path(__file__).parent / "today"  # written by make_today.py before branches existed
CONVERSATION = "658ffa9f4b50"


@pytest.fixture
def today(tmp_path: Path) -> Path:
    """Copies of today's history.db, checkpoints and workspace (as its three turns left it)."""
    root = tmp_path / "today"
    root.mkdir()
    shutil.copytree(TODAY / "workspace", root / "workspace")
    (root / "checkpoints").mkdir()
    shutil.copytree(TODAY / "blobs", root / "checkpoints" / "blobs")
    for dump, db in (("history.sql", "history.db"), ("checkpoints.sql", "checkpoints/index.db")):
        raw = sqlite3.connect(root / db)
        raw.executescript((TODAY / dump).read_text())
        raw.close()
    raw = sqlite3.connect(root / "checkpoints" / "index.db")
    raw.execute("UPDATE turns SET workspace = ?", (str(root / "workspace"),))
    raw.commit()
    raw.close()
    return root


def test_todays_history_migrates_to_one_branch_with_its_turns_as_the_checkpoints_know_them(
    today: Path,
) -> None:
    raw = sqlite3.connect(today / "history.db")
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 3
    raw.close()

    history = History(today / "history.db")
    path = history.messages(CONVERSATION)

    assert [m.id for m in path] == list(range(1, 12))
    persons = [(m.content, m.turn) for m in path if m.role == "user"]
    assert persons == [("Écris a.txt", 1), ("Change a.txt et crée b.txt", 2), ("Merci", 3)]
    # every message of a turn carries its number (the answer, its calls and results)
    assert [m.turn for m in path] == [1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3]
    assert history.last_turn(CONVERSATION) == 3
    assert history.branches(CONVERSATION) == {}
    assert [m.id for m in history.page(CONVERSATION, 3, before_id=9)] == [6, 7, 8]
    history.close()
    raw = sqlite3.connect(today / "history.db")
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    raw.close()


def test_an_undo_recorded_before_branches_still_undoes_its_turn_after_the_migration(
    today: Path,
) -> None:
    history = History(today / "history.db")
    points = CheckpointFolder(today / "checkpoints")
    workspace = today / "workspace"
    assert (workspace / "a.txt").read_text() == "tour 2\n"

    undo = plan(pick_turn(points, CONVERSATION, 2, "undo"), "undo")
    report, noted = apply_and_note(points, history, undo)

    assert report.complete
    assert noted
    assert (workspace / "a.txt").read_text() == "tour 1\n"
    assert not (workspace / "b.txt").exists()
    # turn 2 of the checkpoints is the message the migration numbered 2
    (second,) = [m for m in history.messages(CONVERSATION) if m.role == "user" and m.turn == 2]
    assert second.content == "Change a.txt et crée b.txt"
    undo = plan(pick_turn(points, CONVERSATION, 1, "undo"), "undo")
    assert apply_and_note(points, history, undo)[0].complete
    assert (workspace / "a.txt").read_text() == "avant\n"
    points.close()
    history.close()


async def test_an_edit_of_todays_second_message_branches_and_says_which_files_it_left(
    today: Path, ollama: FakeOllama, backend: OllamaBackend
) -> None:
    history = History(today / "history.db")
    points = CheckpointFolder(today / "checkpoints")
    agent = build_agent(
        settings=Settings(),
        backend=backend,
        store=history,
        workspace=today / "workspace",
        approver=FixedApprover(False),
        options=TurnOptions(skills=False),
        checkpoints=points,
    )
    ollama.script(
        Reply.tool("write_file", {"path": "c.txt", "content": "c\n"}), Reply.text("c.txt écrit.")
    )

    events = [e async for e in agent.edit_and_resend(CONVERSATION, 5, "Crée plutôt c.txt")]

    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("a.txt, b.txt" in n and "(tour 2)" in n for n in notices), notices
    path = history.messages(CONVERSATION)
    assert [m.content for m in path if m.role == "user"] == ["Écris a.txt", "Crée plutôt c.txt"]
    edited = next(m for m in path if m.content == "Crée plutôt c.txt")
    assert edited.turn == 4  # a new number: the old turn 2 keeps its checkpoint
    assert history.branches(CONVERSATION)[edited.id].label == "2/2"
    assert [t.turn for t in points.turns(CONVERSATION)] == [1, 2, 4]
    # the first request of the new turn carried the first turn only, then the edit
    sent = [m["content"] for m in ollama.chat_requests[0]["messages"] if m["role"] == "user"]
    assert sent == ["Écris a.txt", "Crée plutôt c.txt"]

    switch_branch(history, CONVERSATION, sibling(history, CONVERSATION, edited.id, -1))
    old = history.messages(CONVERSATION)
    assert [m.id for m in old] == list(range(1, 12))  # all of the old branch, down to its end
    assert history.branches(CONVERSATION)[5].label == "1/2"
    points.close()
    history.close()


async def test_regenerate_makes_a_sibling_answer_with_another_model(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Première."), Reply.text("Deuxième."))
    first = await turn(make_agent(backend, store, workspace, model="qwen2.5-coder:7b"), "Salut")
    conversation = first[-1].session
    assert conversation is not None
    again = make_agent(backend, store, workspace, model="llama3.1:8b")

    events = [e async for e in again.regenerate(conversation)]

    assert [e.text for e in events if isinstance(e, Token)] == ["Deuxième."]
    assert ollama.chat_requests[-1]["model"] == "llama3.1:8b"
    sent = [m["content"] for m in ollama.chat_requests[-1]["messages"] if m["role"] != "system"]
    assert sent == ["Salut"]  # the earlier answer is not shown to the model
    _user, answer = store.messages(conversation)
    assert (answer.content, answer.meta.model, answer.turn) == ("Deuxième.", "llama3.1:8b", 2)
    versions = store.branches(conversation)[answer.id]
    assert versions.label == "2/2"
    store.switch_branch(conversation, versions.ids[0])
    assert [m.content for m in store.messages(conversation)] == ["Salut", "Première."]
    assert store.messages(conversation)[1].meta.model == "qwen2.5-coder:7b"


async def test_regenerate_of_a_message_that_is_not_the_persons_is_one_sentence(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Réponse."))
    first = await turn(make_agent(backend, store, workspace), "Salut")
    conversation = first[-1].session
    assert conversation is not None
    answer = store.messages(conversation)[-1]

    events = [
        e async for e in make_agent(backend, store, workspace).regenerate(conversation, answer.id)
    ]

    assert isinstance(events[0], Error)
    assert "pas l'un des vôtres" in events[0].message
    assert [m.content for m in store.messages(conversation)] == ["Salut", "Réponse."]
    assert store.branches(conversation) == {}


def test_editing_the_first_message_branches_from_the_start(store: History) -> None:
    conversation = store.create("c")
    store.append(conversation, ChatMessage("user", "un", turn=1))
    store.append(conversation, ChatMessage("assistant", "réponse", turn=1))
    store.rewind(conversation, None)
    store.append(conversation, ChatMessage("user", "un bis", turn=2))

    assert [m.content for m in store.messages(conversation)] == ["un bis"]
    (first,) = store.messages(conversation)
    assert store.branches(conversation)[first.id].label == "2/2"
    assert first.id is not None
    store.switch_branch(conversation, sibling(store, conversation, first.id, -1))
    assert [m.content for m in store.messages(conversation)] == ["un", "réponse"]


def test_a_branch_switch_during_a_running_turn_is_refused_and_changes_nothing(
    store: History,
) -> None:
    conversation = store.create("c")
    store.append(conversation, ChatMessage("user", "un"))
    store.rewind(conversation, None)
    store.append(conversation, ChatMessage("user", "deux"))
    held = store.lock_turn(conversation)  # a turn runs (in this process or another)
    assert held is not None

    with pytest.raises(BranchBusy, match="attendez qu'elle se termine"):
        switch_branch(store, conversation, store.branches(conversation)[3 - 1].ids[0])

    assert [m.content for m in store.messages(conversation)] == ["deux"]
    held.release()


def test_a_message_of_another_conversation_is_refused(store: History) -> None:
    one, two = store.create("un"), store.create("deux")
    store.append(one, ChatMessage("user", "dans un"))
    (message,) = store.messages(one)
    assert message.id is not None

    with pytest.raises(NotInConversation, match="n'est pas dans la conversation"):
        store.switch_branch(two, message.id)
    with pytest.raises(NotInConversation):
        store.rewind(two, message.id)
