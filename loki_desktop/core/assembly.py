"""Builds an agent from the settings: the one place that knows every part of the core."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from loki_desktop.core.agent import Agent, AgentConfig, SkillPicker
from loki_desktop.core.changes.recorder import ChangeRecorder
from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.knowledge.index import KnowledgeTools
from loki_desktop.core.llm.budget import ContextBudget
from loki_desktop.core.llm.caps import AnswerCaps, settings_caps
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.ports import Approver, ChatBackend, CheckpointStore, ConversationStore
from loki_desktop.core.settings import Settings
from loki_desktop.core.skills.loader import load_router
from loki_desktop.core.tools.check_tool import run_check_tool
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.toolbox import OwningSource, Toolbox


@dataclass
class TurnOptions:
    """What a caller may override for its turns (CLI flags, the window's pickers)."""

    model: str = ""
    think: str | None = None  # the Réflexion mode for these turns (None: the settings')
    skills: bool = True
    user_skills_dir: Path | None = None  # the user's own skills, besides the built-in ones
    extra_sources: list[OwningSource] = field(default_factory=list)
    # Shared by a long-lived caller (the window builds an agent per turn) so each model's
    # context window is asked once and the token-estimate calibration is kept.
    budget: ContextBudget | None = None
    # what the evaluation's "harness off" turns off besides skills and checks
    text_calls: bool = True
    # `--max-tokens` / `--timeout`: over the settings' caps, for every model (0: the settings')
    caps: AnswerCaps = field(default_factory=AnswerCaps)
    # the process's memories (core.memory.setup); used only when the setting is on
    memories: Memories | None = None
    # the workspace's index and its search_workspace tool; used only when the setting is on
    knowledge: KnowledgeTools | None = None


def build_agent(
    *,
    settings: Settings,
    backend: ChatBackend,
    store: ConversationStore,
    workspace: Path | None,
    approver: Approver,
    options: TurnOptions | None = None,
    checkpoints: CheckpointStore | None = None,
) -> Agent:
    """`checkpoints`: where each file's state before a change is kept (None: nowhere)."""
    options = options or TurnOptions()
    jail = Workspace(workspace) if workspace is not None else None
    changes = None
    if jail is not None and checkpoints is not None:
        changes = ChangeRecorder(checkpoints, jail.root, settings.checkpoints_budget_mb)
        jail.observer = changes
    # the agent's checks read through the jail, as every tool does
    checker = Checkers(read=jail.read_for_check if jail is not None else None)
    check_tools = [run_check_tool(jail, checker)] if jail is not None else []
    native = NativeTools(
        jail, approver, extra_tools=check_tools, review_writes=settings.review_writes
    )
    sources: list[OwningSource] = [native, *options.extra_sources]
    if options.knowledge is not None and settings.workspace_index and jail is not None:
        sources.append(options.knowledge)
    toolbox = Toolbox(sources)
    caps, model_caps = settings_caps(settings)
    if options.caps != AnswerCaps():  # a flag is for this command's every model
        caps = options.caps.over(caps)
        model_caps = {model: options.caps.over(own) for model, own in model_caps.items()}
    config = AgentConfig(
        model=options.model or settings.model,
        max_rounds=settings.max_rounds,
        num_ctx=settings.num_ctx,
        skills_enabled=settings.skills_enabled and options.skills,
        auto_checks=settings.auto_checks,
        think=options.think or settings.think,
        tool_modes=dict(settings.tool_modes),
        text_calls=options.text_calls,
        caps=caps,
        model_caps=model_caps,
    )
    pick_skill: SkillPicker | None = None
    skill_notices: tuple[str, ...] = ()
    if config.skills_enabled:  # skill files are read only when skills are on
        router, skill_notices = load_router(options.user_skills_dir)
        pick_skill = router.pick
    return Agent(
        backend=backend,
        store=store,
        toolbox=toolbox,
        config=config,
        workspace_root=jail.root if jail else None,
        checker=checker,
        pick_skill=pick_skill,
        pending_notices=list(skill_notices),
        budget=options.budget or ContextBudget(),
        changes=changes,
        memories=options.memories if settings.memories else None,
        knowledge=options.knowledge.knowledge if options.knowledge in sources else None,
    )
