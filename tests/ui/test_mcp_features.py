"""The window and an MCP server's own requests, with a real stdio server as a process:
a form dialog filled offscreen, sampling shown as a card, roots following the workspace,
prompts from "/" and resources from "@" in the composer."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLineEdit, QListWidget

from loki_desktop.core.services import Services
from loki_desktop.ui.mcp.forms import ElicitationDialog, UrlDialog
from loki_desktop.ui.mcp.host import SamplingCard, SamplingDialog
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.mcp_servers import script
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.conftest import OFFSCREEN_NOISE
from tests.ui.helpers import open_window, wait_until

MODEL = "qwen2.5-coder:7b"
# a popup menu grabs the keyboard; the offscreen platform says it cannot (real ones can)
MENU_NOISE = pytest.mark.qt_log_ignore(
    rf"{OFFSCREEN_NOISE}|This plugin does not support grabbing the keyboard"
)


def with_features(services: Services, log: Path, **entry: Any) -> None:
    settings = services.settings.load()
    settings.model = MODEL
    server = {
        "enabled": True,
        "label": "Features",
        "command": [sys.executable, script("features")],
        "params": {"FEATURES_LOG": str(log)},
    }
    server.update(entry)
    settings.mcp_servers = {"feat": server}
    services.settings.save(settings)


async def connected(window: MainWindow) -> None:
    """The features server connected (a loaded machine may take longer than a turn waits)."""
    manager = window.runtime.mcp.manager
    await manager.warm()
    await wait_until(lambda: manager.status("feat").state == "connected", 90)


async def finished(window: MainWindow) -> None:
    await wait_until(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
    )


async def dialog_of(window: MainWindow, kind: type) -> Any:
    host = window.mcp_host
    await wait_until(lambda: isinstance(host.dialog, kind) and host.dialog.isVisible(), 60)
    return host.dialog


def tool_output(ollama: FakeOllama) -> str:
    return [m for m in ollama.chat_requests[-1]["messages"] if m["role"] == "tool"][-1]["content"]


async def test_a_server_form_becomes_a_dialog_that_checks_required_fields(
    ollama: FakeOllama, services: Services, qtbot: Any, tmp_path: Path
) -> None:
    with_features(services, tmp_path / "log")
    ollama.script(Reply.tool("mcp_feat_register", {}), Reply.text("Merci."))
    async with open_window(services, qtbot, ollama.url) as window:
        await connected(window)
        window.sessions.send("Inscris-moi")
        dialog: ElicitationDialog = await dialog_of(window, ElicitationDialog)
        assert "« Features » vous demande des informations" in dialog.windowTitle()
        name, age, colour = (dialog.inputs[k] for k in ("name", "age", "colour"))
        assert isinstance(name, QLineEdit)
        assert isinstance(age, QLineEdit)
        assert isinstance(colour, QComboBox)
        assert age.text() == "30"
        assert colour.currentData() == "green"
        assert [colour.itemText(i) for i in range(colour.count())] == ["Rouge", "Vert", "Bleu"]
        assert not dialog.submit()  # the required name is empty: the dialog stays
        assert dialog.errors["name"].isVisible()
        assert dialog.isVisible()
        window.mcp_host.dialog.grab().save(str(tmp_path / "form.png"))
        name.setText("Ada Lovelace")
        colour.setCurrentIndex(colour.findData("blue"))
        topics = dialog.inputs["topics"]
        assert isinstance(topics, QListWidget)
        topics.item(1).setCheckState(Qt.CheckState.Checked)
        dialog.accept_button.click()
        await finished(window)
    assert json.loads(tool_output(ollama)) == {
        "action": "accept",
        "content": {
            "name": "Ada Lovelace",
            "age": 30,
            "colour": "blue",
            "news": True,
            "topics": ["rust"],
        },
    }


async def test_declining_a_form_and_a_url_request(
    ollama: FakeOllama, services: Services, qtbot: Any, tmp_path: Path, opened_urls: list[str]
) -> None:
    with_features(services, tmp_path / "log")
    ollama.script(
        Reply.tool("mcp_feat_register", {}),
        Reply.tool("mcp_feat_visit", {}),
        Reply.text("Compris."),
    )
    async with open_window(services, qtbot, ollama.url) as window:
        await connected(window)
        window.sessions.send("Inscris-moi puis ouvre la page")
        form = await dialog_of(window, ElicitationDialog)
        form.decline_button.click()
        page: UrlDialog = await dialog_of(window, UrlDialog)
        assert page.url == "https://example.org/consent"
        assert opened_urls == []  # nothing opens before the person agrees
        page.accept_button.click()
        await finished(window)
    outputs = [m["content"] for m in ollama.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert json.loads(outputs[0]) == {"action": "decline", "content": None}
    assert outputs[1] == "accept"
    assert opened_urls == ["https://example.org/consent"]


async def test_sampling_is_approved_answered_by_the_local_model_and_shown_as_a_card(
    ollama: FakeOllama, services: Services, qtbot: Any, tmp_path: Path
) -> None:
    with_features(services, tmp_path / "log")
    ollama.script(
        Reply.tool("mcp_feat_summarize", {"text": "une longue histoire"}),
        Reply.text("Une histoire, en bref."),  # the sampling request
        Reply.text("Le serveur a résumé."),
    )
    async with open_window(services, qtbot, ollama.url) as window:
        await connected(window)
        window.sessions.send("Résume via le serveur")
        dialog: SamplingDialog = await dialog_of(window, SamplingDialog)
        assert "Summarize: une longue histoire" in dialog.prompt_view.toPlainText()
        dialog.always.setChecked(True)
        dialog.allow_button.click()
        await finished(window)
        card = window.mcp_host.last_card
        assert isinstance(card, SamplingCard)
        assert window.sessions.current is not None
        assert card in window.sessions.current.view.items()
        assert card.answer.text() == "Une histoire, en bref."
        assert "« Features » a demandé une réponse à qwen2.5-coder:7b" in card.title.text()
        assert "Summarize: une longue histoire" in card.prompt.text()
        card.grab().save(str(tmp_path / "card.png"))
        await wait_until(
            lambda: services.settings.load().mcp_servers["feat"].get("sampling") == "always"
        )
    assert ollama.chat_requests[1]["model"] == MODEL
    assert tool_output(ollama) == f"model {MODEL} said: Une histoire, en bref."


async def test_a_server_set_to_never_is_refused_without_asking(
    ollama: FakeOllama, services: Services, qtbot: Any, tmp_path: Path
) -> None:
    with_features(services, tmp_path / "log", sampling="never")
    ollama.script(Reply.tool("mcp_feat_summarize", {"text": "x"}), Reply.text("Tant pis."))
    async with open_window(services, qtbot, ollama.url) as window:
        await connected(window)
        window.sessions.send("Résume via le serveur")
        await finished(window)
        card = window.mcp_host.last_card
        assert card is not None
        assert not card.report.ok
        assert "jamais" in card.answer.text()
    assert len(ollama.chat_requests) == 2  # no sampling request reached the model
    assert tool_output(ollama).startswith("refused: ")


async def test_roots_follow_the_workspace(
    ollama: FakeOllama, services: Services, qtbot: Any, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    with_features(services, log)
    ollama.script(Reply.tool("mcp_feat_roots", {}), Reply.text("Vu."))
    async with open_window(services, qtbot, ollama.url) as window:
        await connected(window)
        window.workspace_picker.choose(str(first))
        window.sessions.send("Quelles racines ?")
        await finished(window)
        assert json.loads(tool_output(ollama)) == [first.resolve().as_uri()]
        window.workspace_picker.choose(str(second))
        await wait_until(lambda: log.exists() and second.name in log.read_text(), 30)
    assert json.loads(log.read_text().splitlines()[-1]) == {
        "roots_changed": [second.resolve().as_uri()]
    }


@MENU_NOISE
async def test_slash_lists_prompts_and_inserts_the_rendered_one(
    ollama: FakeOllama, services: Services, qtbot: Any, tmp_path: Path
) -> None:
    with_features(services, tmp_path / "log")
    async with open_window(services, qtbot, ollama.url) as window:
        await connected(window)
        features = window.mcp_composer
        window.composer.input.insertPlainText("/")
        await wait_until(lambda: features.menu is not None and features.menu.isVisible(), 60)
        assert features.menu is not None
        actions = {a.data(): a for a in features.menu.actions()}
        assert set(actions) == {"feat:review", "feat:hello"}
        assert (
            actions["feat:review"].text() == "/feat:review — Relecture de code  (code*, language)"
        )
        actions["feat:review"].trigger()
        await wait_until(lambda: features.dialog is not None and features.dialog.isVisible())
        dialog = features.dialog
        assert dialog is not None
        code = dialog.inputs["code"]
        assert isinstance(code, QLineEdit)
        code.setText("print(1)")
        dialog.accept_button.click()
        await wait_until(lambda: window.composer.text().startswith("Please review"))
        assert window.composer.text() == "Please review this python code:\nprint(1)"


@MENU_NOISE
async def test_at_attaches_a_resource_to_the_message(
    ollama: FakeOllama, services: Services, qtbot: Any, tmp_path: Path
) -> None:
    with_features(services, tmp_path / "log")
    ollama.script(Reply.text("Lu."))
    async with open_window(services, qtbot, ollama.url) as window:
        await connected(window)
        features = window.mcp_composer
        window.composer.input.insertPlainText("Lis @")
        await wait_until(lambda: features.menu is not None and features.menu.isVisible(), 60)
        assert features.menu is not None
        actions = {a.data(): a for a in features.menu.actions()}
        assert set(actions) == {"notes://readme", "notes://logo"}
        actions["notes://readme"].trigger()
        await wait_until(lambda: len(features.chips.items) == 1)
        assert window.composer.text() == "Lis "  # the "@" that opened the list is gone
        window.composer.grab().save(str(tmp_path / "composer.png"))
        window.composer.submit()
        await finished(window)
        assert features.chips.items == []
    sent = ollama.chat_requests[0]["messages"][-1]
    assert sent["role"] == "user"
    assert sent["content"].startswith("Lis")
    assert "The project notes: build with make, test with pytest." in sent["content"]


async def test_the_sampling_policy_is_chosen_on_the_servers_card(
    ollama: FakeOllama, services: Services, qtbot: Any, tmp_path: Path
) -> None:
    with_features(services, tmp_path / "log")
    async with open_window(services, qtbot, ollama.url) as window:
        await connected(window)
        dialog = window.settings_opener.open()
        combo = dialog.mcp.cards["feat"].sampling_combo
        assert combo is not None
        assert combo.currentData() == "ask"  # the default
        combo.setCurrentIndex(combo.findData("never"))
        await wait_until(
            lambda: services.settings.load().mcp_servers["feat"].get("sampling") == "never"
        )
        # the live manager takes it too (no restart): the next request is refused
        await wait_until(lambda: window.runtime.mcp.manager.client.policy("feat") == "never")
        dialog.reject()
        await dialog.mcp.tasks.cancel_all()
        await dialog.tasks.cancel_all()


async def test_with_no_server_on_slash_is_plain_text(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.composer.input.insertPlainText("/")
        assert len(window.mcp_composer.tasks) == 0  # no list is being opened
        assert window.mcp_composer.menu is None
        assert window.composer.text() == "/"
