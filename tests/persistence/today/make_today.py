"""Writes today's databases (history schema 3, checkpoints index before branches) as SQL dumps.

Run once at commit 2b253d8 (before branches), from the repository root:
    .venv/bin/python -m tests.persistence.today.make_today
Three real turns through the real agent, the real ollama client and the scripted server:
turn 1 writes a.txt, turn 2 edits it and writes b.txt, turn 3 only answers. The dumps, the
blobs and the workspace as the turns left it are what the migration tests start from.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import tempfile
from pathlib import Path

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.checkpoints import CheckpointFolder
from loki_desktop.persistence.history import History
from tests.fakes.ollama_server import FakeOllama, Reply

HERE = Path(__file__).resolve().parent


async def _turns(server: FakeOllama, root: Path) -> None:
    workspace = root / "workspace"
    workspace.mkdir()
    (workspace / "a.txt").write_text("avant\n")
    store = History(root / "history.db")
    points = CheckpointFolder(root / "checkpoints")
    backend = OllamaBackend(server.url)
    server.script(
        Reply.tool("write_file", {"path": "a.txt", "content": "tour 1\n"}),
        Reply.text("J'ai écrit a.txt."),
        Reply.tools(
            ("edit_file", {"path": "a.txt", "old_text": "tour 1", "new_text": "tour 2"}),
            ("write_file", {"path": "b.txt", "content": "nouveau\n"}),
        ),
        Reply.thinks(["Je ", "réfléchis."], "Fait, a.txt et b.txt."),
        Reply.text("Rien d'autre à faire."),
    )
    session = None
    for text in ("Écris a.txt", "Change a.txt et crée b.txt", "Merci"):
        agent = build_agent(
            settings=Settings(),
            backend=backend,
            store=store,
            workspace=workspace,
            approver=FixedApprover(False),
            options=TurnOptions(skills=False, model="qwen2.5-coder:7b"),
            checkpoints=points,
        )
        async for event in agent.run_turn(text, session):
            session = getattr(event, "session", None) or session
    await backend.close()
    store.close()
    points.close()


def main() -> None:
    with FakeOllama() as server, tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        asyncio.run(_turns(server, root))
        for name, db in (
            ("history.sql", root / "history.db"),
            ("checkpoints.sql", root / "checkpoints" / "index.db"),
        ):
            raw = sqlite3.connect(db)
            version = raw.execute("PRAGMA user_version").fetchone()[0]
            dump = "\n".join(raw.iterdump())
            (HERE / name).write_text(f"PRAGMA user_version = {version};\n{dump}\n")
            raw.close()
        for target in ("blobs", "workspace"):
            shutil.rmtree(HERE / target, ignore_errors=True)
        shutil.copytree(root / "checkpoints" / "blobs", HERE / "blobs")
        shutil.copytree(root / "workspace", HERE / "workspace")


if __name__ == "__main__":
    main()
