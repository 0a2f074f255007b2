"""A file change a tool makes (or is about to make): one value for cards, approvals, history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

ChangeKind = Literal["added", "modified", "deleted"]
# Why a change carries no line diff: one side is not text, or is too big to compare.
Omitted = Literal["", "binary", "too_large"]


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file's change, computed before it is written (see core.tools.diffs).

    `path` is workspace-relative (forward slashes). `diff` is a unified diff (difflib's
    format, `--- a/path` / `+++ b/path` headers), `added` / `removed` its line counts, exact
    even when `diff` was cut (`truncated`). `content` is a new file's text, for showing it as
    code. `omitted` says why there is no line diff (binary, or too large to compare);
    `coarse` that the diff is one honest but not minimal hunk (the two versions were too
    far apart for difflib in reasonable time).
    """

    path: str
    kind: ChangeKind
    diff: str = ""
    added: int = 0
    removed: int = 0
    content: str | None = None
    truncated: bool = False
    omitted: Omitted = ""
    coarse: bool = False

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON (the history keeps it with the tool result; the card is built from it)."""
        data: dict[str, Any] = {
            "path": self.path,
            "kind": self.kind,
            "diff": self.diff,
            "added": self.added,
            "removed": self.removed,
        }
        if self.content is not None:
            data["content"] = self.content
        for name in ("truncated", "omitted", "coarse"):
            if getattr(self, name):
                data[name] = getattr(self, name)
        return data

    @classmethod
    def from_dict(cls, data: object) -> FileChange | None:
        """The change `as_dict` wrote; None for anything else (an old or damaged row)."""
        if not isinstance(data, dict):
            return None
        path, kind = data.get("path"), data.get("kind")
        if not isinstance(path, str) or kind not in get_args(ChangeKind):
            return None
        content = data.get("content")
        omitted = data.get("omitted", "")
        return cls(
            path=path,
            kind=cast(ChangeKind, kind),
            diff=_text(data.get("diff")),
            added=_count(data.get("added")),
            removed=_count(data.get("removed")),
            content=content if isinstance(content, str) else None,
            truncated=data.get("truncated") is True,
            omitted=cast(Omitted, omitted) if omitted in get_args(Omitted) else "",
            coarse=data.get("coarse") is True,
        )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
