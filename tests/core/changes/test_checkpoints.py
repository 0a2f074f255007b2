"""Checkpoints through real turns: the scripted server, the real client, real files, SQLite."""

from __future__ import annotations

import hashlib
from pathlib import Path

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.changes.counts import summarize
from loki_desktop.core.changes.note import apply_and_note
from loki_desktop.core.changes.undo import pick_turn, plan
from loki_desktop.core.events import Notice
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.checkpoints import CheckpointFolder
from loki_desktop.persistence.history import History
from tests.agent_rig import turn
from tests.fakes.ollama_server import FakeOllama, Reply


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def agent_for(backend: OllamaBackend, store: History, workspace: Path, points: CheckpointFolder):
    return build_agent(
        settings=Settings(),
        backend=backend,
        store=store,
        workspace=workspace,
        approver=FixedApprover(False),
        options=TurnOptions(skills=False),
        checkpoints=points,
    )


async def test_a_turn_is_undone_byte_for_byte_and_redone(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    (workspace / "b.txt").write_bytes(b"caf\xc3\xa9\r\nline 2\n")
    (workspace / "c.md").write_text("# Titre\n\nancien\n")
    before = {name: sha(workspace / name) for name in ("a.py", "b.txt", "c.md")}
    ollama.script(
        Reply.tools(
            ("write_file", {"path": "a.py", "content": "x = 2\ny = 3\n"}),
            ("write_file", {"path": "b.txt", "content": "tout neuf\n"}),
            ("write_file", {"path": "src/new.py", "content": "print('new')\n"}),
            ("edit_file", {"path": "c.md", "old_text": "ancien", "new_text": "nouveau"}),
        ),
        Reply.tool("write_file", {"path": "a.py", "content": "x = 4\n"}),  # twice: first kept
        Reply.text("Fait."),
    )
    points = CheckpointFolder(tmp_path / "checkpoints")
    events = await turn(agent_for(backend, store, workspace, points), "Change tout")
    session = events[-1].session
    assert session is not None
    after = {name: sha(workspace / name) for name in ("a.py", "b.txt", "c.md", "src/new.py")}

    (recorded,) = points.turns(session)
    assert recorded.turn == 1
    summary = {s.path: (s.kind, s.added, s.removed) for s in summarize(points, recorded)}
    assert summary == {
        "a.py": ("modified", 1, 1),
        "b.txt": ("modified", 1, 2),
        "src/new.py": ("added", 1, 0),
        "c.md": ("modified", 1, 1),
    }

    report, noted = apply_and_note(points, store, plan(recorded, "undo"))
    assert report.complete
    assert noted
    assert {name: sha(workspace / name) for name in before} == before
    assert not (workspace / "src" / "new.py").exists()
    note = store.messages(session)[-1]
    assert (note.role, note.origin) == ("user", "harness")
    assert "src/new.py" in note.content
    assert "a.py" in note.content
    assert note.meta.undo is not None
    assert note.meta.undo.removed == ("src/new.py",)

    undone = pick_turn(points, session, None, "redo")
    report, _noted = apply_and_note(points, store, plan(undone, "redo"))
    assert report.complete
    assert {name: sha(workspace / name) for name in after} == after
    points.close()


async def test_the_model_sees_the_undo_next_turn(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    points = CheckpointFolder(tmp_path / "checkpoints")
    ollama.script(Reply.tool("write_file", {"path": "n.txt", "content": "1"}), Reply.text("ok"))
    events = await turn(agent_for(backend, store, workspace, points), "Écris")
    session = events[-1].session
    assert session is not None
    apply_and_note(points, store, plan(pick_turn(points, session, None, "undo"), "undo"))
    ollama.script(Reply.text("Compris."))
    await turn(agent_for(backend, store, workspace, points), "Et maintenant ?", session)
    sent = ollama.chat_requests[-1]["messages"]
    notes = [m["content"] for m in sent if "undid the file changes of turn 1" in m["content"]]
    assert notes
    assert "n.txt" in notes[0]
    points.close()


def test_checkpoints_survive_a_new_store_on_the_same_folder(
    workspace: Path, tmp_path: Path, store: History
) -> None:
    from loki_desktop.core.changes.recorder import ChangeRecorder
    from loki_desktop.core.tools.jail import Workspace

    (workspace / "f.txt").write_text("old\n")
    points = CheckpointFolder(tmp_path / "checkpoints")
    recorder = ChangeRecorder(points, workspace, 10)
    recorder.begin("conv1", 3)
    jail = Workspace(workspace, observer=recorder)
    with jail.locate("f.txt") as entry:
        jail.write(entry, b"new\n")
    points.close()

    again = CheckpointFolder(tmp_path / "checkpoints")
    (recorded,) = again.turns("conv1")
    assert recorded.turn == 3
    (change,) = recorded.files
    assert again.read_blob(change.before or "") == b"old\n"
    report, _noted = apply_and_note(again, store, plan(recorded, "undo"))
    assert report.complete
    assert (workspace / "f.txt").read_text() == "old\n"
    again.close()


def test_identical_contents_are_stored_once_and_go_with_the_conversation(
    workspace: Path, tmp_path: Path
) -> None:
    from loki_desktop.core.changes.recorder import ChangeRecorder
    from loki_desktop.core.tools.jail import Workspace

    points = CheckpointFolder(tmp_path / "checkpoints")
    for conversation in ("one", "two"):
        recorder = ChangeRecorder(points, workspace, 10)
        recorder.begin(conversation, 1)
        jail = Workspace(workspace, observer=recorder)
        for name in ("x.txt", "y.txt"):
            (workspace / name).write_text("même contenu\n")
            with jail.locate(name) as entry:
                jail.write(entry, b"pareil\n")
    blobs = [p for p in (tmp_path / "checkpoints" / "blobs").rglob("*") if p.is_file()]
    assert len(blobs) == 2  # "même contenu" and "pareil", each once
    points.delete_conversation("one")
    assert points.turns("one") == []
    assert len(points.turns("two")) == 1
    points.delete_conversation("two")
    assert not [p for p in (tmp_path / "checkpoints" / "blobs").rglob("*") if p.is_file()]
    assert points.used_bytes() == 0
    points.close()


async def test_over_the_budget_the_oldest_turn_goes_with_a_notice(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    points = CheckpointFolder(tmp_path / "checkpoints")
    ollama.script(
        Reply.tool("write_file", {"path": "big.txt", "content": "a" * 700}), Reply.text("1")
    )
    agent = agent_for(backend, store, workspace, points)
    assert agent.changes is not None
    agent.changes.budget_bytes = 1000
    first = await turn(agent, "Un")
    session = first[-1].session
    assert not [e for e in first if isinstance(e, Notice)]
    ollama.script(
        Reply.tool("write_file", {"path": "big.txt", "content": "b" * 700}), Reply.text("2")
    )
    agent = agent_for(backend, store, workspace, points)
    assert agent.changes is not None
    agent.changes.budget_bytes = 1000
    second = await turn(agent, "Deux", session)
    notices = [e.message for e in second if isinstance(e, Notice)]
    assert any("points de restauration les plus anciens" in n for n in notices), notices
    assert [t.turn for t in points.turns(session or "")] == [2]
    points.close()
