"""Builds an agent from the settings: the one place that knows every part of the core."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from loki_desktop.core.agent import Agent, AgentConfig
from loki_desktop.core.ports import Approver, ChatBackend, ConversationStore
from loki_desktop.core.settings import Settings
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.toolbox import OwningSource, Toolbox


@dataclass
class TurnOptions:
    """What a caller may override for its turns (CLI flags, the window's pickers)."""

    model: str = ""
    skills: bool = True
    extra_sources: list[OwningSource] = field(default_factory=list)


def build_agent(
    *,
    settings: Settings,
    backend: ChatBackend,
    store: ConversationStore,
    workspace: Path | None,
    approver: Approver,
    options: TurnOptions | None = None,
) -> Agent:
    options = options or TurnOptions()
    jail = Workspace(workspace) if workspace is not None else None
    native = NativeTools(jail, approver)
    toolbox = Toolbox([native, *options.extra_sources])
    config = AgentConfig(
        model=options.model or settings.model,
        max_rounds=settings.max_rounds,
        num_ctx=settings.num_ctx,
        skills_enabled=settings.skills_enabled and options.skills,
        auto_checks=settings.auto_checks,
    )
    return Agent(
        backend=backend,
        store=store,
        toolbox=toolbox,
        config=config,
        workspace_root=jail.root if jail else None,
    )
