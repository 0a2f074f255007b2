"""Building a real agent for in-process turns: the real ollama client, SQLite, a tmp workspace."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.agent import Agent
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.events import Event
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History


def make_agent(
    backend: OllamaBackend,
    store: History,
    workspace: Path,
    settings: Settings | None = None,
    **options: Any,
) -> Agent:
    """An agent as the CLI builds it (shell refused); `options` are TurnOptions fields."""
    return build_agent(
        settings=settings or Settings(),
        backend=backend,
        store=store,
        workspace=workspace,
        approver=FixedApprover(False),
        options=TurnOptions(**options),
    )


async def turn(
    agent: Agent,
    text: str,
    conversation: str | None = None,
    images: Sequence[ImageAttachment] = (),
) -> list[Event]:
    """Every event of one turn."""
    return [event async for event in agent.run_turn(text, conversation, images)]
