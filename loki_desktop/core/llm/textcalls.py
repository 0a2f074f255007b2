"""Tool calls that a small model wrote as text instead of making them, recovered while streaming.

Forms recognised (the reply carries no native `tool_calls`):

- `<tool_call>{"name": ..., "arguments": ...}</tool_call>` (Hermes, Qwen), and its
  Qwen3-Coder variant `<tool_call><function=NAME><parameter=KEY>value</parameter>...`;
- `[TOOL_CALLS] [{"name": ..., "arguments": ...}]` and `[TOOL_CALLS]NAME[ARGS]{...}` (Mistral);
- `<function=NAME>{...}</function>` (Llama 3.x) and `<|python_tag|>{...}` (Llama 3.1 JSON);
- a reply that is nothing but a JSON call `{"name": ..., "arguments"|"parameters": ...}`
  (or several, or an array of them), bare or inside one ```json fence.

No false triggers: a marker inside a code block or inline code is an example, not a call;
the JSON forms count only when the whole reply is the call (an end-of-turn token such as
`<|im_end|>` may follow), every key of a call object is one a call has, and a fenced one
must name a tool that exists (a fence is how models show payloads). A bare call to an
unknown tool must still carry its arguments; for the marker forms the name is not checked.
An unknown name becomes an error result that lists the real tools (the Toolbox does that).
Arguments are repaired when strict JSON rejects them (single quotes, trailing commas,
Python literals, raw newlines, a JSON string holding the object, unclosed brackets).

`TextCallWatch` is fed the streamed text and gives back what may be shown now. It holds
text back only while the reply could still be a call: from the start while it looks like
a marker, a JSON call or a ```json fence, and in prose from a marker's first character.
Each character is looked at once (no re-scan), and held text is released as soon as it is
clearly prose. `finish()` decides: the recovered calls, or the rest of the text to show;
reading the held region into calls (and the lenient JSON) is `textcall_parsing`'s job.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum, auto

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.textcall_parsing import (
    CALL_KEYS,
    END_TOKENS,
    MARKERS,
    TextCall,
    fence_body,
    parse_json_calls,
    parse_markers,
)

# What may follow each marker, after spaces (the JSON or tag openers) or right away (a
# tool name); anything else means the marker was only mentioned.
_MARKER_NEXT = {
    "hermes": ("{[<", False),
    "mistral": ("{[", True),
    "llama": ("", True),
    "python_tag": ("{[", True),
}
# Info strings of a fence that may hold a call.
_CALL_FENCES = frozenset({"", "json", "json5", "tool_call", "tool_code", "xml"})
_MAX_KEY = 40
_MAX_FENCE_INFO = 20


def _is_name_start(char: str) -> bool:
    return char == "_" or ("a" <= char.lower() <= "z")


@dataclass(frozen=True, slots=True)
class Recovery:
    """The calls a reply wrote as text; `prose` is the text before them (already shown)."""

    calls: tuple[TextCall, ...]
    form: str
    prose: str = ""


def recover_calls(text: str, tool_names: Collection[str]) -> Recovery | None:
    """The tool calls `text` wrote, or None when it is an answer (same rules as streaming)."""
    watch = TextCallWatch(tool_names)
    watch.feed(text)
    _rest, recovery = watch.finish()
    return recovery


class _Mode(Enum):
    LEAD = auto()  # only whitespace so far
    START_MARK = auto()  # the reply starts with "<" or "[": matching a marker
    WHOLE_JSON = auto()  # the reply is so far a JSON call
    FENCE_INFO = auto()  # the reply starts with a fence: reading its info string
    FENCE_LEAD = auto()  # inside that fence, only whitespace so far
    FENCE_MARK = auto()  # inside that fence, matching a marker
    FENCE_JSON = auto()  # inside that fence, a JSON call so far
    FENCE_AFTER = auto()  # after the fence closed: only whitespace may follow
    PROSE = auto()  # an answer: shown as it comes, markers watched for
    PROSE_MARK = auto()  # in prose, matching a marker
    MARKER = auto()  # a marker was written: held to the end


_DECIDE_AT_END = (_Mode.WHOLE_JSON, _Mode.FENCE_JSON, _Mode.FENCE_AFTER, _Mode.MARKER)


class PlainReply:
    """TextCallWatch's interface with no recovery: every character is answer text at once
    (`eval --harness off`: what a plain chat shows of a call written as text)."""

    def feed(self, text: str) -> str:
        return text

    def finish(self) -> tuple[str, Recovery | None]:
        return "", None

    def abandon(self) -> str:
        return ""


class TextCallWatch:
    """Streams a reply, holding back what could still be a text-form tool call.

    `feed` returns what may be shown now; `finish` returns the rest to show, or the
    calls when the reply was one. `max_held` is the most characters ever held back
    before they turned out to be prose (for measurements).
    """

    def __init__(self, tool_names: Collection[str]) -> None:
        self._names = frozenset(tool_names)
        self._chunks: list[str] = []  # the whole reply, joined only when a decision needs it
        self._length = 0
        self._unreleased: deque[str] = deque()  # text not yet shown, in order
        self._released = 0
        self._release_upto = 0
        self._hold_start = 0  # where the held text starts (while holding)
        self._mode = _Mode.LEAD
        self._candidate = ""  # marker characters matched so far
        self._marker = ""  # the form of the marker found
        self._marker_checked = False
        self._marker_spaced = False
        self._fenced = False  # the held region is one fence that opens the reply
        self._fence_info = ""
        self._end_token = ""  # end-of-turn token characters matched after a JSON call
        self._json = _JsonWatch()
        self._prose = _CodeTracker()
        self._fence_close = _FenceCloser(need_line_start=True)
        self.max_held = 0

    # --- streaming -------------------------------------------------------------------

    def feed(self, text: str) -> str:
        """Take the next piece of the reply; return the text that may be shown now."""
        if not text:
            return ""
        start = self._length
        self._chunks.append(text)
        self._unreleased.append(text)
        self._length += len(text)
        for offset, char in enumerate(text):
            self._step(char, start + offset)
        return self._take(self._release_upto - self._released)

    def finish(self) -> tuple[str, Recovery | None]:
        """End of the reply: the text still to show, and the recovered calls if it was one."""
        recovery = self._parse(self.text) if self._mode in _DECIDE_AT_END else None
        if recovery is not None:
            self._unreleased.clear()
            self._released = self._release_upto = self._length
            return "", recovery
        if self._mode is not _Mode.PROSE:
            self.max_held = max(self.max_held, self._length - self._hold_start)
        return self._take(self._length - self._released), None

    def abandon(self) -> str:
        """The reply was cut off: it is an answer, whatever it looked like. The held text."""
        self._mode = _Mode.PROSE
        return self._take(self._length - self._released)

    @property
    def text(self) -> str:
        """The whole reply so far."""
        if len(self._chunks) > 1:
            self._chunks = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    def _take(self, count: int) -> str:
        """Remove and return the first `count` characters not yet shown."""
        if count <= 0:
            return ""
        parts: list[str] = []
        needed = count
        while needed:
            chunk = self._unreleased.popleft()
            if len(chunk) > needed:
                parts.append(chunk[:needed])
                self._unreleased.appendleft(chunk[needed:])
                needed = 0
            else:
                parts.append(chunk)
                needed -= len(chunk)
        self._released += count
        return "".join(parts)

    # --- the state machine -------------------------------------------------------------

    def _step(self, char: str, index: int) -> None:
        mode = self._mode
        if mode is _Mode.PROSE:
            self._step_prose(char, index)
        elif mode is _Mode.LEAD:
            self._step_lead(char, index)
        elif mode in (_Mode.START_MARK, _Mode.FENCE_MARK, _Mode.PROSE_MARK):
            self._step_marker_prefix(char, index)
        elif mode in (_Mode.WHOLE_JSON, _Mode.FENCE_JSON):
            self._step_json(char, index)
        elif mode is _Mode.FENCE_INFO:
            self._step_fence_info(char, index)
        elif mode is _Mode.FENCE_LEAD:
            self._step_fence_lead(char, index)
        elif mode is _Mode.FENCE_AFTER:
            if not char.isspace() and not self._step_end_token(char):
                self._to_prose(index)
        elif mode is _Mode.MARKER:
            self._step_marker(char, index)

    def _step_lead(self, char: str, index: int) -> None:
        if char.isspace():
            return
        if char in "<[":
            self._mode = _Mode.START_MARK
            self._candidate = char
        elif char == "{":
            self._start_json(_Mode.WHOLE_JSON, char)
        elif char == "`":
            self._mode = _Mode.FENCE_INFO
            self._fence_info = char
        else:
            self._to_prose(index)

    def _step_prose(self, char: str, index: int) -> None:
        if char in "<[" and not self._prose.settle().in_code:
            self._hold_start = self._release_upto = index
            self._candidate = char
            self._mode = _Mode.PROSE_MARK
            return
        self._prose.track(char)
        self._release_upto = index + 1

    def _step_marker_prefix(self, char: str, index: int) -> None:
        candidate = self._candidate + char
        if candidate in MARKERS:
            self._marker = MARKERS[candidate]
            self._marker_checked = False
            self._marker_spaced = False
            self._fenced = self._mode is _Mode.FENCE_MARK
            self._fence_close = _FenceCloser(need_line_start=True)
            self._mode = _Mode.MARKER
            self._candidate = ""
            return
        if any(marker.startswith(candidate) for marker in MARKERS):
            self._candidate = candidate
            return
        mode, self._candidate = self._mode, ""
        if mode is _Mode.PROSE_MARK:
            # not a marker: show it, and look at this character again as prose
            self.max_held = max(self.max_held, index - self._hold_start)
            self._prose.track_all(candidate[:-1])
            self._mode = _Mode.PROSE
            self._release_upto = index
            self._step_prose(char, index)
        elif candidate[0] == "[" and candidate[1:].lstrip()[:1] in ("{", ""):
            # not "[TOOL_CALLS]" but maybe a JSON array of calls
            self._start_json(_Mode.WHOLE_JSON if mode is _Mode.START_MARK else _Mode.FENCE_JSON, "")
            if not all(self._json.feed(held) for held in candidate):
                self._to_prose(index)
        else:
            self._to_prose(index)

    def _start_json(self, mode: _Mode, first: str) -> None:
        self._mode = mode
        self._json = _JsonWatch()
        self._fence_close = _FenceCloser(need_line_start=False)
        if first:
            self._json.feed(first)

    def _step_json(self, char: str, index: int) -> None:
        done = self._json.between_values and self._json.values > 0
        if self._mode is _Mode.WHOLE_JSON and done and (self._end_token or char == "<"):
            if not self._step_end_token(char):
                self._to_prose(index)
            return
        if self._mode is _Mode.FENCE_JSON and self._json.between_values:
            if self._fence_close.feed(char):
                self._mode = _Mode.FENCE_AFTER
                return
            if char == "`":
                return
        if not self._json.feed(char):
            self._to_prose(index)

    def _step_end_token(self, char: str) -> bool:
        """Match an end-of-turn token after the call; False when it is something else."""
        candidate = self._end_token + char
        if candidate in END_TOKENS:
            self._end_token = ""
            return True
        if any(token.startswith(candidate) for token in END_TOKENS):
            self._end_token = candidate
            return True
        self._end_token = ""
        return False

    def _step_fence_info(self, char: str, index: int) -> None:
        if len(self._fence_info) < 3:
            if char == "`":
                self._fence_info += char
            else:
                self._to_prose(index)
            return
        if char == "\n":
            if self._fence_info.strip("`").strip().lower() in _CALL_FENCES:
                self._mode = _Mode.FENCE_LEAD
            else:
                self._to_prose(index)
            return
        self._fence_info += char
        if len(self._fence_info) > _MAX_FENCE_INFO:
            self._to_prose(index)

    def _step_fence_lead(self, char: str, index: int) -> None:
        if char.isspace():
            return
        if char in "<[":
            self._mode = _Mode.FENCE_MARK
            self._candidate = char
        elif char == "{":
            self._start_json(_Mode.FENCE_JSON, char)
        else:
            self._to_prose(index)

    def _step_marker(self, char: str, index: int) -> None:
        if not self._marker_checked:
            openers, name_follows = _MARKER_NEXT[self._marker]
            name_here = name_follows and not self._marker_spaced and _is_name_start(char)
            if char.isspace():
                self._marker_spaced = True
                return
            self._marker_checked = True
            if not (char in openers or name_here):
                self._to_prose(index)
                return
        if self._fenced:
            if self._fence_close.closed:
                if not char.isspace():
                    self._to_prose(index)
            else:
                self._fence_close.feed(char)

    def _to_prose(self, index: int) -> None:
        """It was an answer after all: show all held text up to and including `index`."""
        self.max_held = max(self.max_held, index - self._hold_start)
        self._prose.track_all(self.text[self._hold_start : index + 1])
        self._mode = _Mode.PROSE
        self._candidate = ""
        self._marker = ""
        self._fenced = False
        self._release_upto = index + 1

    # --- the decision at the end -----------------------------------------------------------

    def _parse(self, text: str) -> Recovery | None:
        region = text[self._hold_start :]
        prose = text[: self._hold_start]
        fenced = self._mode in (_Mode.FENCE_JSON, _Mode.FENCE_AFTER) or self._fenced
        if fenced:
            region = fence_body(region)
        body = region.strip()
        if self._mode is _Mode.MARKER:
            calls = parse_markers(body)
            form = self._marker
        else:
            calls = parse_json_calls(body, self._names, fenced=fenced)
            form = "fenced_json" if fenced else "json"
        if not calls:
            return None
        return Recovery(tuple(calls), form, prose)


# --- incremental helpers -------------------------------------------------------------------


class _JsonWatch:
    """Follows JSON text a character at a time; says when it stops looking like tool calls.

    Call objects sit at depth 1 (`{...}`) or 2 (`[{...}, ...]`); every key at that depth
    must be one a call has, so `{"name": "Alice", "age": 3}` is given up at `age`.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""
        self.escape = False
        self.call_depth = 0
        self.expect_key = False
        self.expect_element = False
        self.key: list[str] | None = None
        self.values = 0

    @property
    def between_values(self) -> bool:
        return self.depth == 0 and not self.quote

    def feed(self, char: str) -> bool:
        if self.quote:
            return self._in_string(char)
        if char.isspace():
            return True
        if self.depth == 0:
            return self._top(char)
        if self.expect_element:
            self.expect_element = False
            if char == "{":
                self.depth += 1
                self.expect_key = True
                return True
            if char == "]":
                return self._close()
            return False
        if self.expect_key:
            self.expect_key = False
            if char in "\"'":
                self.quote = char
                self.key = []
                return True
            return char == "}" and self._close()
        if char in "\"'":
            self.quote = char
        elif char in "{[":
            self.depth += 1
        elif char in "}]":
            return self._close()
        elif char == ",":
            if self.depth == self.call_depth:
                self.expect_key = True
            elif self.call_depth == 2 and self.depth == 1:
                self.expect_element = True
        return True

    def _top(self, char: str) -> bool:
        if char == "{":
            self.depth, self.call_depth, self.expect_key = 1, 1, True
            return True
        if char == "[":
            self.depth, self.call_depth, self.expect_element = 1, 2, True
            return True
        return char in ",;" and self.values > 0

    def _close(self) -> bool:
        self.depth -= 1
        if self.depth == 0:
            self.values += 1
        return self.depth >= 0

    def _in_string(self, char: str) -> bool:
        key = self.key
        if self.escape:
            self.escape = False
        elif char == "\\":
            self.escape = True
            return True
        elif char == self.quote:
            self.quote = ""
            self.key = None
            return key is None or "".join(key) in CALL_KEYS
        if key is not None:
            key.append(char)
            return len(key) <= _MAX_KEY
        return True


class _CodeTracker:
    """Whether prose is inside a fenced code block or inline code (markers there are examples)."""

    def __init__(self) -> None:
        self.in_fence = False
        self.in_inline = False
        self.line_start = True
        self.indent = 0
        self.ticks = 0
        self.ticks_at_line_start = False

    @property
    def in_code(self) -> bool:
        return self.in_fence or self.in_inline

    def settle(self) -> _CodeTracker:
        """End a pending run of backticks (the next character is not one)."""
        if self.ticks:
            self._end_ticks()
        return self

    def track_all(self, text: str) -> None:
        for char in text:
            self.track(char)

    def track(self, char: str) -> None:
        if char == "`":
            if self.ticks == 0:
                self.ticks_at_line_start = self.line_start
            self.ticks += 1
            self.line_start = False
            return
        if self.ticks:
            self._end_ticks()
        if char == "\n":
            self.line_start = True
            self.indent = 0
            self.in_inline = False
        elif char in " \t" and self.line_start and self.indent < 3:
            self.indent += 1
        else:
            self.line_start = False

    def _end_ticks(self) -> None:
        if self.ticks >= 3 and self.ticks_at_line_start:
            self.in_fence = not self.in_fence
        elif not self.in_fence:
            self.in_inline = not self.in_inline
        self.ticks = 0


class _FenceCloser:
    """Spots the closing ``` of a fence (at the start of a line, when asked)."""

    def __init__(self, *, need_line_start: bool) -> None:
        self.need_line_start = need_line_start
        self.at_line_start = False
        self.ticks = 0
        self.closed = False

    def feed(self, char: str) -> bool:
        if self.closed:
            return True
        if char == "`" and (self.ticks or self.at_line_start or not self.need_line_start):
            self.ticks += 1
            self.closed = self.ticks == 3
        elif char == "\n":
            self.at_line_start, self.ticks = True, 0
        elif not (char in " \t" and self.at_line_start):
            self.at_line_start, self.ticks = False, 0
        return self.closed


_FORM_LABELS = {
    "hermes": "<tool_call>",
    "mistral": "[TOOL_CALLS]",
    "llama": "<function=…>",
    "python_tag": "<|python_tag|>",
    "json": "JSON",
    "fenced_json": "bloc ```json",
}


def recovered_notice(recovery: Recovery) -> str:
    """The notice that says a call written as text was run as a real one."""
    names = ", ".join(dict.fromkeys(call.name for call in recovery.calls))
    return _(
        "Le modèle a écrit son appel d'outil en texte ({form}) au lieu de le faire : "
        "Loki l'a exécuté comme un vrai appel ({names})."
    ).format(form=_FORM_LABELS.get(recovery.form, recovery.form), names=names)
