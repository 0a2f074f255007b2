"""Screenshots of the conversations page of the docs (issue 31), offscreen:

    .venv/bin/python packaging/screenshot_conversations.py [--out docs]

    conversations-sidebar.png   the sidebar grouped by workspace folder, two pinned
    conversations-branches.png  a conversation with a regenerated answer and an edited
                                message: the "‹ 2/2 ›" arrows, Modifier, Régénérer

The conversations are written straight into a private history (no model is asked); the
window is the real one, over the scripted Ollama server, on Qt's offscreen platform.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def seed(home: Path) -> str:
    """Conversations in three project folders (two pinned); returns the branched one."""
    from loki_desktop.core.message_meta import MessageMeta
    from loki_desktop.core.messages import ChatMessage
    from loki_desktop.persistence.history import History

    store = History(home / "history.db")
    listed = [
        ("Écrire les tests du parseur", "parseur-csv", False),
        ("Pourquoi la ligne 42 plante", "parseur-csv", True),
        ("Page d'accueil du site", "site-vitrine", False),
        ("Formulaire de contact", "site-vitrine", False),
        ("Rapport trimestriel", "ventes", True),
        ("Idées de noms", None, False),
    ]
    for title, folder, pinned in listed:
        conversation = store.create(title, str(home / folder) if folder else None)
        store.append(conversation, ChatMessage("user", title))
        store.append(conversation, ChatMessage("assistant", "…"))
        store.set_pinned(conversation, pinned)
    branched = store.create("Trier un CSV par date", str(home / "parseur-csv"))
    question = ChatMessage("user", "Comment trier un CSV par date en Python ?", turn=1)
    store.append(branched, question)
    first = store.messages(branched)[0]
    store.append(
        branched,
        ChatMessage(
            "assistant",
            "Avec `csv` et `sorted` :\n\n```python\nrows.sort(key=lambda r: r['date'])\n```",
            meta=MessageMeta(model="qwen2.5-coder:7b"),
            turn=1,
        ),
    )
    store.rewind(branched, first.id)
    store.append(
        branched,
        ChatMessage(
            "assistant",
            "Avec pandas, en une ligne :\n\n```python\ndf.sort_values('date')\n```",
            meta=MessageMeta(model="llama3.1:8b"),
            turn=2,
        ),
    )
    store.append(branched, ChatMessage("user", "Et en ordre décroissant ?", turn=3))
    follow = store.messages(branched)[-1]
    store.append(branched, ChatMessage("assistant", "`ascending=False`.", turn=3))
    store.rewind(branched, store.messages(branched)[1].id)
    store.append(branched, ChatMessage("user", "Et sans pandas, décroissant ?", turn=4))
    store.append(branched, ChatMessage("assistant", "`reverse=True` dans `sorted`.", turn=4))
    assert follow.id is not None
    store.close()
    return branched


async def shoot(out: Path, home: Path, branched: str) -> None:
    from loki_desktop.app import build_services
    from loki_desktop.ui.runtime import Runtime
    from loki_desktop.ui.theme import Theme
    from loki_desktop.ui.window.main_window import MainWindow
    from tests.fakes.ollama_server import FakeOllama

    with FakeOllama() as server:
        services = build_services()
        settings = services.settings.load()
        settings.host = server.url
        settings.workspace = str(home / "parseur-csv")
        services.settings.save(settings)
        runtime = Runtime(services)
        window = MainWindow(runtime, Theme("light"))
        window.resize(1180, 760)
        window.show()
        await window.start()
        window.sessions.open_conversation(branched)
        for _ in range(20):  # layout and the deferred Markdown of the answers
            await asyncio.sleep(0.05)
        window.grab().save(str(out / "conversations-branches.png"))
        window.conversations.grab().save(str(out / "conversations-sidebar.png"))
        await window.shutdown()
        window.keep_in_tray = False
        window.close()
        await runtime.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="loki-conv-shots-") as folder:
        home = Path(folder) / "home"
        home.mkdir()
        os.environ["LOKI_HOME"] = str(home)
        for name in ("parseur-csv", "site-vitrine", "ventes"):
            (home / name).mkdir()
        branched = seed(home)

        import qasync
        from PySide6.QtWidgets import QApplication

        app = QApplication(sys.argv[:1])
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            runner.run(shoot(args.out, home, branched))
    print(args.out / "conversations-branches.png")
    print(args.out / "conversations-sidebar.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
