"""What a write or an edit changes in a file, computed before it is written (difflib)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator

from loki_desktop.core.file_change import ChangeKind, FileChange
from loki_desktop.core.tools.text import looks_binary

__all__ = ["DIFF_INPUT_LIMIT", "FileChange", "compute_change", "read_limit"]

# Either version bigger than this is not compared line by line (nor even read whole for it):
# the change says "too_large" and carries no diff. A model rarely writes such a file.
DIFF_INPUT_LIMIT = 4_000_000
# What a change keeps of its diff, and of a new file's content: the change travels in the
# tool result to the window and is stored with it in the history (JSON in the message row),
# so a 10 MB rewrite must not put 10 MB there twice. Past the cap the text is cut at a line
# end and `truncated` is set; the counts stay exact (they are taken over the whole diff).
DIFF_KEEP_CHARS = 100_000
CONTENT_KEEP_CHARS = 100_000
# difflib's SequenceMatcher costs about (changed lines) x (lines) in the worst case: a
# 2,000-line file with every third line changed takes ~0.5 s here, 10,000 lines ~8 s. When
# the part that differs (after the common first and last lines) is larger than this product,
# the diff is one hunk that removes the old part and adds the new one (`coarse`).
EXACT_WORK_LIMIT = 2_000 * 2_000
CONTEXT_LINES = 3
NO_NEWLINE = "\\ No newline at end of file\n"


def read_limit() -> int:
    """How many bytes of the old version to read: one more than can be compared."""
    return DIFF_INPUT_LIMIT + 1


def compute_change(path: str, old: bytes | None, new: bytes | None) -> FileChange:
    """The change from `old` to `new` (None: the file does not exist on that side).

    `old` may be the first `read_limit()` bytes of a bigger file: over DIFF_INPUT_LIMIT
    the change is "too_large" whatever those bytes hold.
    """
    kind: ChangeKind = "added" if old is None else "deleted" if new is None else "modified"
    before, after = old or b"", new or b""
    if max(len(before), len(after)) > DIFF_INPUT_LIMIT:
        return FileChange(path, kind, omitted="too_large")
    old_text, new_text = _text(before), _text(after)
    if old_text is None or new_text is None:
        return FileChange(path, kind, omitted="binary")
    a, b = _lines(old_text), _lines(new_text)
    from_name = "/dev/null" if old is None else f"a/{path}"
    to_name = "/dev/null" if new is None else f"b/{path}"
    coarse = _too_far_apart(a, b)
    lines = _coarse_diff(a, b) if coarse else _exact_diff(a, b)
    diff, added, removed, truncated = _kept(
        [f"--- {from_name}\n", f"+++ {to_name}\n", *lines] if a != b else []
    )
    content = None
    if kind == "added":
        content = new_text[:CONTENT_KEEP_CHARS]
        truncated = truncated or len(new_text) > CONTENT_KEEP_CHARS
    return FileChange(path, kind, diff, added, removed, content, truncated=truncated, coarse=coarse)


def _text(data: bytes) -> str | None:
    if looks_binary(data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _lines(text: str) -> list[str]:
    """Lines with their "\\n" (only "\\n" ends a line, as in the file; str.splitlines would
    also split on form feeds and Unicode separators)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _exact_diff(a: list[str], b: list[str]) -> Iterator[str]:
    """difflib.unified_diff's hunks (the same text), from one SequenceMatcher. Its automatic
    junk heuristic stays on: without it a 2,000-line file with a blank line in four and many
    changes took 15 s here (with it, milliseconds), at the price of a diff sometimes a little
    less minimal in long files."""
    matcher = difflib.SequenceMatcher(None, a, b)
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        first, last = group[0], group[-1]
        old_range = _range(first[1], last[2] - first[1])
        new_range = _range(first[3], last[4] - first[3])
        lines = [f"@@ -{old_range} +{new_range} @@\n"]
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in a[i1:i2]]
                continue
            lines += ["-" + line for line in a[i1:i2]]
            lines += ["+" + line for line in b[j1:j2]]
        yield from _marked(lines)


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """How many first lines, and then how many last lines, the two versions share."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return start, end


def _too_far_apart(a: list[str], b: list[str]) -> bool:
    start, end = _common_ends(a, b)
    return (len(a) - start - end) * (len(b) - start - end) > EXACT_WORK_LIMIT


def _coarse_diff(a: list[str], b: list[str]) -> Iterator[str]:
    """One hunk: the differing middle removed and added whole, with context around it."""
    start, end = _common_ends(a, b)
    first = max(0, start - CONTEXT_LINES)
    last_a = min(len(a), len(a) - end + CONTEXT_LINES)
    last_b = min(len(b), len(b) - end + CONTEXT_LINES)
    head = f"@@ -{_range(first, last_a - first)} +{_range(first, last_b - first)} @@\n"
    body = [
        *(" " + line for line in a[first:start]),
        *("-" + line for line in a[start : len(a) - end]),
        *("+" + line for line in b[start : len(b) - end]),
        *(" " + line for line in a[len(a) - end : last_a]),
    ]
    return _marked([head, *body])


def _range(start: int, length: int) -> str:
    """A hunk range as difflib writes it (1-based; an empty range names the line before)."""
    if length == 1:
        return f"{start + 1}"
    return f"{start if length == 0 else start + 1},{length}"


def _marked(lines: Iterable[str]) -> Iterator[str]:
    """Each diff line ends with "\\n"; a last line without one gets git's marker after it."""
    for line in lines:
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n"
            yield NO_NEWLINE


def _kept(lines: Iterable[str]) -> tuple[str, int, int, bool]:
    """The diff text (cut at DIFF_KEEP_CHARS, at a line end) and its exact +/- counts."""
    kept: list[str] = []
    size = 0
    added = removed = 0
    truncated = False
    for index, line in enumerate(lines):
        if index >= 2:  # past the --- / +++ headers
            if line.startswith("+"):
                added += 1
            elif line.startswith("-"):
                removed += 1
        if truncated:
            continue
        if size + len(line) > DIFF_KEEP_CHARS:
            truncated = True
            continue
        kept.append(line)
        size += len(line)
    return "".join(kept), added, removed, truncated
