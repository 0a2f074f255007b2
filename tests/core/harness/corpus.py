"""Loads the corpus of small-model replies (tests/corpus/replies/*.toml) and their outcomes."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "replies"

# The tools a turn offers in the corpus: the native ones and a few MCP servers'.
TOOL_NAMES = frozenset(
    {
        "read_file",
        "write_file",
        "edit_file",
        "list_dir",
        "grep_search",
        "run_shell",
        "fetch",
        "browser_navigate",
        "browser_click",
        "browser_snapshot",
        "resolve-library-id",
        "query-docs",
    }
)


@dataclass(frozen=True)
class CorpusReply:
    id: str
    category: str
    model: str
    text: str
    calls: tuple[tuple[str, Any], ...]
    form: str | None
    prose: str

    @property
    def is_call(self) -> bool:
        return bool(self.calls)


def load_corpus() -> list[CorpusReply]:
    replies = []
    for path in sorted(CORPUS.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for entry in data["reply"]:
            replies.append(
                CorpusReply(
                    id=entry["id"],
                    category=path.stem,
                    model=entry["model"],
                    text=entry["text"],
                    calls=tuple((c["name"], c["arguments"]) for c in entry["calls"]),
                    form=entry.get("form"),
                    prose=entry.get("prose", ""),
                )
            )
    return replies
