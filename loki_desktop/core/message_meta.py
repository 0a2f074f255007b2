"""What a stored message carries beside its content, typed; its one conversion to stored JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from loki_desktop.core.answer_stats import AnswerStats
from loki_desktop.core.events import ChangedFile, CheckReport, Problem, SkillUsed, report_json
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.said import Facts, word


@dataclass(frozen=True, slots=True)
class UndoNote:
    """What an undo or a redo moved (the harness note it left; core.changes.note)."""

    direction: Literal["undo", "redo"]
    turn: int | None  # None: a row that did not say
    restored: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    left: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FileChip:
    """A file attached to a user message, as its chip shows it (the text is in the content)."""

    name: str
    size: int
    kind: str  # "text" or "pdf"
    cut: bool = False  # only its first part was sent


@dataclass(frozen=True, slots=True)
class MessageMeta:
    """What the window needs to show a reopened conversation again, never what the model
    needs. Each field belongs to one kind of message:

    - a user message: `skill`, the skill picked for it (its badge); `files`, the files
      attached (their chips), whose text follows the person's own `said` characters of
      the content;
    - a tool result: `ok` and `summary` (the card's head), `change` (a write's diff),
      `check` (the static check of what it wrote), `shell_changes` (the files a command
      changed);
    - an assistant message: `text_call`, the form a call written as text had
      (core.llm.textcalls; "" for a native call), and `prompted_tools`, whether tools were
      described in the prompt (the notice about it is said once per conversation);
    - a harness note: `undo`;
    - an assistant message: `model`, the model that wrote it (shown, and exported);
      `figures`, the turn's answer figures so far (core.answer_stats), shown under it;
    - a card Loki stored (role "system", never sent as it is; core.compaction): `compacted`,
      the number of messages from the start a summary stands for; `plan`, the steps of a
      plan; `review`, what a self-review said and `review_changed`, whether it changed
      the answer.
    """

    skill: SkillUsed | None = None
    ok: bool = True
    summary: str = ""
    change: FileChange | None = None
    check: CheckReport | None = None
    shell_changes: tuple[ChangedFile, ...] = ()
    text_call: str = ""
    prompted_tools: bool = False
    undo: UndoNote | None = None
    files: tuple[FileChip, ...] = ()
    said: int | None = None
    facts: Facts | None = None  # a tool result's summary as facts, worded when shown
    model: str = ""
    figures: AnswerStats | None = None
    compacted: int = 0
    plan: tuple[str, ...] = ()
    review: str = ""
    review_changed: bool = False

    @property
    def shown_summary(self) -> str:
        """The summary in the language of now when its facts were kept, else as stored."""
        return (word(self.facts) if self.facts is not None else "") or self.summary

    def to_json(self) -> dict[str, Any]:
        """The stored shape (keys as older versions wrote them); only what is set, so an
        empty dict for a message that carries nothing."""
        data: dict[str, Any] = {}
        if self.skill is not None:
            data["skill"] = {"name": self.skill.name, "title": self.skill.title}
            if self.skill.model:
                data["skill"]["model"] = self.skill.model
        if not self.ok or self.summary:
            data["ok"], data["summary"] = self.ok, self.summary
        if self.change is not None:
            data["change"] = self.change.as_dict()
        if self.check is not None:
            data["check"] = report_json(self.check)
        if self.shell_changes:
            data["shell_changes"] = [{"path": c.path, "kind": c.kind} for c in self.shell_changes]
        if self.text_call:
            data["text_call"] = self.text_call
        if self.prompted_tools:
            data["tools"] = "prompted"
        if self.undo is not None:
            data["undo"] = _undo_json(self.undo)
        if self.files:
            data["files"] = [
                {"name": f.name, "size": f.size, "kind": f.kind, "cut": f.cut} for f in self.files
            ]
        if self.said is not None:
            data["said"] = self.said
        if self.facts is not None:
            data["facts"] = self.facts.to_json()
        if self.model:
            data["model"] = self.model
        if self.figures is not None:
            data["figures"] = self.figures.to_json()
        if self.compacted:
            data["compacted"] = self.compacted
        if self.plan:
            data["plan"] = list(self.plan)
        if self.review:
            data["review"] = {"text": self.review, "changed": self.review_changed}
        return data

    @classmethod
    def from_json(cls, data: object) -> MessageMeta:
        """What `to_json` wrote, from a row of any version: a missing key keeps its default,
        an unknown key or a value of the wrong shape is passed over (never an exception)."""
        if not isinstance(data, dict):
            return cls()
        summary = data.get("summary")
        shell = data.get("shell_changes")
        review = data.get("review")
        return cls(
            skill=_skill(data.get("skill")),
            ok=data.get("ok") is not False,
            summary=summary if isinstance(summary, str) else "",
            change=FileChange.from_dict(data.get("change")),
            check=_check(data.get("check")),
            shell_changes=tuple(
                ChangedFile(_text(item.get("path")), _text(item.get("kind")))
                for item in (shell if isinstance(shell, list) else [])
                if isinstance(item, dict)
            ),
            text_call=_text(data.get("text_call")),
            prompted_tools=data.get("tools") == "prompted",
            undo=_undo(data.get("undo")),
            files=_files(data.get("files")),
            said=_number(data.get("said")) if "said" in data else None,
            facts=Facts.from_json(data.get("facts")),
            model=_text(data.get("model")),
            figures=AnswerStats.from_json(data.get("figures")),
            compacted=_number(data.get("compacted")),
            plan=_texts(data.get("plan")),
            review=_text(review.get("text")) if isinstance(review, dict) else "",
            review_changed=isinstance(review, dict) and review.get("changed") is True,
        )


NO_META = MessageMeta()


def _skill(data: object) -> SkillUsed | None:
    if not isinstance(data, dict):
        return None
    name, title = _text(data.get("name")), _text(data.get("title"))
    return SkillUsed(name, title, _text(data.get("model"))) if name or title else None


def _check(data: object) -> CheckReport | None:
    if not isinstance(data, dict):
        return None
    listed = data.get("problems")
    problems = tuple(
        Problem(_number(p.get("line")), _number(p.get("col")), _text(p.get("message")))
        for p in (listed if isinstance(listed, list) else [])
        if isinstance(p, dict)
    )
    ok = data.get("ok")
    skipped = data.get("skipped")
    return CheckReport(
        _text(data.get("path")),
        ok if isinstance(ok, bool) else not problems,
        problems,
        skipped if isinstance(skipped, str) and skipped else None,
    )


def _files(data: object) -> tuple[FileChip, ...]:
    return tuple(
        FileChip(
            _text(item.get("name")),
            _number(item.get("size")),
            _text(item.get("kind")),
            item.get("cut") is True,
        )
        for item in (data if isinstance(data, list) else [])
        if isinstance(item, dict)
    )


def _undo_json(note: UndoNote) -> dict[str, Any]:
    return {
        "direction": note.direction,
        "turn": note.turn,
        "restored": list(note.restored),
        "removed": list(note.removed),
        "left": list(note.left),
    }


def _undo(data: object) -> UndoNote | None:
    if not isinstance(data, dict):
        return None
    turn = data.get("turn")
    return UndoNote(
        "redo" if data.get("direction") == "redo" else "undo",
        turn if isinstance(turn, int) and not isinstance(turn, bool) else None,
        *(_texts(data.get(key)) for key in ("restored", "removed", "left")),
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _texts(value: object) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
