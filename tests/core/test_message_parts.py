"""A turn with attached files, the person's instructions and the workspace's AGENTS.md."""

from __future__ import annotations

import os
from pathlib import Path

from loki_desktop.core.attachments.model import FileAttachment
from loki_desktop.core.events import Done, Notice
from loki_desktop.core.instructions import MAX_AGENTS_MD_BYTES, read_agents_md
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.room import room_for_files
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent
from tests.fakes.ollama_server import FakeOllama, Reply


def _system(request: dict[str, object]) -> str:
    messages = request["messages"]
    assert isinstance(messages, list)
    return "\n".join(m["content"] for m in messages if m["role"] == "system")


async def test_files_reach_the_model_and_the_history_keeps_their_chips(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Lu."), Reply.text("Relu."))
    agent = make_agent(backend, store, workspace, skills=False)
    notes = FileAttachment("notes.txt", 2048, "text", "acheter du pain", 15)
    events = [e async for e in agent.run_turn("Résume", None, (), [notes])]
    done = events[-1]
    assert isinstance(done, Done)
    assert done.session is not None
    sent = ollama.chat_requests[0]["messages"][-1]
    assert sent == {
        "role": "user",
        "content": 'Résume\n\n<file name="notes.txt">\nacheter du pain\n</file>',
    }
    stored = store.messages(done.session)[0]
    assert stored.meta.said == len("Résume")
    assert [(c.name, c.size, c.kind, c.cut) for c in stored.meta.files] == [
        ("notes.txt", 2048, "text", False)
    ]
    assert store.list_conversations()[0].title == "Résume"  # the words, not the file
    # a retry asks about the same message, files included, and stores no new one
    again = [e async for e in agent.retry_turn(done.session)]
    assert isinstance(again[-1], Done)
    users = [m for m in ollama.chat_requests[1]["messages"] if m["role"] == "user"]
    assert users == [sent]
    assert [m.role for m in store.messages(done.session)].count("user") == 1


async def test_personal_instructions_and_agents_md_go_into_the_system_prompt(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("# Projet\nLancez les tests avec `make test`.\n")
    ollama.script(Reply.text("ok"))
    settings = Settings(instructions="Réponds toujours en vers.")
    agent = make_agent(backend, store, workspace, settings, skills=False)
    events = [e async for e in agent.run_turn("Salut")]
    assert not [e for e in events if isinstance(e, Notice)]
    system = _system(ollama.chat_requests[0])
    assert "The user's own instructions" in system
    assert "Réponds toujours en vers." in system
    assert "The workspace's AGENTS.md" in system
    assert "Lancez les tests avec `make test`." in system


async def test_a_conversation_override_replaces_them_and_agents_md_can_be_skipped(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Règle du projet.\n")
    ollama.script(Reply.text("ok"))
    settings = Settings(instructions="Réponds toujours en vers.")
    agent = make_agent(
        backend, store, workspace, settings, skills=False, system="Sois bref.", agents_md=False
    )
    [e async for e in agent.run_turn("Salut")]
    system = _system(ollama.chat_requests[0])
    assert "Sois bref." in system
    assert "en vers" not in system
    assert "Règle du projet." not in system


async def test_a_bad_agents_md_is_left_out_with_one_sentence(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_bytes(b"R\xe8gle en latin-1\n")
    ollama.script(Reply.text("ok"))
    agent = make_agent(backend, store, workspace, skills=False)
    events = [e async for e in agent.run_turn("Salut")]
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert notices == ["AGENTS.md n'est pas écrit en UTF-8 : il est laissé de côté."]
    assert "AGENTS.md" not in _system(ollama.chat_requests[0])
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"


def test_agents_md_too_big_is_refused_and_a_change_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    assert read_agents_md(tmp_path) is None
    with path.open("wb") as out:
        out.write(b"x" * (5 * 1024 * 1024))
    big = read_agents_md(tmp_path)
    assert big is not None
    assert big.text == ""
    assert big.problem == (
        "AGENTS.md pèse 5120 Ko, plus que les 64 Ko que Loki lit : il est laissé de côté."
    )
    path.write_text("première version")
    assert read_agents_md(tmp_path).text == "première version"  # type: ignore[union-attr]
    path.write_text("seconde version, plus longue")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert read_agents_md(tmp_path).text == "seconde version, plus longue"  # type: ignore[union-attr]
    path.unlink()
    assert read_agents_md(tmp_path) is None
    assert MAX_AGENTS_MD_BYTES == 64 * 1024


async def test_the_room_for_files_follows_the_context_size(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    small = make_agent(backend, store, workspace, Settings(num_ctx=4096), skills=False)
    large = make_agent(backend, store, workspace, Settings(num_ctx=32768), skills=False)
    small_room = await room_for_files(small, "Résume")
    large_room = await room_for_files(large, "Résume")
    assert 0 < small_room < 4096 - 1024  # the answer's reserve, the prompt and the tools
    assert large_room - small_room > 20_000
