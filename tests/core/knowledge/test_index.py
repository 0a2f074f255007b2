"""The workspace's index: what is read, kept up to date, searched, and the search tool."""

from __future__ import annotations

import os
from pathlib import Path

from loki_desktop.core.events import Recalled, event_to_json
from loki_desktop.core.knowledge.files import scan
from loki_desktop.core.knowledge.index import Knowledge, KnowledgeTools
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.persistence.history import History
from loki_desktop.persistence.workspace_index import IndexFile
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF showing `text` (Helvetica), with a correct cross-reference table."""
    stream = b"BT /F1 12 Tf 72 720 Td (" + text.encode("latin-1") + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def _workspace(root: Path) -> Path:
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "maison.md").write_text(
        "# Maison\n\nLa chaudière est révisée en octobre.\n\n"
        "Le mot de passe du wifi invité est collé sous la box.\n",
        encoding="utf-8",
    )
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def main():\n    return 'srv-prod-03.lan'\n")
    (root / "doc.pdf").write_bytes(minimal_pdf("Le code du portail est dans le tiroir"))
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("généré : le mot de passe du wifi")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "debug.log").write_text("wifi wifi wifi")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("wifi")
    (root / "image.bin").write_bytes(b"\x89PNG\x00\x00wifi")
    with (root / "huge.txt").open("wb") as big:  # 200 MB, sparse: never read
        big.truncate(200 * 1024 * 1024)
    os.symlink("/etc/passwd", root / "outside.txt")
    return root


def _knowledge(root: Path, index: Path) -> Knowledge:
    return Knowledge(root, lambda: IndexFile(index), EmbedderChoice(None, fallback=lambda: None))


def test_scan_follows_gitignore_and_skips_hidden_folders_and_links(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    found = {state.path for state in scan(root)}
    assert found == {"notes/maison.md", "src/app.py", "doc.pdf", "image.bin", "huge.txt"}


async def test_index_search_and_updates(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    index = tmp_path / "home" / "index.db"
    knowledge = _knowledge(root, index)
    assert await knowledge.update() == 5
    hits = await knowledge.search("où ai-je noté le mot de passe du wifi ?")
    assert hits[0].path == "notes/maison.md"
    assert hits[0].line == 1
    assert "collé sous la box" in hits[0].text
    assert [h.path for h in await knowledge.search("portail")] == ["doc.pdf"]
    assert [h.path for h in await knowledge.search("srv-prod-03.lan")] == ["src/app.py"]
    store = await knowledge.store()
    assert {p for p in store.files()} >= {"image.bin", "huge.txt"}  # known, no passage
    assert not list(root.glob("**/*.db"))  # the index lives outside the workspace

    assert await knowledge.update() == 0  # nothing changed: nothing read
    (root / "notes" / "maison.md").write_text("Le wifi a un nouveau code, dans le carnet.\n")
    os.utime(root / "notes" / "maison.md", (1, 1))
    (root / "src" / "app.py").unlink()  # deleted since it was indexed
    assert await knowledge.update() == 1
    assert "carnet" in (await knowledge.search("code du wifi"))[0].text
    assert await knowledge.search("srv-prod-03.lan") == []
    await knowledge.aclose()


async def test_a_corrupt_index_is_rebuilt(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    index = tmp_path / "index.db"
    index.write_bytes(b"garbage" * 500)
    knowledge = _knowledge(root, index)
    assert await knowledge.update() == 5
    assert any("illisible" in notice for notice in knowledge.notices)
    assert (await knowledge.search("portail"))[0].path == "doc.pdf"
    await knowledge.aclose()


async def test_the_tool_gives_passages_with_file_and_line(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    tools = KnowledgeTools(_knowledge(root, tmp_path / "index.db"))
    assert await tools.prepare() == []
    assert [spec.name for spec in tools.specs()] == ["search_workspace"]
    outcome = await tools.call("search_workspace", {"query": "chaudière"})
    assert outcome.ok
    assert outcome.output.startswith("notes/maison.md:1:")
    empty = await tools.call("search_workspace", {"query": "zzzz introuvable"})
    assert empty.ok
    assert empty.output == "No passage found."
    await tools.aclose()


async def test_a_message_about_the_files_gets_the_best_passages(
    ollama: FakeOllama, backend: OllamaBackend, store: History, tmp_path: Path
) -> None:
    root = _workspace(tmp_path / "ws")
    tools = KnowledgeTools(_knowledge(root, tmp_path / "index.db"))
    ollama.script(Reply.text("Sous la box."), Reply.text("Bonjour !"))
    agent = make_agent(backend, store, root, knowledge=tools)
    events = await turn(agent, "Où ai-je noté le mot de passe du wifi ?")
    recalled = [e for e in events if isinstance(e, Recalled)]
    assert recalled[0].items[0].path == "notes/maison.md"
    assert event_to_json(recalled[0])["items"][0]["line"] == 1
    system = "\n".join(
        m["content"] for m in ollama.chat_requests[0]["messages"] if m["role"] == "system"
    )
    assert "notes/maison.md:1:" in system
    plain = await turn(make_agent(backend, store, root, knowledge=tools), "Bonjour")
    assert not any(isinstance(e, Recalled) for e in plain)  # not about the files
    await tools.aclose()


async def test_fed_by_the_watcher_an_update_reads_only_the_reported_paths(
    tmp_path: Path,
) -> None:
    from loki_desktop.core.checks.registry import Checkers
    from loki_desktop.core.watch import WorkspaceWatcher
    from tests.ui.helpers import wait_until

    root = _workspace(tmp_path / "ws")
    knowledge = _knowledge(root, tmp_path / "index.db")
    assert await knowledge.update() == 5  # walked in full once
    reported: list[Path] = []

    def changed(path: Path) -> None:
        reported.append(path)
        knowledge.changed(path)

    watcher = WorkspaceWatcher(root, Checkers(), lambda _p, _r: None, on_change=changed)
    await watcher.start()
    knowledge.fed = True
    try:
        (root / "notes" / "neuf.md").write_text("Le digicode de la cave est 4821.\n")
        (root / "notes" / "vieux.log").write_text("digicode ignoré")  # .gitignore: *.log
        (root / "src" / "app.py").unlink()
        await wait_until(
            lambda: {p.name for p in reported} >= {"neuf.md", "vieux.log", "app.py"},
            what="the watcher's reports",
        )
    finally:
        await watcher.stop()
    assert await knowledge.update() == 1  # only the new note was read
    assert [h.path for h in await knowledge.search("digicode")] == ["notes/neuf.md"]
    assert await knowledge.search("srv-prod-03.lan") == []
    await knowledge.aclose()
