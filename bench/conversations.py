"""Conversations you keep (issue 31): exporting a 1,000-turn conversation to Markdown, and
what 20 branches add to opening a conversation (its last page of messages and the versions
of the messages on it, as the window reads them)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.figures import Figure, median_of
from loki_desktop.core.export.formats import render
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.message_meta import MessageMeta
from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.persistence.history import History

TURNS = 1000
BRANCHES = 20
PAGE = 40  # the window's page (ui chat view's PAGE_SIZE)
EXPORT_RUNS = 5
OPEN_RUNS = 30
ANSWER = "Voici ce que j'ai fait, fichier par fichier, avec les raisons. " * 8  # ~500 chars


def write_turn(history: History, conversation: str, turn: int) -> None:
    """A turn as the agent stores it: the question, a call, its result with a diff, the answer."""
    call = CallRecord(f"call_{turn}", "write_file", {"path": f"m{turn}.py", "content": "x = 1\n"})
    change = FileChange(f"m{turn}.py", "added", f"+x = {turn}\n", 1, 0)
    history.append(
        conversation, ChatMessage("user", f"Question {turn} : écris m{turn}.py", turn=turn)
    )
    history.append(
        conversation,
        ChatMessage("assistant", "", tool_calls=(call,), meta=MessageMeta(model="m"), turn=turn),
    )
    history.append(
        conversation,
        ChatMessage(
            "tool",
            f"Created m{turn}.py",
            tool_call_id=call.id,
            tool_name="write_file",
            meta=MessageMeta(summary=f"m{turn}.py écrit", change=change),
            turn=turn,
        ),
    )
    history.append(
        conversation, ChatMessage("assistant", ANSWER, meta=MessageMeta(model="m"), turn=turn)
    )


def long_conversation(history: History, title: str) -> str:
    conversation = history.create(title, "/home/moi/projet")
    for turn in range(1, TURNS + 1):
        write_turn(history, conversation, turn)
    return conversation


def add_branches(history: History, conversation: str) -> None:
    """Regenerate 20 answers spread over the conversation (each is a sibling branch), then
    come back to the latest branch, as a person who looked at the old versions would."""
    persons = [m for m in history.messages(conversation) if m.role == "user"]
    step = len(persons) // BRANCHES
    for index in range(BRANCHES):
        question = persons[index * step]
        history.rewind(conversation, question.id)
        history.append(
            conversation, ChatMessage("assistant", "Autre version.", turn=TURNS + index + 1)
        )
    last = persons[-1]
    assert last.id is not None
    history.switch_branch(conversation, last.id)


def open_ms(history: History, conversation: str) -> float:
    started = time.perf_counter()
    page = history.page(conversation, PAGE)
    history.branches(conversation, [m.id for m in page if m.id is not None])
    elapsed = (time.perf_counter() - started) * 1000
    assert len(page) == PAGE
    return elapsed


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        history = History(Path(folder) / "history.db")
        plain = long_conversation(history, "sans branches")
        branched = long_conversation(history, "avec branches")
        add_branches(history, branched)
        assert len(history.branches(branched)) == BRANCHES  # each regenerated answer: 1/2
        exports = []
        for _ in range(EXPORT_RUNS):
            started = time.perf_counter()
            text = render(history.export(plain), "md")
            exports.append(time.perf_counter() - started)
        assert text.count("## Vous") == TURNS
        flat = [open_ms(history, plain) for _ in range(OPEN_RUNS)]
        forked = [open_ms(history, branched) for _ in range(OPEN_RUNS)]
        history.close()
    extra = median_of(forked) - median_of(flat)
    return [
        Figure(
            "conversations",
            "export of a 1,000-turn conversation to Markdown",
            median_of(exports),
            "s",
            1.0,
            runs=len(exports),
            note=f"{TURNS * 4} messages read from SQLite, secrets masked, rendered; "
            f"{len(text) // 1000} KB",
            samples=exports,
        ),
        Figure(
            "conversations",
            "opening a conversation with 20 branches, more than without",
            extra,
            "ms",
            100.0,
            runs=len(forked),
            note=f"last {PAGE} messages and their versions, {TURNS} turns: "
            f"{median_of(flat):.1f} ms without, {median_of(forked):.1f} ms with",
            samples=forked,
        ),
    ]


if __name__ == "__main__":
    for figure in measure():
        print(figure)
