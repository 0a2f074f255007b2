"""One agent turn: a user message in, a stream of typed events out, in bounded rounds."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from loki_desktop.core.answer_stats import RoundFigures, StatsMeter
from loki_desktop.core.attachments.model import FileAttachment, message_text
from loki_desktop.core.branches import NotPersons, left_behind_notice, rewind_at
from loki_desktop.core.changes.recorder import ChangeRecorder
from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.code_model import code_turn_model
from loki_desktop.core.compaction import (
    COMPACT_AT,
    KEEP_RECENT,
    SUMMARY_HEADER,
    SUMMARY_SYSTEM,
    SUMMARY_TOKENS,
    Summary,
    choose_cover,
    latest_summary,
    shrink_old_results,
    summary_input,
    visible_to_model,
)
from loki_desktop.core.events import (
    CheckReport,
    Compacted,
    Done,
    DoneReason,
    Error,
    Event,
    Notice,
    Plan,
    Review,
    SkillUsed,
    Thinking,
    Token,
    ToolCall,
    ToolResult,
)
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.instructions import AgentsMd, instruction_texts, read_agents_md
from loki_desktop.core.knowledge.index import Knowledge
from loki_desktop.core.knowledge.turn import TurnPassages
from loki_desktop.core.llm.budget import (
    SAFETY_MARGIN,
    ContextBudget,
    FittedRequest,
    answer_reserve,
    message_tokens,
)
from loki_desktop.core.llm.caps import (
    NUM_PREDICT,
    AnswerCaps,
    AnswerClock,
    ReplyLimit,
    StopReason,
    length_notice,
    repetition_notice,
    timeout_notice,
    trim_loop,
)
from loki_desktop.core.llm.context_size import effective_context, request_options
from loki_desktop.core.llm.mode import (
    ModelMode,
    base_model_notice,
    empty_after_tools_notice,
    empty_answer_message,
    no_tool_used_notice,
    no_vision_message,
    not_for_chat_message,
    prompted_notice,
    resolve_mode,
    system_folded_notice,
    thinking_refused_notice,
    tools_refused_message,
    unknown_context_notice,
)
from loki_desktop.core.llm.one_shot import ask_once
from loki_desktop.core.llm.prompted import prompted_request
from loki_desktop.core.llm.quiet import QUIET_S, Quiet, TimeUp, marking_quiet
from loki_desktop.core.llm.reply import ReplyReader
from loki_desktop.core.llm.template import fold_system
from loki_desktop.core.llm.textcalls import recovered_notice
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.turn import TurnMemory
from loki_desktop.core.message_meta import NO_META, FileChip, MessageMeta
from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.core.orphans import answer_orphans
from loki_desktop.core.plan import PLAN_SYSTEM, needs_plan, parse_plan, plan_guide
from loki_desktop.core.ports import (
    BackendError,
    ChatBackend,
    ChatChunk,
    ContextOverflow,
    ConversationStore,
    ModelProfile,
    NativeToolCall,
    StoreUnavailable,
    ThinkingUnsupported,
    ToolOutcome,
    ToolSpec,
    ToolsUnsupported,
    TurnLock,
)
from loki_desktop.core.prompts import check_feedback, check_followup, system_prompt
from loki_desktop.core.review import REVIEW_SYSTEM, parse_review, review_followup, review_input
from loki_desktop.core.said import facts_of
from loki_desktop.core.settings import DEFAULT_MAX_ROUNDS, DEFAULT_NUM_CTX
from loki_desktop.core.skills.model import Skill
from loki_desktop.core.titles import conversation_title
from loki_desktop.core.tokens import estimate_tokens
from loki_desktop.core.tools.args import ArgumentError, parse_raw_arguments
from loki_desktop.core.tools.need import needs_tool
from loki_desktop.core.tools.toolbox import Toolbox

# The result stored for a call the user stopped before it finished (model-facing).
INTERRUPTED_RESULT = "Error: interrupted by the user; the tool did not finish."
# The result given to a call a crash (kill -9, power cut) left without one (model-facing).
CRASH_RESULT = (
    "Error: interrupted: Loki stopped before this tool finished, so it may or may not have "
    "run. Check its effect before calling it again."
)
# How long a turn waits for another turn of the same conversation (another window or `ask`)
# to finish: as long as a model may take to answer one request (core.llm.ollama).
TURN_WAIT_S = 600.0
TURN_POLL_S = 0.1


class FileChecker(Protocol):
    """Static checks of written files (implemented in core.checks)."""

    def can_check(self, path: Path) -> bool: ...

    async def check(self, path: Path, root: Path | None) -> CheckResult: ...


SkillPicker = Callable[[str], Skill | None]


@dataclass
class AgentConfig:
    """A turn's settings. `think` is the Réflexion mode (core.settings.THINK_MODES or a
    level name); `tool_modes` maps a model name to "native", "prompted" or "none"."""

    model: str = ""
    max_rounds: int = DEFAULT_MAX_ROUNDS
    num_ctx: int = DEFAULT_NUM_CTX
    skills_enabled: bool = True
    auto_checks: bool = True
    think: str = "auto"
    tool_modes: dict[str, str] = field(default_factory=dict)
    # read tool calls a model writes as text (off: `eval --harness off`, a plain chat's view)
    text_calls: bool = True
    turn_wait_s: float = TURN_WAIT_S
    # the person's instructions for every answer (Réglages, or this conversation's override)
    instructions: str = ""
    agents_md: bool = True  # read the workspace's AGENTS.md into the instructions
    # an answer's length and time caps (core.llm.caps); `model_caps` per model, over them
    caps: AnswerCaps = field(default_factory=AnswerCaps)
    model_caps: dict[str, AnswerCaps] = field(default_factory=dict)

    def caps_for(self, model: str) -> AnswerCaps:
        return self.model_caps.get(model, AnswerCaps()).over(self.caps)

    # Intelligence (docs/intelligence.md): a plan before a request of several actions, one
    # self-review pass after the answer, the model of code turns ("": the chat model), and
    # older turns summarised when the context fills up
    plan: bool = False
    review: bool = False
    code_model: str = ""
    compaction: bool = True


def quiet_notice(seconds: float) -> str:
    return _(
        "Le serveur ne répond plus depuis {n} s ; Loki attend encore (Arrêter pour abandonner)."
    ).format(n=int(seconds))


class NoModel(BackendError):
    """The server has no model at all."""


@dataclass
class Agent:
    """Everything a turn needs. Built for each turn (Runtime.make_agent, `ask`); it is cheap."""

    backend: ChatBackend
    store: ConversationStore
    toolbox: Toolbox
    config: AgentConfig = field(default_factory=AgentConfig)
    workspace_root: Path | None = None
    pick_skill: SkillPicker | None = None
    checker: FileChecker | None = None
    # Notices from building the agent (a malformed skill file, a settings problem):
    # shown once, at the start of the next turn.
    pending_notices: list[str] = field(default_factory=list)
    # Each model's context window and token-estimate calibration, kept across turns.
    budget: ContextBudget = field(default_factory=ContextBudget)
    # The conversation of the turn running or last run: a consumer that cancels a turn
    # (a signal in `ask`) still says where it was stored.
    last_conversation: str | None = None
    # keeps each file's state before a tool changes it (core.changes); None: no checkpoints
    changes: ChangeRecorder | None = None
    # what Loki remembers (core.memory): recalled before each turn, kept when asked; None:
    # memories off (nothing opened, nothing embedded)
    memories: Memories | None = None
    # the workspace's index: its best passages join the turn when the message asks about
    # the workspace's files (core.knowledge.turn); None: index off
    knowledge: Knowledge | None = None
    # after this long without a byte from the server, the turn says so (and waits on)
    quiet_s: float = QUIET_S

    def run_turn(
        self,
        text: str,
        conversation_id: str | None = None,
        images: Sequence[ImageAttachment] = (),
        files: Sequence[FileAttachment] = (),
    ) -> AsyncGenerator[Event, None]:
        """Answer `text` in a conversation (a new one when `conversation_id` is None).

        `images` (made by core.images) go with the message to a vision model and are
        stored with it; for a model without vision the turn ends with an Error, nothing sent.
        `files` (core.attachments) follow the words in the message, each with its name.
        """
        turn = _Turn(self)
        turn.files = tuple(files)
        return turn.run(text, conversation_id, resume=False, images=tuple(images))

    def retry_turn(self, conversation_id: str) -> AsyncGenerator[Event, None]:
        """Answer the last user message of a conversation again (after an error)."""
        return _Turn(self).run("", conversation_id, resume=True)

    def regenerate(
        self, conversation_id: str, message_id: int | None = None
    ) -> AsyncGenerator[Event, None]:
        """Answer one of the person's messages again (`message_id`; None: the last one), with
        this agent's model: the new answer is a sibling branch of the earlier ones."""
        return _Turn(self).run(
            "", conversation_id, resume=True, rewind=_Rewind("regenerate", message_id)
        )

    def edit_and_resend(
        self,
        conversation_id: str,
        message_id: int,
        text: str,
        images: Sequence[ImageAttachment] = (),
    ) -> AsyncGenerator[Event, None]:
        """Send `text` in place of the person's message `message_id`: a new branch starts
        where that message was; the old one and what followed it stay stored."""
        return _Turn(self).run(
            text,
            conversation_id,
            resume=False,
            images=tuple(images),
            rewind=_Rewind("edit", message_id),
        )

    async def model_profile(self) -> ModelProfile:
        """What the turn's model can do (asked once per model and host, then cached).
        Raises BackendError when no model can be chosen or the server is unreachable."""
        model = await self.resolve_model()
        return await self.budget.profiles.get(self.backend, model)

    async def resolve_model(self) -> str:
        if self.config.model:
            return self.config.model
        models = await self.backend.list_models()
        # the first model that can converse (an embedding model cannot)
        for model in models:
            if (await self.budget.profiles.get(self.backend, model.name)).for_chat:
                self.config.model = model.name
                return model.name
        raise NoModel(
            _(
                "Aucun modèle de conversation n'est installé dans Ollama. Téléchargez-en un, "
                "par exemple « ollama pull qwen2.5-coder:7b »."
            )
        )


@dataclass
class _Reply:
    """What one model request produced."""

    content: str = ""
    calls: list[NativeToolCall] = field(default_factory=list)
    prompt_eval_count: int = 0
    eval_count: int = 0
    figures: RoundFigures | None = None  # this request's counts and times (answer figures)
    done_reason: str = ""  # "length": the model hit its length limit mid-answer
    answer_id: int | None = None  # the stored, streaming assistant message
    text_form: str = ""  # the calls were written as text in this form (core.llm.textcalls)
    thinking: str = ""  # the reasoning streamed with it
    thinking_started: float | None = None  # monotonic time of its first piece
    thinking_ended: float | None = None  # ... and of the first answer (or the end)
    shown: bool = False  # something (answer or reasoning) reached the consumer
    stop: StopReason | None = None  # a cap or the repetition guard ended it (core.llm.caps)
    limit: ReplyLimit | None = None  # what watched its stream

    def thinking_seconds(self) -> float | None:
        if self.thinking_started is None:
            return None
        ended = self.thinking_ended or time.monotonic()
        return round(ended - self.thinking_started, 1)


@dataclass(frozen=True, slots=True)
class _Rewind:
    """Where a regenerated answer or an edited message branches off (see core.branches)."""

    kind: str  # "regenerate" or "edit"
    message_id: int | None


class _Turn:
    """The state of one turn; each method is one step of it."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.store = agent.store
        self.conversation_id = ""
        self.history: list[ChatMessage] = []
        self.skill: Skill | None = None
        self.failing: dict[str, CheckReport] = {}
        self.written: set[str] = set()  # files this turn's tools wrote (display paths)
        self.meter = StatsMeter()
        self.tool_rounds = 0
        self.reply = _Reply()
        self.notices_shown: set[str] = set()  # budget notices repeat each round: show once
        self.unanswered: list[CallRecord] = []  # this round's calls still without a result
        self.turn_lock: TurnLock | None = None  # held from loading the history to the end
        self.images: tuple[ImageAttachment, ...] = ()  # sent with the user's new message
        self.files: tuple[FileAttachment, ...] = ()  # ... and the files after its words
        self.agents_md: AgentsMd | None = None  # the workspace's, read for this turn
        self.mode: ModelMode | None = None  # set once the model is known
        self.turn_start = 0  # index in `history` of this turn's first message
        self.tools_ran = False
        self.sent: FittedRequest | None = None  # the last request, as fitted
        self.text = ""  # the user's message (on a retry: the last one, read from the history)
        self.model = ""  # resolved once the conversation is open
        self.caps = AnswerCaps()  # the model's caps, once it is known
        self.clock = AnswerClock(0)
        self.memory: TurnMemory | None = None  # this turn's recall and kept memory
        self.passages: TurnPassages | None = None  # the workspace passages recalled
        self.rewind: _Rewind | None = None  # a regenerated answer or an edited message
        self.turn = 0  # its number in the conversation (core.messages.ChatMessage.turn)
        self.compacted = False  # at most one summary a turn (core.compaction)
        self.shrink_old = False  # earlier turns' long tool results go shrunk
        self.plan: tuple[str, ...] = ()  # this turn's guide (core.plan)
        self.reviewed = False  # the one self-review pass ran
        self.review_problem = ""  # what it sent back for a fix

    async def run(
        self,
        text: str,
        conversation_id: str | None,
        *,
        resume: bool,
        images: tuple[ImageAttachment, ...] = (),
        rewind: _Rewind | None = None,
    ) -> AsyncGenerator[Event, None]:
        self.images = images
        self.rewind = rewind
        try:
            async for event in self._run(text, conversation_id, resume=resume):
                yield event
        except StoreUnavailable as exc:  # the history is locked or unwritable: say so
            yield Error(str(exc))
            yield Done("error", self.conversation_id or None, self.meter.stats(self.tool_rounds))
        finally:
            if self.memory is not None:
                self.memory.cancel()
            if self.passages is not None:
                self.passages.cancel()
            # Cancelled (Stop button) or the consumer went away: keep what was said.
            with contextlib.suppress(StoreUnavailable):
                self._answer_interrupted_calls()
                self._close_answer(cut=True)
            if self.turn_lock is not None:
                self.turn_lock.release()

    async def _run(
        self, text: str, conversation_id: str | None, *, resume: bool
    ) -> AsyncIterator[Event]:
        """The turn's steps in order; a step that ends the turn yields Done and the rest is
        skipped."""
        self.text = text
        steps: tuple[Callable[[], AsyncIterator[Event]], ...] = (
            lambda: self._open_conversation(conversation_id, resume=resume),
            lambda: self._announce(resume=resume),
            self._make_plan,
            self._rounds,
        )
        for step in steps:
            async for event in step():
                yield event
                if isinstance(event, Done):
                    return

    async def _open_conversation(
        self, conversation_id: str | None, *, resume: bool
    ) -> AsyncIterator[Event]:
        """Take the conversation (made here when new) and its history; on a retry, the
        text is the user's last message."""
        if conversation_id is not None and not self.store.exists(conversation_id):
            yield Error(_("Conversation introuvable : {id}").format(id=conversation_id))
            yield Done("error", None)
            return
        if conversation_id is not None:
            async for event in self._wait_for_turn(conversation_id):
                yield event
        if conversation_id is not None and self.rewind is not None:
            self.conversation_id = conversation_id
            refusal = self._branch_off(self.rewind)
            if refusal is not None:
                yield Error(refusal)
                yield Done("error", conversation_id)
                return
        if resume:
            assert conversation_id is not None
            self.conversation_id = conversation_id
            self._load_history()
            # the user's own message, not the harness's check follow-up
            last_user = next(
                (m for m in reversed(self.history) if m.role == "user" and m.origin == "user"),
                None,
            )
            if last_user is None:
                yield Error(_("Rien à réessayer dans cette conversation."))
                yield Done("error", conversation_id)
                return
            said = last_user.meta.said
            self.text = last_user.content if said is None else last_user.content[:said]
        else:
            root = self.agent.workspace_root
            if conversation_id is None:  # new: no other turn knows it yet
                conversation_id = self.store.create(
                    conversation_title(self.text), str(root) if root is not None else None
                )
                self.turn_lock = self.store.lock_turn(conversation_id)
            self.conversation_id = conversation_id
            self._load_history()
        self.agent.last_conversation = self.conversation_id
        self.turn_start = len(self.history)
        self.turn = self.store.last_turn(self.conversation_id) + 1

    def _branch_off(self, rewind: _Rewind) -> str | None:
        """End the branch shown where the new one starts (under the turn lock); the sentence
        that says why it cannot, or None."""
        checkpoints = self.agent.changes.store if self.agent.changes is not None else None
        try:
            left = rewind_at(
                self.store, checkpoints, self.conversation_id, rewind.message_id, rewind.kind
            )
        except NotPersons as exc:
            return str(exc)
        notice = left_behind_notice(left)
        if notice is not None:  # the files the branch left behind: said, never undone silently
            self.agent.pending_notices.append(notice)
        return None

    async def _announce(self, *, resume: bool) -> AsyncIterator[Event]:
        """Store the user's message, pick the skill, get the tools and the model ready,
        and say what the person should know before the answer."""
        if self.images:
            # a model that cannot see gets nothing, and nothing is stored
            refusal = await self._refuse_images()
            if refusal is not None:
                yield Error(refusal)
                yield Done("error", self.conversation_id)
                return
        if self.agent.memories is not None:  # the recall runs while the tools get ready
            self.memory = TurnMemory.start(
                self.agent.memories, self.text, self.conversation_id, keep_asked=not resume
            )
        if self.agent.knowledge is not None:
            self.passages = TurnPassages.start(self.agent.knowledge, self.text)
        if self.agent.config.skills_enabled and self.agent.pick_skill is not None:
            self.skill = self.agent.pick_skill(self.text)
        # decided before the turn starts: the whole turn runs on one model
        code_model = code_turn_model(self.agent.config.code_model, self.skill)
        badge = SkillUsed(self.skill.name, self.skill.title, code_model) if self.skill else None
        if not resume:
            files = self.files
            meta = MessageMeta(
                skill=badge,
                files=tuple(FileChip(f.name, f.size, f.kind, f.cut) for f in files),
                said=len(self.text) if files else None,
            )
            content = message_text(self.text, files)
            self._remember(ChatMessage("user", content, meta=meta, images=self.images))
        if self.agent.changes is not None:
            self.agent.changes.begin(self.conversation_id, self.turn)
        if badge is not None:
            yield badge

        pending, self.agent.pending_notices = self.agent.pending_notices, []
        for notice in pending:
            yield Notice(notice, "setup")
        for notice in await self.agent.toolbox.prepare():
            yield Notice(notice, "tools_unavailable")
        root = self.agent.workspace_root
        if root is not None and self.agent.config.agents_md:
            self.agents_md = read_agents_md(root)
            if self.agents_md is not None and self.agents_md.problem:
                yield Notice(self.agents_md.problem, "agents_md")
        for recall in (self.memory, self.passages):
            if recall is not None:
                async for event in recall.events():
                    yield event
        try:
            self.model = code_model or await self.agent.resolve_model()
            self.mode = await self._mode(self.model)
        except BackendError as exc:
            yield Error(str(exc))
            yield Done("error", self.conversation_id)
            return
        self.caps = self.agent.config.caps_for(self.model)
        self.clock = AnswerClock(self.caps.timeout_s)
        for event in self._mode_notices(self.model):
            yield event

    async def _rounds(self) -> AsyncIterator[Event]:
        """Ask the model, run the tools it calls, send failing checks back once; until an
        answer ends the turn."""
        model = self.model
        reason: DoneReason = "completed"
        followup_sent = False
        tool_rounds = 0
        while True:
            specs = self.agent.toolbox.specs()
            try:
                async for event in self._stream_reply(model, specs):
                    yield event
            except BackendError as exc:
                self._close_answer(cut=True)
                yield Error(str(exc))
                yield Done("error", self.conversation_id, self.meter.stats(self.tool_rounds))
                return
            reply = self.reply
            if reply.stop is not None:  # a cap or the repetition guard: the turn ends here
                yield self._stopped(reply)
                reason = reply.stop
                break

            if reply.calls:
                if tool_rounds >= self.agent.config.max_rounds:
                    self._close_answer(cut=False)
                    yield Notice(
                        _("Limite de {n} tours d'outils atteinte : le tour s'arrête ici.").format(
                            n=self.agent.config.max_rounds
                        ),
                        "max_rounds",
                    )
                    reason = "max_rounds"
                    break
                tool_rounds += 1
                self.tool_rounds = tool_rounds
                self.tools_ran = True
                async for event in self._run_tools(reply.calls):
                    yield event
                continue

            if not reply.content.strip():
                # a turn that ends with no word (the reasoning, if any, is kept)
                self._close_answer(cut=True)
                if not self.tools_ran:
                    yield Error(empty_answer_message())
                    yield Done("error", self.conversation_id, self.meter.stats(self.tool_rounds))
                    return
                yield Notice(empty_after_tools_notice(), "empty_after_tools")
                break
            self._close_answer(cut=False)
            if self.failing and not followup_sent and self.agent.config.auto_checks:
                followup_sent = True
                yield self._send_checks_back()
                continue
            if self.failing:
                yield Notice(
                    _("La vérification échoue toujours pour {files}.").format(
                        files=", ".join(sorted(self.failing))
                    ),
                    "check_failing",
                )
            if self.agent.config.review and not self.reviewed:
                async for event in self._review(reply.content):
                    yield event
                if self.review_problem:
                    continue  # its one fix, in this turn
            elif self.review_problem:
                summary = _("relu et corrigé : {problem}").format(problem=self.review_problem)
                yield self._review_card(changed=True, summary=summary)
            break
        if (notice := self._no_tool_notice()) is not None:
            yield notice
        yield Done(reason, self.conversation_id, self.meter.stats(self.tool_rounds))

    def _no_tool_notice(self) -> Notice | None:
        """Tools were offered, the request needed one, the model used none: said, so that a
        paragraph describing a file does not pass for having written it."""
        offered = self.mode is not None and self.mode.tools != "none"
        if self.tools_ran or not offered or not self.agent.toolbox.names():
            return None
        return Notice(no_tool_used_notice(), "no_tool_used") if needs_tool(self.text) else None

    def _send_checks_back(self) -> Notice:
        """The failing checks go back to the model once, as a message of the harness."""
        files = ", ".join(sorted(self.failing))
        self._remember(ChatMessage("user", check_followup(self.failing.values()), origin="harness"))
        return Notice(
            _(
                "La vérification échoue encore pour {files} : Loki renvoie les problèmes "
                "au modèle pour une correction."
            ).format(files=files),
            "check_followup",
        )

    def _stopped(self, reply: _Reply) -> Notice:
        """Keep what the reply said (without a loop's extra copies), marked as cut; the
        notice that says why it ended."""
        limit = reply.limit
        cap = self.caps.max_tokens
        # the server's own limit (a full context) is not the answer's cap: said apart
        at_cap = cap > 0 and max(reply.eval_count, limit.pieces if limit else 0) >= cap
        notice = Notice(length_notice(cap if at_cap else 0), "length")
        if reply.stop == "timeout":
            notice = Notice(timeout_notice(self.caps.timeout_s), "timeout")
        elif reply.stop == "repetition" and limit is not None and limit.loop is not None:
            if limit.loop_in_thinking:
                reply.thinking = trim_loop(reply.thinking, limit.loop)
            else:
                reply.content = trim_loop(reply.content, limit.loop)
            notice = Notice(repetition_notice(limit.loop), "repetition")
        reply.calls = []  # a call cut off with its reply is not run
        self._close_answer(cut=True)
        return notice

    async def _wait_for_turn(self, conversation_id: str) -> AsyncIterator[Event]:
        """Take the conversation's turn lock, waiting (with a notice) while another turn,
        here or in another process, runs; an Error and Done when it takes too long."""
        deadline = time.monotonic() + self.agent.config.turn_wait_s
        self.turn_lock = self.store.lock_turn(conversation_id)
        if self.turn_lock is not None:
            return
        yield Notice(
            _(
                "Un autre tour est en cours dans cette conversation (une autre fenêtre ou "
                "commande) : celui-ci attend qu'il se termine."
            ),
            "turn_waiting",
        )
        while self.turn_lock is None:
            if time.monotonic() >= deadline:
                minutes = max(1, round(self.agent.config.turn_wait_s / 60))
                yield Error(
                    _(
                        "Un autre tour occupe cette conversation depuis plus de {minutes} min : "
                        "réessayez quand il sera fini, ou continuez dans une nouvelle "
                        "conversation."
                    ).format(minutes=minutes)
                )
                yield Done("error", conversation_id)
                return
            await asyncio.sleep(TURN_POLL_S)
            self.turn_lock = self.store.lock_turn(conversation_id)

    # --- the model and how to talk to it ---------------------------------------------

    async def _mode(self, model: str) -> ModelMode:
        """The turn's mode for `model`. Raises BackendError (unreachable server)."""
        profile = await self.agent.budget.profiles.get(self.agent.backend, model)
        if not profile.for_chat:
            raise BackendError(not_for_chat_message(model))
        config = self.agent.config
        return resolve_mode(profile, config.think, config.tool_modes)

    def _mode_notices(self, model: str) -> list[Notice]:
        """Said once: prompted tools (per conversation), an unknown context (per session)."""
        assert self.mode is not None
        notices = []
        prompted_before = any(m.meta.prompted_tools for m in self.history)
        if self.mode.tools == "prompted" and self.agent.toolbox.names() and not prompted_before:
            notices.append(Notice(prompted_notice(model), "prompted_tools"))
        if self.mode.profile.context_length is None and self.agent.budget.tell_unknown_context(
            model
        ):
            assumed = effective_context(self.agent.config.num_ctx, self.mode.profile).tokens
            notices.append(Notice(unknown_context_notice(model, assumed), "context_unknown"))
        return notices + self._template_notices(model)

    def _template_notices(self, model: str) -> list[Notice]:
        """Said once per model and session: instructions folded, a model not made for chat."""
        assert self.mode is not None
        profile, profiles = self.mode.profile, self.agent.budget.profiles
        host = self.agent.backend.host
        notices = []
        if profile.chat_template is False and profiles.tell_once(host, model, "base_model"):
            notices.append(Notice(base_model_notice(model), "base_model"))
        if profile.system_slot is False and profiles.tell_once(host, model, "system_folded"):
            notices.append(Notice(system_folded_notice(model), "system_folded"))
        return notices

    async def _refuse_images(self) -> str | None:
        """Why the images cannot go to the model (None: they can)."""
        try:
            model = await self.agent.resolve_model()
            # an OpenAI-compatible server is asked once whether the model takes images
            sees = await self.agent.budget.profiles.takes_images(self.agent.backend, model)
        except BackendError as exc:
            return str(exc)
        return None if sees else no_vision_message(model)

    # --- one model request ---------------------------------------------------------

    def _system_texts(self) -> list[str]:
        assert self.mode is not None
        specs_names = self.agent.toolbox.names() if self.mode.tools != "none" else []
        root = str(self.agent.workspace_root) if self.agent.workspace_root else None
        texts = [system_prompt(root, specs_names)]
        texts += instruction_texts(self.agent.config.instructions, self.agents_md)
        if self.skill is not None:
            # this turn only: never stored, so the next turn's request does not carry it
            texts.append(self.skill.body)
        for recall in (self.memory, self.passages):
            if recall is not None and (recalled := recall.system_text()):
                texts.append(recalled)  # this turn only, like the skill
        summary = latest_summary(self.history)
        if summary is not None:
            texts.append(SUMMARY_HEADER + summary.text)
        if self.plan:
            texts.append(plan_guide(self.plan))
        return texts

    def _history_for_request(self) -> list[ChatMessage]:
        """The history as the model may see it: after the newest summary's cover and
        without Loki's cards (core.compaction); cut answers marked as cut, except those
        that end it (see _sent_history); reasoning only on this turn's tool calls
        (Ollama's tool-calling docs: send it back with the calls); images only to a vision
        model; earlier turns' long tool results shrunk once the context fills up."""
        assert self.mode is not None
        vision = self.mode.profile.vision
        summary = latest_summary(self.history)
        indices = visible_to_model(self.history, summary.covers if summary else 0)
        shown = _sent_history([self.history[i] for i in indices])
        sent = []
        for index, message in zip(indices, shown, strict=False):
            keep_thinking = (
                index >= self.turn_start and message.role == "assistant" and message.tool_calls
            )
            if (message.thinking and not keep_thinking) or (message.images and not vision):
                message = dataclasses.replace(
                    message,
                    thinking=message.thinking if keep_thinking else "",
                    images=message.images if vision else (),
                )
            if self.shrink_old and index < self.turn_start:
                message = shrink_old_results(message)
            sent.append(message)
        return sent

    async def _stream_reply(self, model: str, specs: list[ToolSpec]) -> AsyncIterator[Event]:
        """One reply; a refusal the server explains (tools, thinking, a context too small)
        is answered once by changing the request and sending it again."""
        assert self.mode is not None
        mode, overflowed = self.mode, False
        while True:
            try:
                async for event in self._request(model, specs):
                    yield event
                return
            except ToolsUnsupported as exc:
                if self.reply.shown or mode.tools != "native" or mode.forced:
                    raise BackendError(tools_refused_message(model, str(exc))) from None
                self.agent.budget.profiles.strike(self.agent.backend.host, model, "tools")
                mode.tools = "prompted"
                for event in self._mode_notices(model):
                    yield event
            except ThinkingUnsupported:
                if self.reply.shown or mode.think is None:
                    raise
                self.agent.budget.profiles.strike(self.agent.backend.host, model, "thinking")
                mode.think = None
                yield Notice(thinking_refused_notice(model), "thinking_refused")
            except ContextOverflow as exc:
                if self.reply.shown or overflowed or self.sent is None:
                    raise
                overflowed = True
                yield Notice(
                    self.agent.budget.learn_overflow(model, self.sent, exc.n_ctx, exc.n_prompt),
                    "context_overflow",
                )

    async def _request(self, model: str, specs: list[ToolSpec]) -> AsyncIterator[Event]:
        assert self.mode is not None
        self.reply = reply = _Reply()
        budget, num_ctx = self.agent.budget, self.agent.config.num_ctx
        offered = specs if self.mode.tools != "none" else []
        window = await budget.window(self.agent.backend, model, num_ctx)
        async for event in self._compact(model, window, offered):
            yield event
        # Fit the request into the context (oldest history, then costly MCP tools, left out)
        # so that Ollama never silently cuts the system prompt and the tools.
        self.sent = request = budget.fit(
            model=model,
            window=window,
            system=self._system_texts(),
            history=self._history_for_request(),
            tools=offered,
        )
        for notice in request.notices:
            if self._once(notice):
                yield Notice(notice, "context_trimmed")
        messages, tools = request.messages, request.tools
        if self.mode.tools == "prompted":
            messages, tools = prompted_request(messages, tools, offered), []
        if self.mode.profile.system_slot is False:  # the template would drop them
            messages = fold_system(messages)
        reply.figures = self.meter.begin_round(request.estimate, request.window)
        # Small models often write a tool call as text: hold back what could be one.
        recover = offered and self.agent.config.text_calls
        reader = ReplyReader([spec.name for spec in offered] if recover else None)
        # num_ctx only when the person set one (core.llm.context_size)
        options: dict[str, Any] = dict(request_options(num_ctx))
        if self.caps.max_tokens:
            options[NUM_PREDICT] = self.caps.max_tokens
        stream = self.agent.backend.chat(
            model=model, messages=messages, tools=tools, options=options, think=self.mode.think
        )
        reply.limit = ReplyLimit(self.caps.max_tokens)
        try:
            # the server's silences are said as they happen (core.llm.quiet)
            remaining = self.clock.remaining()  # the answer's time cap, one timer for it
            deadline = None if remaining is None else asyncio.get_running_loop().time() + remaining
            marked = marking_quiet(stream, self.agent.quiet_s, deadline)
            async for event in self._consume(marked, reader, reply.limit):
                yield event
        except BackendError:
            for event in self._pieces(reader.abandon()):  # a cut reply is an answer
                yield event
            self._count_unreported(reply)
            raise
        if reply.stop is None and reply.done_reason == "length":  # the server's own cap
            reply.stop = "length"
        if reply.stop is not None:
            for event in self._pieces(reader.abandon()):
                yield event
            self._count_unreported(reply)
            return
        async for event in self._finish_reply(model, reader, request):
            yield event

    async def _consume(
        self,
        stream: AsyncIterator[ChatChunk | Quiet | TimeUp],
        reader: ReplyReader,
        limit: ReplyLimit,
    ) -> AsyncIterator[Event]:
        """The reply's chunks as events, until its end, its time cap or its limit."""
        reply = self.reply
        self.clock.start()
        try:
            while (chunk := await anext(stream, None)) is not None:
                if isinstance(chunk, TimeUp):
                    reply.stop = "timeout"
                    break
                if isinstance(chunk, Quiet):
                    yield Notice(quiet_notice(chunk.seconds), "server_silent")
                    continue
                if chunk.notice and self._once(chunk.notice):
                    yield Notice(chunk.notice, "line_skipped")
                if chunk.thinking:
                    yield self._think(chunk.thinking)
                for event in self._pieces(reader.feed(chunk.content) if chunk.content else []):
                    yield event
                reply.calls += chunk.tool_calls
                if chunk.done:
                    reply.prompt_eval_count = chunk.prompt_eval_count or 0
                    reply.eval_count = chunk.eval_count or 0
                    reply.done_reason = chunk.done_reason or ""
                    _count_round(reply, chunk.eval_duration_ns)
                elif (stop := limit.check(chunk)) is not None:
                    reply.stop = stop
                    break
        finally:
            self.clock.stop()
            if isinstance(stream, AsyncGenerator):  # the connection closes now, not later
                await stream.aclose()

    def _count_unreported(self, reply: _Reply) -> None:
        """The reply's end for its figures; when the server gave no counts (a reply it did
        not finish, a server that sends no usage), the streamed pieces stand in for
        `eval_count` and the figures are estimated from the streamed text."""
        if not reply.eval_count and reply.limit is not None:
            reply.eval_count = reply.limit.pieces
            if reply.figures is not None:
                reply.figures.pieces = reply.limit.pieces
        _streamed(reply)

    async def _finish_reply(
        self, model: str, reader: ReplyReader, request: FittedRequest
    ) -> AsyncIterator[Event]:
        reply = self.reply
        rest, recovery = reader.finish()
        for event in self._pieces(rest):
            yield event
        if recovery is not None and not reply.calls:
            reply.calls = [NativeToolCall(call.name, call.arguments) for call in recovery.calls]
            reply.text_form = recovery.form
            if self.mode is None or self.mode.tools != "prompted":  # prompted: the way asked
                yield Notice(recovered_notice(recovery), "text_call_recovered")
        if reply.thinking_started is not None and reply.thinking_ended is None:
            reply.thinking_ended = time.monotonic()
        budget = self.agent.budget
        warning = budget.observe(model, request, reply.prompt_eval_count)
        if warning and self._once(warning):
            yield Notice(warning, "prompt_cut")
        self._count_unreported(reply)

    def _pieces(self, segments: list[tuple[bool, str]]) -> list[Event]:
        return [
            self._think(text) if reasoning else self._show(text) for reasoning, text in segments
        ]

    def _think(self, text: str) -> Thinking:
        """Reasoning is shown as it comes and kept with the answer."""
        reply = self.reply
        if reply.thinking_started is None:
            reply.thinking_started = time.monotonic()
        reply.thinking += text
        _first_piece(reply)
        reply.shown = True
        return Thinking(text)

    def _show(self, text: str) -> Token:
        """Store answer text as it is shown (a crash keeps what the user saw)."""
        reply = self.reply
        if reply.answer_id is None:
            reply.answer_id = self.store.start_answer(self.conversation_id, turn=self.turn)
        if reply.thinking_started is not None and reply.thinking_ended is None:
            reply.thinking_ended = time.monotonic()
        self.store.append_answer_text(reply.answer_id, text)
        reply.content += text
        _first_piece(reply)
        reply.shown = True
        return Token(text)

    def _once(self, notice: str) -> bool:
        """True the first time this turn shows `notice`."""
        if notice in self.notices_shown:
            return False
        self.notices_shown.add(notice)
        return True

    # --- intelligence: compaction, plan, self-review (docs/intelligence.md) -----------

    async def _compact(
        self, model: str, window: int, offered: list[ToolSpec]
    ) -> AsyncIterator[Event]:
        """When the request would pass COMPACT_AT of what a request may use: shrink the long
        tool results of earlier turns, then, if that is not enough, summarise the turns
        before the recent ones in one call (at most once a turn). A failed summary is a
        notice: the budget then leaves the oldest messages out, as before."""
        if not self.agent.config.compaction or self.compacted:
            return
        budget = self.agent.budget
        usable = window - answer_reserve(window)

        def over() -> bool:
            cost = budget.estimate_request(
                model, self._system_texts(), self._history_for_request(), offered
            )
            return cost > usable * COMPACT_AT

        if not over():
            return
        self.shrink_old = True
        if not over():
            return
        self.compacted = True
        previous = latest_summary(self.history)
        covered = previous.covers if previous else 0
        visible = visible_to_model(self.history, covered)
        cost = {i: message_tokens(shrink_old_results(self.history[i])) for i in visible}
        starts = [i for i in visible if self.history[i].role == "user"]
        last_user = max((i for i in starts if self.history[i].origin == "user"), default=-1)
        scale = budget.factor(model) * (1 + SAFETY_MARGIN)
        keep = int(usable * KEEP_RECENT / scale)
        cover = choose_cover(self.history, covered, last_user, keep, cost)
        if cover is None:
            return
        older = [shrink_old_results(self.history[i]) for i in visible if i < cover]
        room = window - SUMMARY_TOKENS - estimate_tokens(SUMMARY_SYSTEM) - 64
        async for event in self._summarise(model, previous, older, cover, int(room / scale)):
            yield event

    async def _summarise(
        self,
        model: str,
        previous: Summary | None,
        older: list[ChatMessage],
        cover: int,
        room: int,
    ) -> AsyncIterator[Event]:
        """The summary call, and the summary stored as its card."""
        try:
            answer = await ask_once(
                self.agent.backend,
                model=model,
                system=SUMMARY_SYSTEM,
                user=summary_input(previous, older, room),
                options=request_options(self.agent.config.num_ctx),
            )
        except BackendError as exc:
            yield Notice(
                _(
                    "Le résumé des échanges précédents a échoué ({error}) : les messages les "
                    "plus anciens ne sont pas envoyés au modèle."
                ).format(error=exc),
                "context_trimmed",
            )
            return
        if not answer.text:
            yield Notice(
                _("Le modèle n'a rien écrit pour résumer les échanges précédents."),
                "context_trimmed",
            )
            return
        self._remember(
            ChatMessage("system", answer.text, origin="harness", meta=MessageMeta(compacted=cover))
        )
        count = len(older)
        message = ngettext(
            "{n} message ancien a été résumé pour tenir dans le contexte ; "
            "l'historique complet reste enregistré.",
            "{n} messages anciens ont été résumés pour tenir dans le contexte ; "
            "l'historique complet reste enregistré.",
            count,
        ).format(n=count)
        yield Compacted(answer.text, cover, message)

    async def _make_plan(self) -> AsyncIterator[Event]:
        """A numbered plan first, for a request of several actions (when the plan step is
        on); it is shown as a card and guides the rest of the turn."""
        if not self.agent.config.plan or not needs_plan(self.text):
            return
        try:
            answer = await ask_once(
                self.agent.backend,
                model=self.model,
                system=PLAN_SYSTEM,
                user=self.text,
                options=request_options(self.agent.config.num_ctx),
            )
        except BackendError as exc:
            yield Notice(_("Pas de plan pour ce tour : {error}").format(error=exc), "plan_skipped")
            return
        self.plan = parse_plan(answer.text)
        if not self.plan:
            yield Notice(
                _("Le modèle n'a pas écrit de plan : le tour continue sans."), "plan_skipped"
            )
            return
        listed = "\n".join(f"{n}. {step}" for n, step in enumerate(self.plan, 1))
        self._remember(
            ChatMessage("system", listed, origin="harness", meta=MessageMeta(plan=self.plan))
        )
        yield Plan(self.plan)

    async def _review(self, answer: str) -> AsyncIterator[Event]:
        """The one self-review pass over the final answer. A problem it names is sent back
        (a harness note) and `review_problem` is set: the caller runs one more round."""
        self.reviewed = True
        try:
            verdict = await ask_once(
                self.agent.backend,
                model=self.model,
                system=REVIEW_SYSTEM,
                user=review_input(self.text, answer, self.written, self.failing.values()),
                options=request_options(self.agent.config.num_ctx),
            )
        except BackendError as exc:
            yield Notice(
                _("La relecture n'a pas pu se faire : {error}").format(error=exc), "review_skipped"
            )
            return
        problem = parse_review(verdict.text)
        if problem is None:
            yield self._review_card(changed=False, summary=_("relu : rien à changer"))
            return
        self.review_problem = problem
        self._remember(ChatMessage("user", review_followup(problem), origin="harness"))

    def _review_card(self, *, changed: bool, summary: str) -> Review:
        meta = MessageMeta(review=summary, review_changed=changed)
        self._remember(ChatMessage("system", summary, origin="harness", meta=meta))
        return Review(changed, summary)

    # --- tools ---------------------------------------------------------------------

    async def _run_tools(self, calls: list[NativeToolCall]) -> AsyncIterator[Event]:
        records = [
            CallRecord(f"call_{secrets.token_hex(4)}", c.name, _as_args(c.arguments)) for c in calls
        ]
        self._close_answer(cut=False, tool_calls=records)
        self.unanswered = list(records)
        for record, call in zip(records, calls, strict=True):
            yield ToolCall.preview(record.id, record.name, record.args)
            if self.agent.changes is not None:
                self.agent.changes.call_id = record.id
            outcome = await self.agent.toolbox.call(call.name, call.arguments)
            for notice in self.agent.changes.take_notices() if self.agent.changes else []:
                yield Notice(notice, "checkpoint")
            output = outcome.output
            change = outcome.change
            report = await self._check_written(outcome)
            if report is not None:
                yield report
                output += check_feedback(report)
            changed = outcome.shell_changes
            # the card is built again from these when the conversation is reopened
            meta = MessageMeta(
                ok=outcome.ok,
                summary=outcome.summary,
                change=change,
                check=report,
                shell_changes=tuple(changed),
                facts=facts_of(outcome.summary),
            )
            yield ToolResult(
                record.id,
                record.name,
                outcome.ok,
                outcome.summary,
                output,
                outcome.images,
                change=change,
                shell_changes=tuple(changed),
            )
            # a vision model sees a tool's images (an MCP screenshot); another reads the
            # placeholder the output already has
            seen = outcome.images if self.mode is not None and self.mode.profile.vision else ()
            self._remember(
                ChatMessage(
                    "tool",
                    output,
                    tool_call_id=record.id,
                    tool_name=record.name,
                    meta=meta,
                    images=seen,
                )
            )
            self.unanswered.remove(record)

    def _answer_interrupted_calls(self) -> None:
        """Give each call a Stop interrupted a result: a call with no answer would be sent
        again with every later request of the conversation."""
        meta = MessageMeta(ok=False, summary=_("interrompu par l'utilisateur"))
        for record in self.unanswered:
            self._remember(
                ChatMessage(
                    "tool",
                    INTERRUPTED_RESULT,
                    tool_call_id=record.id,
                    tool_name=record.name,
                    meta=meta,
                )
            )
        self.unanswered = []

    async def _check_written(self, outcome: ToolOutcome) -> CheckReport | None:
        """Check a file the tool just wrote, and track which written files still fail."""
        report = outcome.check_report
        if report is not None:  # run_check made its own report
            # only files this turn wrote are followed up: checking a user's file is no
            # promise to rewrite it
            if report.path in self.written:
                self._track(report)
            return report
        checker = self.agent.checker
        path = outcome.changed_path
        if outcome.ok and path is not None:
            self.written.add(self._display_path(path))
        if not (outcome.ok and path and checker and self.agent.config.auto_checks):
            return None
        if not checker.can_check(path):
            return None
        result = await checker.check(path, self.agent.workspace_root)
        report = CheckReport(self._display_path(path), result.ok, result.problems, result.skipped)
        self._track(report)
        return report

    def _track(self, report: CheckReport) -> None:
        if report.ok:
            self.failing.pop(report.path, None)
        else:
            self.failing[report.path] = report

    def _display_path(self, path: Path) -> str:
        root = self.agent.workspace_root
        if root is not None and path.is_relative_to(root):
            return path.relative_to(root).as_posix()
        return str(path)

    # --- history -------------------------------------------------------------------

    def _load_history(self) -> None:
        """Read the conversation (under its turn lock); a call a crash left without a result
        gets an "interrompu" one, so no request ever carries an unanswered call."""
        meta = MessageMeta(ok=False, summary=_("interrompu : Loki s'est arrêté avant la fin"))

        def interrupted(call: CallRecord) -> ChatMessage:
            return ChatMessage(
                "tool", CRASH_RESULT, tool_call_id=call.id, tool_name=call.name, meta=meta
            )

        self.history, at_end = answer_orphans(
            self.store.messages(self.conversation_id), interrupted
        )
        for message in at_end:
            self.store.append(self.conversation_id, message)

    def _remember(self, message: ChatMessage) -> None:
        message = dataclasses.replace(message, turn=self.turn)
        self.store.append(self.conversation_id, message)
        self.history.append(message)

    def _close_answer(self, *, cut: bool, tool_calls: list[CallRecord] | None = None) -> None:
        """Finish the streaming assistant message (or store a tool-call-only one)."""
        reply = self.reply
        calls = tuple(tool_calls or ())
        if reply.answer_id is None and not calls and not reply.thinking:
            return
        # A call the model wrote as text is stored as a native call (the next request shows
        # the model the proper form); `meta` keeps which form it wrote.
        meta = MessageMeta(
            text_call=reply.text_form if calls else "",
            # the notice is said once per conversation
            prompted_tools=self.mode is not None and self.mode.tools == "prompted",
            model=self.model,
            # a final answer keeps the turn's figures so far (shown again when reopened)
            figures=None if calls else self.meter.stats(self.tool_rounds),
        )
        message = ChatMessage(
            "assistant",
            reply.content,
            tool_calls=calls,
            cut=cut,
            meta=meta,
            thinking=reply.thinking,
            thinking_seconds=reply.thinking_seconds(),
            turn=self.turn,
        )
        if reply.answer_id is None:
            self._remember(message)
        else:
            self.store.finish_answer(
                reply.answer_id,
                content=reply.content,
                tool_calls=calls,
                cut=cut,
                meta=meta if meta != NO_META else None,
                thinking=message.thinking,
                thinking_seconds=message.thinking_seconds,
            )
            self.history.append(message)
        self.reply = _Reply()


def _first_piece(reply: _Reply) -> None:
    if reply.figures is not None and reply.figures.first_at is None:
        reply.figures.first_at = time.monotonic()


def _count_round(reply: _Reply, eval_duration_ns: int | None) -> None:
    """The request's end: the server's counts (0: not sent) and what was streamed, from
    which the figures are estimated when the counts are missing."""
    figures = reply.figures
    if figures is None:
        return
    figures.ended_at = time.monotonic()
    figures.prompt_tokens = reply.prompt_eval_count or None
    figures.answer_tokens = reply.eval_count or None
    figures.eval_duration_ns = eval_duration_ns


def _streamed(reply: _Reply) -> None:
    """What the round streamed, for an estimate when the server sent no counts."""
    figures = reply.figures
    if figures is None:
        return
    if figures.ended_at is None:
        figures.ended_at = time.monotonic()
    calls = "".join(f"{call.name}{call.arguments}" for call in reply.calls)
    figures.answer_text = reply.thinking + reply.content + calls


def _as_args(raw: Any) -> dict[str, Any]:
    """The arguments as the tool will get them; what cannot be parsed is kept as sent."""
    try:
        return parse_raw_arguments(raw)
    except ArgumentError:
        return {"raw": raw}


def _sent_history(history: list[ChatMessage]) -> list[ChatMessage]:
    """The history the model is sent. A cut answer goes back marked as cut (see
    ChatMessage.model_content), as chat apps do, so "continue" or "non, plutôt…" reach a
    model that knows what it said; but cut answers that end the history are left out: a retry
    answers the question afresh."""
    end = len(history)
    while end and _is_cut_answer(history[end - 1]):
        end -= 1
    return history[:end]


def _is_cut_answer(message: ChatMessage) -> bool:
    return message.role == "assistant" and message.cut and not message.tool_calls
