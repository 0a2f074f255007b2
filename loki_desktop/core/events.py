"""The typed events one agent turn yields: a closed union consumed with `match`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from loki_desktop.core.file_change import FileChange

if TYPE_CHECKING:  # messages holds MessageMeta, made of these events
    from loki_desktop.core.image_attachment import ImageAttachment

# "interrupted": written by `ask` itself when a signal (SIGINT, SIGTERM, SIGHUP) stopped it
# "length", "timeout", "repetition": the answer was stopped by its length cap, its time cap or
# the repetition guard (core.llm.caps); what came before is kept.
DoneReason = Literal[
    "completed", "max_rounds", "error", "interrupted", "length", "timeout", "repetition"
]
# The one closed list of notice codes: scripts and the eval count notices by them, so a new
# kind of notice gets its code here (never a free string). "other": a notice nobody coded yet.
NoticeCode = Literal[
    "other",
    # the answer and its caps (issue 36)
    "repetition",  # the repetition guard stopped a loop
    "length",  # the answer reached its length cap (Loki's or the server's)
    "timeout",  # the answer reached its time cap
    "no_tool_used",  # tools were offered, the task needed one, the model used none
    # instructions that may not reach the model
    "system_folded",  # the template has no system slot: the system text went into the message
    "base_model",  # the model has no chat template (a base model)
    "prompted_tools",  # tools described in the instructions, calls read in the text
    "text_call_recovered",  # a tool call written as text was read and run
    "thinking_refused",  # the server said the model cannot think
    # the context window
    "compacted",  # older history summarised or left out to fit the context
    "context_trimmed",  # messages or tool servers left out of one request to fit
    "context_overflow",  # the server runs the model with a smaller context than expected
    "context_unknown",  # the server does not say the model's context length
    "prompt_cut",  # the server cut the prompt anyway
    # the stream and the server
    "line_skipped",  # an unreadable line of the stream was skipped
    "stream_capped",  # the stream was longer than Loki accepts
    "server_silent",  # the server sent nothing for a long while
    # the turn
    "max_rounds",  # the tool-round limit stopped the turn
    "empty_after_tools",  # no answer after the tool calls
    "check_followup",  # failing checks sent back to the model once
    "check_failing",  # a written file still fails its check
    "turn_waiting",  # another turn holds the conversation
    "setup",  # settings, skills or the store had a problem when loading
    "tools_unavailable",  # a tool server could not be started or reached
    "checkpoint",  # the change recorder could not keep a file's earlier state
    # memories (core.memory)
    "memory_refused",  # a memory was not kept (a secret, a store that failed, no such memory)
    "memory_recall",  # recalling memories or workspace passages had a problem
]
NOTICE_CODES: tuple[NoticeCode, ...] = get_args(NoticeCode)
# A tool_call event carries at most this much of each string argument (a whole file given to
# write_file can be megabytes): the history keeps the call whole, once.
EVENT_ARG_PREVIEW = 2_000


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem a static check found in a file (1-based line and column)."""

    line: int
    col: int
    message: str

    def located(self, path: str) -> str:
        """The compiler-style line `path:line:col: message` (the CLI and the model read it)."""
        return f"{path}:{self.line}:{self.col}: {self.message}"


@dataclass(frozen=True, slots=True)
class Token:
    """A fragment of the model's answer, in arrival order."""

    text: str


@dataclass(frozen=True, slots=True)
class Thinking:
    """A fragment of the model's reasoning, yielded as soon as it arrives.

    Thinking models stream their reasoning (Ollama's `message.thinking`, or `<think>…</think>`
    written inside the content) before the answer; the first Thinking event comes with
    the first chunk, so a consumer can show "réfléchit…" at once. Never part of the answer.
    """

    text: str


@dataclass(frozen=True, slots=True)
class SkillUsed:
    """The expert method injected for this turn (emitted before the first token)."""

    name: str
    title: str


@dataclass(frozen=True, slots=True)
class CutArgument:
    """A string argument too long for an event: `args` carries its start, this its length."""

    name: str
    chars: int


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asked for a tool; `id` keys the matching ToolResult.

    Long string arguments are cut to EVENT_ARG_PREVIEW characters in `args` and listed in
    `cut_args` (see `preview`).
    """

    id: str
    name: str
    args: dict[str, Any]
    cut_args: tuple[CutArgument, ...] = ()

    @classmethod
    def preview(cls, call_id: str, name: str, args: dict[str, Any]) -> ToolCall:
        """The event for a call, its long string arguments cut to their start."""
        shown: dict[str, Any] = {}
        cut: list[CutArgument] = []
        for key, value in args.items():
            if isinstance(value, str) and len(value) > EVENT_ARG_PREVIEW:
                shown[key] = value[:EVENT_ARG_PREVIEW]
                cut.append(CutArgument(key, len(value)))
            else:
                shown[key] = value
        return cls(call_id, name, shown, tuple(cut))


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A workspace file a shell command changed (seen by a look before and after it)."""

    path: str  # workspace-relative, forward slashes
    kind: str  # "added", "modified" or "deleted"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool gave back; `output` is the full text the model saw.

    `images` are the images the tool returned (an MCP screenshot), for the tool card's
    thumbnails; a vision model receives them as images, another model a short placeholder.
    `shell_changes` are the files a `run_shell` command changed (its card lists them).
    `change` is the file change a write or an edit made (its diff, for the card).
    """

    id: str
    name: str
    ok: bool
    summary: str
    output: str = ""
    images: tuple[ImageAttachment, ...] = ()
    shell_changes: tuple[ChangedFile, ...] = ()
    change: FileChange | None = None


@dataclass(frozen=True, slots=True)
class CheckReport:
    """A static check of a file the agent wrote (path relative to the workspace)."""

    path: str
    ok: bool
    problems: tuple[Problem, ...] = ()
    skipped: str | None = None


def report_json(report: CheckReport) -> dict[str, Any]:
    """A report as plain JSON: the history keeps it with the tool result (the check card is
    built again from it) and `--json` prints it; `skipped` only when the check was skipped."""
    data: dict[str, Any] = {
        "path": report.path,
        "ok": report.ok,
        "problems": [{"line": p.line, "col": p.col, "message": p.message} for p in report.problems],
    }
    if report.skipped is not None:
        data["skipped"] = report.skipped
    return data


@dataclass(frozen=True, slots=True)
class RecalledItem:
    """One memory recalled for a turn, with the score that ranked it (core.memory.fusion)."""

    id: int
    text: str
    score: float
    # a passage of a workspace file (core.knowledge): its file and first line ("" for a memory)
    path: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class Recalled:
    """The memories given to the model for this turn (before its first token), shown as a
    quiet « Souvenirs : N » badge. `vectors` names the embedder used ("" : words only)."""

    items: tuple[RecalledItem, ...]
    vectors: str = ""


@dataclass(frozen=True, slots=True)
class Memorised:
    """A memory kept during the turn (the person said « retiens que… »): a card with
    *Oublier*, which deletes memory `id`."""

    id: int
    text: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user should know that does not stop the turn; `code` says which kind
    (one of NOTICE_CODES), for scripts and the eval."""

    message: str
    code: NoticeCode = "other"


@dataclass(frozen=True, slots=True)
class Error:
    """Something that stopped the turn, as one human sentence."""

    message: str


@dataclass(frozen=True, slots=True)
class Done:
    """The last event of a turn that ran to its end (completed, max_rounds or error).

    A turn its consumer cancels (the Stop button, Ctrl+C) ends without Done: the consumer
    knows it cancelled. What was said is stored, the answer marked cut.
    """

    reason: DoneReason
    session: str | None = None
    stats: dict[str, int] = field(default_factory=dict)


Event = (
    Token
    | Thinking
    | SkillUsed
    | ToolCall
    | ToolResult
    | CheckReport
    | Recalled
    | Memorised
    | Notice
    | Error
    | Done
)


def event_to_json(event: Event) -> dict[str, Any]:
    """The exact `--json` line shape of an event (also what tests compare against)."""
    match event:
        case Token(text=text):
            return {"type": "token", "text": text}
        case Thinking(text=text):
            return {"type": "thinking", "text": text}
        case SkillUsed(name=name, title=title):
            return {"type": "skill", "name": name, "title": title}
        case ToolCall(id=call_id, name=name, args=args, cut_args=cut_args):
            line: dict[str, Any] = {"type": "tool_call", "id": call_id, "name": name, "args": args}
            if cut_args:
                line["cut_args"] = [{"name": c.name, "chars": c.chars} for c in cut_args]
            return line
        case ToolResult(
            id=call_id, name=name, ok=ok, summary=summary, images=images, change=change
        ):
            shown: dict[str, Any] = {
                "type": "tool_result",
                "id": call_id,
                "name": name,
                "ok": ok,
                "summary": summary,
            }
            if images:  # only then: the line stays as it was for every other result
                shown["images"] = [
                    {"mime_type": i.mime_type, "width": i.width, "height": i.height} for i in images
                ]
            if change is not None:  # the file and its counts; the diff itself stays out
                shown["change"] = {
                    "path": change.path,
                    "kind": change.kind,
                    "added": change.added,
                    "removed": change.removed,
                }
            return shown
        case CheckReport():
            return {"type": "check", **report_json(event)}
        case Recalled(items=items, vectors=vectors):
            return {
                "type": "recall",
                "items": [_recalled_json(item) for item in items],
                "vectors": vectors,
            }
        case Memorised(id=memory_id, text=text):
            return {"type": "memorised", "id": memory_id, "text": text}
        case Notice(message=message, code=code):
            return {"type": "notice", "code": code, "message": message}
        case Error(message=message):
            return {"type": "error", "message": message}
        case Done(reason=reason, session=session):
            return {"type": "done", "reason": reason, "session": session}


def _recalled_json(item: RecalledItem) -> dict[str, Any]:
    shown: dict[str, Any] = {"id": item.id, "text": item.text, "score": item.score}
    if item.path:  # a passage of a workspace file
        shown.update(path=item.path, line=item.line)
    return shown
