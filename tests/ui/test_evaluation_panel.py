"""Réglages → Intelligence → "Évaluer ce modèle": runs the suite on the current model, keeps
the results where `eval` keeps them, and can be stopped."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt

from loki_desktop.core.evaluation.suite_basic import basic_suite
from loki_desktop.core.services import Services
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


async def test_evaluate_this_model_runs_and_keeps_the_results(
    services: Services, qtbot: Any
) -> None:
    with FakeOllama() as server:
        # the model writes hello.txt right, then answers (harness on, then off); with the
        # harness on, the self-review reads the answer once (core.evaluation.variants)
        hello = Reply.tool("write_file", {"path": "hello.txt", "content": "Bonjour le monde\n"})
        server.script(hello, Reply.text("Fait."), Reply.text("OK"), hello, Reply.text("Fait."))
        async with open_window(services, qtbot, server.url) as window:
            dialog = window.settings_opener.open()
            dialog.show_page("intelligence")
            panel = dialog.intelligence.evaluation
            assert panel.last.text() == "Pas encore d'évaluation."
            panel.suite = basic_suite()[:1]
            qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
            await wait_until(lambda: panel.progress.text() == "Terminé.", 60)
            assert [(r.task, r.harness, r.passed) for r in panel.results] == [
                ("file-hello", "on", True),
                ("file-hello", "off", True),
            ]
            assert "Harnais on : 1/1" in panel.last.text()
            kept = json.loads((services.data_home / "eval" / "last.json").read_text())
            assert [r["harness"] for r in kept["results"]] == ["on", "off"]
            dialog.reject()


async def test_evaluation_can_be_stopped(services: Services, qtbot: Any) -> None:
    with FakeOllama(default=Reply.text("lent", token_delay=0.5)) as server:
        async with open_window(services, qtbot, server.url) as window:
            dialog = window.settings_opener.open()
            panel = dialog.intelligence.evaluation
            qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
            assert panel.running
            assert panel.run_button.text() == "Arrêter"
            qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
            await wait_until(lambda: not panel.running)
            assert "Arrêtée" in panel.progress.text()
            assert not (services.data_home / "eval" / "last.json").exists()
            dialog.reject()
