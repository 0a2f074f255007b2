"""The settings dialog: General and Intelligence round trip, MCP cards against real servers."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import keyring
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QPushButton

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.services import Services
from loki_desktop.ui.settings.dialog import SettingsDialog
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.mcp_servers import script
from tests.fakes.memory_keyring import LockedKeyring, MemoryKeyring
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until


def open_dialog(window: MainWindow, qtbot: Any) -> SettingsDialog:
    """The dialog the window opens (a child of the window: it goes with it)."""
    return window.settings_opener.open()


async def close(dialog: SettingsDialog) -> None:
    dialog.reject()
    await dialog.mcp.tasks.cancel_all()
    await dialog.tasks.cancel_all()


async def test_general_and_intelligence_round_trip(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        general = dialog.general
        assert general.host.text() == ollama.url
        general.test_button.click()
        await wait_until(lambda: "Connecté" in general.test_result.text())
        assert "qwen2.5-coder:7b" in general.test_result.text()
        assert general.model.findText("llama3.1:8b") >= 0  # filled from the server
        general.model.setCurrentText("llama3.1:8b")
        general.max_rounds.setValue(12)
        assert general.num_ctx.currentData() == 8192  # the default
        general.num_ctx.setCurrentIndex(general.num_ctx.findData(16384))
        general.theme.setCurrentIndex(general.theme.findData("dark"))
        dialog.show_page("intelligence")
        intelligence = dialog.intelligence
        assert "analyse-donnees" in intelligence.skill_names  # the built-in skills are listed
        intelligence.skills_enabled.setChecked(False)
        intelligence.auto_checks.setChecked(False)
        dialog.save_button.click()
        await dialog.tasks.cancel_all()

        saved = services.settings.load()
        assert (saved.model, saved.max_rounds, saved.skills_enabled, saved.auto_checks) == (
            "llama3.1:8b",
            12,
            False,
            False,
        )
        assert saved.ui["theme"] == "dark"
        assert window.theme.palette.name == "dark"
        # the next turn uses them
        agent = window.runtime.make_agent(FixedApprover(allow=False))
        assert agent.config.max_rounds == 12
        assert agent.config.num_ctx == 16384
        assert not agent.config.skills_enabled

        again = open_dialog(window, qtbot)
        assert again is not dialog  # a new dialog, reading the saved settings
        assert again.general.model.currentText() == "llama3.1:8b"
        assert again.general.max_rounds.value() == 12
        assert again.general.num_ctx.currentData() == 16384
        assert again.general.theme.currentData() == "dark"
        assert not again.intelligence.skills_enabled.isChecked()
        assert not again.intelligence.auto_checks.isChecked()
        await close(again)
        window.theme.set_choice("light")


async def test_connection_test_reports_an_unreachable_host(
    offline_host: str, qtbot: Any, services: Services, ollama: FakeOllama
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        dialog.general.host.setText(offline_host)
        dialog.general.test_button.click()
        await wait_until(lambda: "injoignable" in dialog.general.test_result.text())
        assert dialog.general.test_result.property("state") == "error"
        await close(dialog)


async def test_connection_test_says_when_a_server_does_not_answer(
    silent_host: str, qtbot: Any, services: Services, ollama: FakeOllama
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.runtime.models_timeout_s = 0.3
        dialog = open_dialog(window, qtbot)
        dialog.general.host.setText(silent_host)
        dialog.general.test_button.click()
        await wait_until(lambda: "ne répond pas" in dialog.general.test_result.text(), within=5)
        assert silent_host in dialog.general.test_result.text()
        assert dialog.general.test_result.property("state") == "error"
        assert dialog.general.test_button.isEnabled()
        assert window.runtime.host == ollama.url  # only Save changes the server
        await close(dialog)


async def test_a_closed_dialog_is_deleted(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        dialog.general.max_rounds.setValue(33)  # edited, then cancelled
        dialog.cancel_button.click()
        await wait_until(lambda: not shiboken6.isValid(dialog), within=5)
        assert window.findChildren(SettingsDialog) == []
        again = open_dialog(window, qtbot)
        assert again.general.max_rounds.value() == services.settings.load().max_rounds != 33
        await close(again)


async def test_mcp_custom_server_add_connect_test_and_remove(
    services: Services, qtbot: Any, ollama: FakeOllama
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        dialog.show_page("mcp")
        page = dialog.mcp
        assert {"fetch", "context7", "playwright", "searxng"} <= set(page.cards)
        assert not any(card.toggle.isChecked() for card in page.cards.values())

        page.add_button.click()
        page.new_name.setText("echo")
        page.new_target.setText(shlex.join([sys.executable, script("echo")]))
        assert await page.add_from_form()
        card = page.cards["echo"]
        assert card.view.custom
        assert card.dot.property("state") == "inactive"

        card.toggle.setChecked(True)  # turned on: it starts now and its dot turns green
        await wait_until(lambda: card.dot.property("state") == "connected", within=20)
        assert card.dot.text() == "● Connecté"
        assert card.tools_chip.isVisibleTo(card)
        assert card.tools_chip.text().startswith("7 outils · ≈ ")
        assert "mcp_echo_echo" in card.tools_chip.toolTip()
        assert services.settings.load().mcp_servers["echo"]["enabled"] is True

        card.test_button.click()
        await wait_until(lambda: card.result.text().startswith("Connecté en"), within=20)
        assert "7 outils trouvés — echo, env, header" in card.result.text()

        # the agent of the next turn has the server's tools
        agent = window.runtime.make_agent(FixedApprover(allow=False))
        await agent.toolbox.prepare()
        assert "mcp_echo_echo" in agent.toolbox.names()

        card.toggle.setChecked(False)
        await wait_until(lambda: card.dot.property("state") == "inactive")
        # off, it still shows what it cost at the last test
        assert card.tools_chip.isVisibleTo(card)
        assert card.tools_chip.text().startswith("7 outils · ≈ ")
        assert card.tools_chip.text().endswith("jetons de contexte (dernier test)")
        assert await page.remove("echo")
        assert "echo" not in page.cards
        assert "echo" not in services.settings.load().mcp_servers
        await close(dialog)


async def test_a_test_ending_after_the_cards_were_rebuilt_shows_on_the_new_card(
    services: Services, qtbot: Any, ollama: FakeOllama
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        page = dialog.mcp
        page.add_button.click()
        page.new_name.setText("echo")
        page.new_target.setText(shlex.join([sys.executable, script("echo")]))
        assert await page.add_from_form()
        old = page.cards["echo"]
        old.test_button.click()
        page.reload()  # what an import, an addition or a removal does meanwhile
        card = page.cards["echo"]
        assert card is not old
        await wait_until(lambda: card.result.text().startswith("Connecté en"), within=20)
        assert card.test_button.isEnabled()
        await close(dialog)


async def test_mcp_secret_parameters_are_masked_and_kept_in_the_keyring(
    services: Services, memory_keyring: MemoryKeyring, qtbot: Any, ollama: FakeOllama
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        card = dialog.mcp.cards["context7"]
        field = card.fields["CONTEXT7_API_KEY"]
        assert field.echoMode() == QLineEdit.EchoMode.Password
        # one way to save on this page: at once, when the field is left (Enter here)
        field.setFocus()
        qtbot.keyClicks(field, "sk-tres-secret-1234")
        qtbot.keyClick(field, Qt.Key.Key_Return)
        await wait_until(lambda: card.result.text() == "Paramètres enregistrés.")
        assert memory_keyring.values[("loki-desktop", "mcp/context7/CONTEXT7_API_KEY")] == (
            "sk-tres-secret-1234"
        )
        settings_text = (services.data_home / "settings.json").read_text(encoding="utf-8")
        assert "sk-tres-secret-1234" not in settings_text
        assert field.text() == ""
        assert "trousseau" in field.placeholderText()
        await close(dialog)

        # reopened: the secret is said to be stored, never shown
        again = open_dialog(window, qtbot)
        field = again.mcp.cards["context7"].fields["CONTEXT7_API_KEY"]
        assert field.text() == ""
        assert field.placeholderText() == "•••• enregistré dans le trousseau"
        await close(again)


async def test_mcp_cards_never_show_a_secret_written_in_clear(
    services: Services, qtbot: Any, ollama: FakeOllama
) -> None:
    # as an older version saved them, or as a hand edit leaves them
    (services.data_home / "settings.json").write_text(
        json.dumps(
            {
                "mcp_servers": {
                    "searxng": {"params": {"SEARXNG_URL": "http://me:ui-pw-1234@h:8888"}},
                    "old": {
                        "label": "old",
                        "command": ["srv", "--auth", "sk-uiversion-5678", "-p", "uipass-9012"],
                        "params": {"DB_URL": "postgres://u:ui-dsn-3456@h/db"},
                    },
                }
            }
        ),
        encoding="utf-8",
    )
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        page = dialog.mcp
        shown = [
            widget.text()
            for card in (page.cards["searxng"], page.cards["old"])
            for widget in [*card.findChildren(QLineEdit), card.description, card.error]
        ]
        for secret in ("ui-pw-1234", "sk-uiversion-5678", "uipass-9012", "ui-dsn-3456"):
            assert not [text for text in shown if secret in text], secret
        assert "--auth ••••" in page.cards["old"].description.text()
        field = page.cards["searxng"].fields["SEARXNG_URL"]
        assert field.echoMode() == QLineEdit.EchoMode.Password
        assert field.text() == ""  # saving the card keeps the value instead of a mask
        await close(dialog)


async def test_mcp_import_of_a_claude_style_file(
    services: Services,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    qtbot: Any,
    ollama: FakeOllama,
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        config = tmp_path / "claude_desktop_config.json"
        config.write_text(
            json.dumps(
                {
                    "mcpServers": {
                        "Mes outils": {
                            "command": sys.executable,
                            "args": [script("echo")],
                            "env": {"API_TOKEN": "jeton-42", "MODE": "demo"},
                        },
                        "distant": {"type": "sse", "url": "https://example.org/sse"},
                    }
                }
            ),
            encoding="utf-8",
        )
        dialog = open_dialog(window, qtbot)
        page = dialog.mcp
        assert await page.import_file(config)
        assert "mes-outils" in page.cards
        assert "1 serveur importé : Mes outils." in page.report.text()
        assert "SSE" in page.report.text()  # the skipped one says why
        assert memory_keyring.values[("loki-desktop", "mcp/mes-outils/API_TOKEN")] == "jeton-42"
        saved = services.settings.load().mcp_servers["mes-outils"]
        assert saved["params"] == {"MODE": "demo"}
        assert "jeton-42" not in json.dumps(saved)
        card = page.cards["mes-outils"]
        assert card.fields["API_TOKEN"].echoMode() == QLineEdit.EchoMode.Password
        assert card.fields["MODE"].text() == "demo"
        await close(dialog)


async def test_a_keyring_waiting_to_be_unlocked_leaves_the_window_running(
    services: Services, qtbot: Any, ollama: FakeOllama
) -> None:
    locked = LockedKeyring()
    keyring.set_keyring(locked)  # the autouse memory keyring is put back after the test
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        page = dialog.mcp
        card = page.cards["context7"]
        field = card.fields["CONTEXT7_API_KEY"]
        field.setFocus()
        qtbot.keyClicks(field, "sk-attend-le-trousseau")
        qtbot.keyClick(field, Qt.Key.Key_Return)

        # the keyring is asked in a worker thread: meanwhile this loop (the window's) runs,
        # and the page shows it is busy (on the GUI thread this test could not even go on)
        await wait_until(locked.asked.is_set)
        assert page.busy.isVisibleTo(page)
        assert not page.add_button.isEnabled()
        assert not card.isEnabled()

        locked.unlock.set()  # the person typed their keyring password
        await wait_until(lambda: card.result.text() == "Paramètres enregistrés.")
        assert not page.busy.isVisibleTo(page)
        assert page.add_button.isEnabled()
        assert card.isEnabled()
        assert locked.values[("loki-desktop", "mcp/context7/CONTEXT7_API_KEY")] == (
            "sk-attend-le-trousseau"
        )
        await close(dialog)


async def test_an_mcp_test_shows_it_runs_and_can_be_stopped(
    services: Services, qtbot: Any, ollama: FakeOllama
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        page = dialog.mcp
        page.add_button.click()
        page.new_name.setText("muet")
        page.new_target.setText(shlex.join([sys.executable, script("never_answers")]))
        assert await page.add_from_form()
        card = page.cards["muet"]
        # one way to save on this page: no per-card button, the dialog says so on this page
        assert not [b for b in card.findChildren(QPushButton) if "Enregistrer" in b.text()]
        dialog.show_page("mcp")
        assert dialog.footer_note.isVisibleTo(dialog)
        card.test_button.click()
        assert card.progress.running
        assert card.progress.isVisibleTo(card)
        assert card.test_button.text() == "Arrêter le test"
        await wait_until(lambda: card.progress.seconds.text() != "0 s", what="it counts")
        card.test_button.click()  # the server never answers: the person stops waiting
        await wait_until(lambda: card.result.text() == "Test arrêté.")
        assert not card.progress.running
        assert not card.progress.isVisibleTo(card)
        assert card.test_button.text() == "Tester"
        await close(dialog)
        await window.runtime.mcp.manager.settle()  # the test connection closes


async def test_fetch_card_allows_local_addresses_when_its_box_is_ticked(
    services: Services, qtbot: Any, ollama: FakeOllama
) -> None:
    def stored() -> dict[str, Any]:
        return dict(services.settings.load().mcp_servers.get("fetch", {}).get("params", {}))

    async with open_window(services, qtbot, ollama.url) as window:
        dialog = open_dialog(window, qtbot)
        dialog.show_page("mcp")
        box = dialog.mcp.cards["fetch"].flags["ALLOW_LOCAL"]
        assert box.text() == "Autoriser les adresses locales"
        assert not box.isChecked()  # off by default
        box.setChecked(True)  # saved as it is ticked
        await wait_until(lambda: stored() == {"ALLOW_LOCAL": "1"}, within=10)
        box = dialog.mcp.cards["fetch"].flags["ALLOW_LOCAL"]
        box.setChecked(False)
        await wait_until(lambda: stored() == {}, within=10)
        await close(dialog)
