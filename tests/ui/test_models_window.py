"""The models people run, in the window: reasoning, the Réflexion setting, images, marks."""

from __future__ import annotations

import base64
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtCore import QMimeData, QUrl

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import AssistantMessage, ErrorCard, ToolCard, UserMessage
from loki_desktop.ui.chat.thinking import ThinkingBlock
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.mcp_servers import script
from tests.fakes.ollama_server import FakeOllama, ModelCard, Reply
from tests.ui.helpers import open_window, wait_until
from tests.ui.test_attachments import drop_on

THINKER = "qwen3:8b"
LEVELS = "gpt-oss:20b"
SEER = "gemma3:4b"
SEER_WITH_TOOLS = "qwen2.5vl:7b"
PLAIN = "llama3.1:8b"
EMBEDDER = "nomic-embed-text:latest"


@pytest.fixture
def models() -> Iterator[FakeOllama]:
    """A server with the kinds of models people pull: thinking, levels, vision, embedding."""
    cards = {
        THINKER: ModelCard.thinker(),
        LEVELS: ModelCard.thinker("low", "medium", "high"),
        SEER: ModelCard.no_tools("vision"),
        SEER_WITH_TOOLS: ModelCard(capabilities=["completion", "tools", "vision"]),
        PLAIN: ModelCard(),
        EMBEDDER: ModelCard.embedding(),
    }
    with FakeOllama(models=(), cards=cards) as server:
        yield server


def choose(window: MainWindow, model: str) -> None:
    picker = window.model_picker
    if picker.current_model() == model:
        picker.setCurrentIndex(-1)  # chosen again, as a person would: the choice is saved
    picker.setCurrentIndex(picker.findData(model))
    assert window.runtime.settings.model == model


def png(size: tuple[int, int] = (32, 24)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 120, 60)).save(out, "PNG")
    return out.getvalue()


async def send(window: MainWindow, text: str) -> None:
    window.composer.set_text(text)
    window.composer.submit()


async def idle(window: MainWindow, within: float = 20.0) -> None:
    await wait_until(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy,
        within,
    )


async def test_the_picker_marks_what_each_model_can_do_and_hides_embedding_models(
    models: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, models.url) as window:
        picker = window.model_picker
        await wait_until(lambda: picker.count() == 5)
        names = [picker.itemData(i) for i in range(picker.count())]
        assert EMBEDDER not in names
        assert picker.marks(THINKER) == ["OUTILS", "RÉFLEXION"]
        assert picker.marks(LEVELS) == ["OUTILS", "RÉFLEXION"]
        assert picker.marks(SEER) == ["VISION"]
        assert picker.marks(PLAIN) == ["OUTILS"]
        assert picker.marks(SEER_WITH_TOOLS) == ["OUTILS", "VISION"]
        tip = picker.itemData(picker.findData(LEVELS), 3)  # Qt.ToolTipRole
        assert "low, medium, high" in tip
        choose(window, SEER)
        assert window.model_marks.marks == ["VISION"]
        assert window.model_marks.isVisibleTo(window)


async def test_reasoning_shows_live_then_folds_and_comes_back_from_history(
    models: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, models.url) as window:
        await wait_until(lambda: window.model_picker.count() == 5)
        choose(window, THINKER)
        pieces = [f"Étape {n} du raisonnement. " for n in range(12)]
        models.script(Reply.thinks(pieces, "La réponse ", "est 391.", token_delay=0.1))
        await send(window, "Combien font 17 × 23 ?")
        session = window.sessions.current
        assert session is not None

        # the block is there with the first chunk, long before the answer
        await wait_until(lambda: session.view.thinking_block is not None)
        block = session.view.thinking_block
        assert block is not None
        assert block.running
        assert block.is_open
        assert "réfléchit…" in block.toggle.text()
        assert session.view.streaming_message is None
        await wait_until(lambda: "Étape 1 " in block.body.toPlainText())

        # the answer starts: the block folds, its duration kept
        await wait_until(lambda: session.view.streaming_message is not None)
        assert not block.running
        assert not block.is_open
        assert block.seconds is not None
        await idle(window)
        assert block.text() == "".join(pieces)
        kinds = [type(item).__name__ for item in session.view.items()]
        assert kinds == ["UserMessage", "ThinkingBlock", "AssistantMessage"]
        answer = session.view.items()[2]
        assert isinstance(answer, AssistantMessage)
        assert answer.markdown() == "La réponse est 391."

        # reopened from history: folded, same text, a duration
        conversation = session.id
        window.sessions.new_conversation()
        window.sessions.open_conversation(conversation)
        assert window.sessions.current is not None
        stored = [i for i in window.sessions.current.view.items() if isinstance(i, ThinkingBlock)]
        assert len(stored) == 1
        assert not stored[0].is_open
        assert stored[0].text() == "".join(pieces)
        assert stored[0].seconds is not None
        assert "Réflexion — " in stored[0].toggle.text()


async def test_the_reflexion_setting_reaches_the_chat_request(
    models: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, models.url) as window:
        await wait_until(lambda: window.model_picker.count() == 5)
        choose(window, LEVELS)
        dialog = window.settings_opener.open()
        behaviour = dialog.general.behaviour
        offered = [behaviour.think.itemData(i) for i in range(behaviour.think.count())]
        assert offered == ["auto", "off", "on", "low", "medium", "high"]
        behaviour.think.setCurrentIndex(behaviour.think.findData("high"))
        behaviour.think.activated.emit(behaviour.think.currentIndex())
        dialog.save_button.click()
        assert window.runtime.settings.think == "high"
        assert services.settings.load().think == "high"

        models.script(Reply.thinks(["Hmm. "], "Oui."))
        await send(window, "Tu réfléchis ?")
        await idle(window)
        assert models.chat_requests[-1]["think"] == "high"

        # Désactivée, for a model without levels
        choose(window, THINKER)
        dialog = window.settings_opener.open()
        behaviour = dialog.general.behaviour
        assert behaviour.model == THINKER
        offered = [behaviour.think.itemData(i) for i in range(behaviour.think.count())]
        assert offered[:3] == ["auto", "off", "on"]
        assert "réfléchit avant de répondre" in behaviour.think_help.text()
        behaviour.think.setCurrentIndex(behaviour.think.findData("off"))
        behaviour.think.activated.emit(behaviour.think.currentIndex())
        # the hint follows the choice: Désactivée is not described as reasoning shown
        assert behaviour.think_help.text().startswith("Réflexion désactivée")
        dialog.save_button.click()
        models.script(Reply.text("Non."))
        await send(window, "Et là ?")
        await idle(window)
        assert models.chat_requests[-1]["think"] is False


async def test_the_tool_mode_of_a_model_is_saved_and_used(
    models: FakeOllama, qtbot: Any, services: Services, tmp_path: Path
) -> None:
    services_settings = services.settings.load()
    services_settings.workspace = str(tmp_path)
    services.settings.save(services_settings)
    async with open_window(services, qtbot, models.url) as window:
        await wait_until(lambda: window.model_picker.count() == 5)
        choose(window, PLAIN)
        dialog = window.settings_opener.open()
        tools = dialog.general.behaviour.tools
        assert tools.isEnabled()
        tools.setCurrentIndex(tools.findData("prompted"))
        tools.activated.emit(tools.currentIndex())
        dialog.save_button.click()
        assert services.settings.load().tool_modes == {PLAIN: "prompted"}

        models.script(Reply.text("D'accord."))
        await send(window, "Liste le dossier")
        await idle(window)
        request = models.chat_requests[-1]
        assert not request.get("tools")
        assert "list_dir" in request["messages"][0]["content"]  # described in the prompt


async def test_an_attached_image_reaches_the_chat_request_as_base64(
    models: FakeOllama, qtbot: Any, services: Services, tmp_path: Path
) -> None:
    picture = tmp_path / "schema.png"
    picture.write_bytes(png())
    async with open_window(services, qtbot, models.url) as window:
        await wait_until(lambda: window.model_picker.count() == 5)
        choose(window, SEER)
        assert window.composer.attach_button.isEnabled()
        # the same path as the button's file dialog, and a drop on the chat
        await window.composer.attachments.attach_paths([picture])
        dropped = QMimeData()
        dropped.setData("image/png", png((20, 20)))
        assert drop_on(window.stack.currentWidget(), dropped)
        await wait_until(lambda: len(window.composer.attachments.images) == 2)

        models.script(Reply.text("Un carré vert."))
        await send(window, "Que vois-tu ?")
        await idle(window)
        last = models.chat_requests[-1]["messages"][-1]
        assert last["content"] == "Que vois-tu ?"
        assert last["images"][0] == base64.b64encode(picture.read_bytes()).decode()
        assert len(last["images"]) == 2
        assert window.composer.attachments.images == []

        # the sent message shows them, and so does the conversation reopened
        session = window.sessions.current
        assert session is not None
        user = session.view.items()[0]
        assert isinstance(user, UserMessage)
        assert user.thumbnails is not None
        assert len(user.thumbnails.thumbnails()) == 2
        window.sessions.new_conversation()
        window.sessions.open_conversation(session.id)
        assert window.sessions.current is not None
        reopened = window.sessions.current.view.items()[0]
        assert isinstance(reopened, UserMessage)
        assert reopened.thumbnails is not None
        thumbs = reopened.thumbnails.thumbnails()
        assert len(thumbs) == 2
        assert thumbs[0].path is not None  # a file under the data folder
        assert thumbs[0].picture.pixmap() is not None
        assert not thumbs[0].picture.pixmap().isNull()


async def test_without_vision_images_are_refused_and_the_attach_button_says_why(
    models: FakeOllama, qtbot: Any, services: Services, tmp_path: Path
) -> None:
    async with open_window(services, qtbot, models.url) as window:
        await wait_until(lambda: window.model_picker.count() == 5)
        choose(window, PLAIN)
        button = window.composer.attach_button
        assert button.isEnabled()  # text, code and PDF files need no vision
        assert window.composer.attachments.refusal
        assert "« llama3.1:8b » ne lit pas les images" in button.toolTip()
        picture = tmp_path / "photo.png"
        picture.write_bytes(png())
        dropped = QMimeData()
        dropped.setUrls([QUrl.fromLocalFile(str(picture))])
        drop_on(window.stack.currentWidget(), dropped)
        problem = window.composer.attachments.problem
        await wait_until(lambda: problem.isVisibleTo(window))
        assert "ne lit pas les images" in problem.text()
        assert window.composer.attachments.images == []

        choose(window, SEER)
        assert button.isEnabled()


async def test_an_empty_answer_is_said_with_a_retry(
    models: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, models.url) as window:
        await wait_until(lambda: window.model_picker.count() == 5)
        choose(window, PLAIN)
        models.script(Reply.text(), Reply.text("Me voilà."))
        await send(window, "Allô ?")
        await idle(window)
        session = window.sessions.current
        assert session is not None
        cards = [i for i in session.view.items() if isinstance(i, ErrorCard)]
        assert len(cards) == 1
        assert "n'a rien répondu" in cards[0].message
        assert cards[0].retry_button is not None
        cards[0].retry_button.click()
        await wait_until(lambda: session.runner.busy or models.pending == 0)
        await idle(window)
        answers = [i for i in session.view.items() if isinstance(i, AssistantMessage)]
        assert answers[-1].markdown() == "Me voilà."


async def test_a_tools_screenshot_shows_on_its_card(
    models: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, models.url) as window:
        await wait_until(lambda: window.model_picker.count() == 5)
        window.runtime.mcp.add_stdio("demo", [sys.executable, script("screenshot")], enabled=True)
        choose(window, SEER_WITH_TOOLS)
        models.script(
            Reply.tool("mcp_demo_screenshot", {"width": 300, "height": 200}),
            Reply.text("Une page rouge."),
        )
        await send(window, "Fais une capture")
        await idle(window, 60)
        session = window.sessions.current
        assert session is not None
        cards = [i for i in session.view.items() if isinstance(i, ToolCard)]
        assert cards, [type(i).__name__ for i in session.view.items()]
        card = cards[0]
        assert card.state == "ok", card.output
        assert card.thumbnails is not None
        assert len(card.thumbnails.thumbnails()) == 1
