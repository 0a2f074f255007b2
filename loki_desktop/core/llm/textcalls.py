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
clearly prose. `finish()` decides: the recovered calls, or the rest of the text to show.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum, auto
from typing import Any

import json_repair

from loki_desktop.core.i18n import _

MARKERS = {
    "<tool_call>": "hermes",
    "[TOOL_CALLS]": "mistral",
    "<function=": "llama",
    "<|python_tag|>": "python_tag",
}
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
# Keys a bare JSON call object may have (its name and arguments, and OpenAI's wrapping).
_CALL_KEYS = frozenset({"name", "arguments", "parameters", "type", "id", "function"})
_ARGUMENT_KEYS = ("arguments", "parameters")
_MAX_KEY = 40
# End-of-turn tokens a misconfigured template lets through after a call.
END_TOKENS = (
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end|>",
    "<|endoftext|>",
    "<end_of_turn>",
    "</s>",
)
_MAX_FENCE_INFO = 20
_NAME = re.compile(r"[A-Za-z_][\w.\-]*")


def _is_name_start(char: str) -> bool:
    return char == "_" or ("a" <= char.lower() <= "z")


@dataclass(frozen=True, slots=True)
class TextCall:
    """One recovered call; `arguments` is a dict when it could be read (repaired if needed)."""

    name: str
    arguments: Any


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
            region = _fence_body(region)
        body = region.strip()
        if self._mode is _Mode.MARKER:
            calls = _parse_markers(body)
            form = self._marker
        else:
            calls = _parse_json_calls(body, self._names, fenced=fenced)
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
            return key is None or "".join(key) in _CALL_KEYS
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


# --- parsing the held region -----------------------------------------------------------------


def _fence_body(region: str) -> str:
    """The inside of the fence that makes the whole reply (the scanner checked its shape)."""
    body = _strip_end_tokens(region[region.find("\n") + 1 :])
    return body[:-3] if body.endswith("```") else body  # unclosed: the model stopped


def _strip_end_tokens(text: str) -> str:
    text = text.rstrip()
    while token := next((t for t in END_TOKENS if text.endswith(t)), None):
        text = text[: -len(token)].rstrip()
    return text


def _parse_json_calls(body: str, names: frozenset[str], *, fenced: bool) -> list[TextCall]:
    calls: list[TextCall] = []
    for value in _json_values(_strip_end_tokens(body)):
        items = value if isinstance(value, list) else [value]
        for item in items:
            call = _strict_call(item)
            if call is None:
                return []
            if call.name not in names and (fenced or not _has_arguments(item)):
                return []
            calls.append(call)
    return calls


def _json_values(body: str) -> list[Any]:
    """The JSON values of `body`, separated by whitespace, commas or semicolons."""
    values: list[Any] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char.isspace() or char in ",;":
            index += 1
            continue
        end = json_extent(body, index)
        if end is None:
            return []
        value = loads_lenient(body[index:end])
        if value is None:
            return []
        values.append(value)
        index = end
    return values


def _strict_call(item: Any) -> TextCall | None:
    if not isinstance(item, dict) or not set(item) <= _CALL_KEYS:
        return None
    function = item.get("function")
    if isinstance(function, dict):
        if "name" in item or not set(function) <= {"name", "arguments", "parameters"}:
            return None
        item = function
    name = item.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return None
    arguments = repair_arguments(_arguments_of(item))
    if isinstance(arguments, dict) and {"type", "properties"} <= set(arguments):
        return None  # a tool *definition* (its parameters schema), not a call
    return TextCall(name, arguments)


def _has_arguments(item: dict[str, Any]) -> bool:
    function = item.get("function")
    inner = function if isinstance(function, dict) else item
    return any(key in inner for key in _ARGUMENT_KEYS)


def _arguments_of(item: dict[str, Any]) -> Any:
    for key in (*_ARGUMENT_KEYS, "args", "input"):
        if key in item:
            return item[key]
    return None


def _loose_call(item: Any) -> TextCall | None:
    """A call object inside markers: any common spelling of name and arguments."""
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict):
        item = function
    name = next(
        (item[key] for key in ("name", "function", "tool", "tool_name") if key in item), None
    )
    if not isinstance(name, str) or not name.strip():
        return None
    return TextCall(name.strip(), repair_arguments(_arguments_of(item)))


def _parse_markers(body: str) -> list[TextCall]:
    """Every call in a region that starts with a marker; text between calls is ignored."""
    calls: list[TextCall] = []
    index = 0
    while True:
        found = _next_marker(body, index)
        if found is None:
            return calls
        start, marker = found
        index = start + len(marker)
        form = MARKERS[marker]
        if form == "hermes":
            end = body.find("</tool_call>", index)
            stop = len(body) if end < 0 else end
            calls += _hermes_body(body[index:stop])
            index = stop
        elif form == "llama":
            parsed, index = _function_block(body, index)
            calls += parsed
        else:  # mistral, python_tag
            parsed, index = _json_or_named(body, index)
            calls += parsed


def _next_marker(body: str, index: int) -> tuple[int, str] | None:
    found = [(pos, marker) for marker in MARKERS if (pos := body.find(marker, index)) >= 0]
    return min(found) if found else None


def _hermes_body(body: str) -> list[TextCall]:
    stripped = body.strip()
    if stripped.startswith("<function="):
        calls, _end = _function_block(stripped, len("<function="))
        return calls
    calls = []
    for value in _json_values(stripped):
        for item in value if isinstance(value, list) else [value]:
            call = _loose_call(item)
            if call is not None:
                calls.append(call)
    return calls


def _function_block(body: str, index: int) -> tuple[list[TextCall], int]:
    """`NAME>` then a JSON object or `<parameter=KEY>value</parameter>` items, to `</function>`."""
    close = body.find(">", index)
    name = body[index:close].strip() if close >= 0 else ""
    if not _NAME.fullmatch(name):
        return [], index
    end = body.find("</function>", close)
    stop = len(body) if end < 0 else end
    inner = body[close + 1 : stop].strip()
    after = stop + len("</function>") if end >= 0 else stop
    if inner.startswith("<parameter="):
        return [TextCall(name, _xml_parameters(inner))], after
    if not inner:
        return [TextCall(name, {})], after
    return [TextCall(name, repair_arguments(inner))], after


_PARAMETER = re.compile(r"<parameter=([^>\s]+)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.S)


def _xml_parameters(inner: str) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for match in _PARAMETER.finditer(inner):
        raw = match.group(2)
        # the value sits on its own lines: one newline each side belongs to the tags
        raw = raw.removeprefix("\n").removesuffix("\n")
        # Qwen3-Coder writes strings raw and other types as JSON
        value: Any = raw
        if raw.strip()[:1] in ("{", "[") or raw.strip() in ("true", "false", "null"):
            parsed = loads_lenient(raw.strip())
            value = raw if parsed is None else parsed
        elif re.fullmatch(r"-?\d+(\.\d+)?", raw.strip()):
            value = json.loads(raw.strip())
        args[match.group(1)] = value
    return args


def _json_or_named(body: str, index: int) -> tuple[list[TextCall], int]:
    """After [TOOL_CALLS] or <|python_tag|>: JSON call(s), or Mistral's `NAME[ARGS]{...}`."""
    calls: list[TextCall] = []
    while True:
        while index < len(body) and body[index].isspace():
            index += 1
        if index >= len(body):
            return calls, index
        if body[index] in "{[":
            end = json_extent(body, index)
            if end is None:
                return calls, index
            value = loads_lenient(body[index:end])
            for item in value if isinstance(value, list) else [value]:
                call = _loose_call(item)
                if call is not None:
                    calls.append(call)
            index = end
            continue
        named = re.compile(r"([A-Za-z_][\w.\-]*)(?:\[CALL_ID\]\s*\w+)?\s*\[ARGS\]\s*").match(
            body, index
        )
        if named is None:
            return calls, index
        start = named.end()
        end = json_extent(body, start) if body[start : start + 1] in ("{", "[") else None
        if end is None:
            calls.append(TextCall(named.group(1), {}))
            return calls, start
        calls.append(TextCall(named.group(1), repair_arguments(body[start:end])))
        index = end


# --- JSON, leniently ---------------------------------------------------------------------------


def json_extent(text: str, start: int) -> int | None:
    """Where the JSON value opening at `start` ends (brackets balanced, strings respected).

    An object the model left unclosed extends to the end of the text (the repair closes it).
    """
    opener = text[start]
    if opener not in "{[":
        return None
    depth = 0
    quote = ""
    escape = False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if escape:
                escape = False
            elif char == "\\":
                escape = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            # an apostrophe between letters is prose, not a single-quoted string
            if char == "'" and text[index - 1 : index].isalnum():
                continue
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


_UNREAD = object()


def loads_lenient(text: str) -> Any:
    """Parse JSON as a small model writes it: single quotes, trailing commas, Python
    literals, raw newlines and unclosed brackets are repaired. None when it is not JSON."""
    try:
        return json.loads(text, strict=False)
    except ValueError:
        pass
    try:
        # stream_stable: keep strings as written (by default trailing newlines of a
        # string are stripped, which would change a file's content)
        value = json_repair.loads(text, stream_stable=True)
    except Exception:  # the repairer is a heuristic: a crash means "unreadable"
        return None
    if value == "" and text.strip() not in ('""', "''"):
        return None
    return value


def repair_arguments(raw: Any) -> Any:
    """Arguments as the tool wants them: a dict when any reading of `raw` gives one.

    A JSON string holding the object (a common fault) is read; what cannot be read is
    returned unchanged so the Toolbox tells the model what was wrong.
    """
    if raw is None:
        return {}
    for _depth in range(2):  # arguments may be a JSON string holding a JSON string
        if not isinstance(raw, str):
            break
        stripped = raw.strip()
        if not stripped:
            return {}
        if stripped[0] not in "{[\"'":
            return raw
        parsed = loads_lenient(stripped)
        if parsed is None:
            return raw
        raw = parsed
    return raw


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
