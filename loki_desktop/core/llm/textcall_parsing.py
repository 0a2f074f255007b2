"""Reading a held region into tool calls, and JSON as small models write it (see textcalls)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import json_repair

MARKERS = {
    "<tool_call>": "hermes",
    "[TOOL_CALLS]": "mistral",
    "<function=": "llama",
    "<|python_tag|>": "python_tag",
}
# Keys a bare JSON call object may have (its name and arguments, and OpenAI's wrapping).
CALL_KEYS = frozenset({"name", "arguments", "parameters", "type", "id", "function"})
_ARGUMENT_KEYS = ("arguments", "parameters")
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
_NAME = re.compile(r"[A-Za-z_][\w.\-]*")


@dataclass(frozen=True, slots=True)
class TextCall:
    """One recovered call; `arguments` is a dict when it could be read (repaired if needed)."""

    name: str
    arguments: Any


# --- parsing the held region -----------------------------------------------------------------


def fence_body(region: str) -> str:
    """The inside of the fence that makes the whole reply (the scanner checked its shape)."""
    body = _strip_end_tokens(region[region.find("\n") + 1 :])
    return body[:-3] if body.endswith("```") else body  # unclosed: the model stopped


def _strip_end_tokens(text: str) -> str:
    text = text.rstrip()
    while token := next((t for t in END_TOKENS if text.endswith(t)), None):
        text = text[: -len(token)].rstrip()
    return text


def parse_json_calls(body: str, names: frozenset[str], *, fenced: bool) -> list[TextCall]:
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
    if not isinstance(item, dict) or not set(item) <= CALL_KEYS:
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


def parse_markers(body: str) -> list[TextCall]:
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
