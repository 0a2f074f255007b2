"""Compact tool definitions for small context windows, and what each one costs in tokens.

A tool definition is sent with every request, so its size is paid on every round.
MCP servers ship verbose JSON schemas (`$schema`, `title`, `additionalProperties`,
paragraph-long descriptions); the model needs the names, types, required fields,
enums and one sentence of explanation. `slim_spec` keeps exactly that: no property
is removed, `required` lists are kept, only wording and validation noise go.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from loki_desktop.core.ports import ToolSpec
from loki_desktop.core.tokens import estimate_tokens

# Descriptions longer than this are cut to their first sentence.
TOOL_DESCRIPTION_LIMIT = 200
PROPERTY_DESCRIPTION_LIMIT = 120
# A first sentence longer than this is cut at a word boundary.
HARD_DESCRIPTION_LIMIT = 300
# What a tool costs beyond its JSON: the template's wrapping of each definition.
TOOL_OVERHEAD_TOKENS = 8

# Schema keywords that validate or document the schema itself but tell the model
# nothing it needs to make a call.
_NOISE_KEYS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "title",
        "examples",
        "additionalProperties",
        "unevaluatedProperties",
        "readOnly",
        "writeOnly",
        "deprecated",
        "markdownDescription",
    }
)
# Keywords whose value maps names to schemas (the names are not keywords).
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
# Keywords whose value is a schema or a list of schemas.
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_VALUES = frozenset({"items", "not", "contains", "if", "then", "else"})

_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "incl.", "resp.", "no.")
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n\s*\n")


def slim_spec(spec: ToolSpec) -> ToolSpec:
    """The same tool with a compact schema and description (name and source unchanged).

    The parameters always come out as an object schema with `properties`, which is what
    Ollama's templates expect, even when a server sends `{}` or leaves `type` out.
    """
    parameters = _slim_schema(spec.parameters, required=True)
    if not isinstance(parameters, dict):
        parameters = {}
    if parameters.get("type") != "object":
        parameters = {"type": "object", **{k: v for k, v in parameters.items() if k != "type"}}
    parameters.setdefault("properties", {})
    return ToolSpec(
        spec.name,
        shorten(spec.description, TOOL_DESCRIPTION_LIMIT),
        parameters,
        spec.source,
    )


def tool_tokens(spec: ToolSpec) -> int:
    """Estimated tokens of one tool as the model reads it, after slimming."""
    return spec_tokens(slim_spec(spec))


def spec_tokens(spec: ToolSpec) -> int:
    """Estimated tokens of a tool exactly as given (already slimmed, or not)."""
    return estimate_tokens(_wire(spec)) + TOOL_OVERHEAD_TOKENS


def _wire(spec: ToolSpec) -> str:
    # Ollama renders tools into the prompt as compact JSON (Go's json.Marshal).
    return json.dumps(spec.to_ollama(), separators=(",", ":"), ensure_ascii=False)


def tools_cost(specs: Iterable[ToolSpec]) -> tuple[int, int]:
    """What a set of tools adds to every request, after slimming: (characters, tokens).

    Characters of the compact JSON as Ollama renders it, and estimated tokens (core.tokens).
    This is what `mcp test`, `mcp list` and the settings show as a server's cost.
    """
    chars = tokens = 0
    for spec in specs:
        slim = slim_spec(spec)
        chars += len(_wire(slim))
        tokens += spec_tokens(slim)
    return chars, tokens


def shorten(text: str, limit: int) -> str:
    """Collapse whitespace; past `limit` characters keep the first sentence only."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    sentence = first_sentence(text)
    if len(sentence) > HARD_DESCRIPTION_LIMIT:
        # leave room for the ellipsis, so slimming twice changes nothing
        cut = sentence[: HARD_DESCRIPTION_LIMIT - 1].rsplit(" ", 1)[0]
        sentence = cut.rstrip(",;:") + "…"
    return sentence


def first_sentence(text: str) -> str:
    """The first sentence of `text` (or its first paragraph), whitespace collapsed."""
    for match in _SENTENCE_END.finditer(text):
        end = match.end() if match.group() in ".!?" else match.start()
        head = text[:end]
        if head.rstrip().lower().endswith(_ABBREVIATIONS):
            continue
        return " ".join(head.split())
    return " ".join(text.split())


# Deeper than any real schema: past it a schema is passed on as the server wrote it (a
# recursive walk of a hostile one would exhaust the stack).
MAX_SCHEMA_DEPTH = 64


def _slim_schema(schema: Any, *, required: bool, depth: int = 0) -> Any:
    if not isinstance(schema, Mapping) or depth > MAX_SCHEMA_DEPTH:
        return schema
    depth += 1
    slim: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _NOISE_KEYS:
            continue
        if key == "description" and isinstance(value, str):
            slim[key] = shorten(value, PROPERTY_DESCRIPTION_LIMIT)
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            needed = _required(schema) if key == "properties" else set()
            slim[key] = {
                name: _slim_schema(sub, required=name in needed, depth=depth)
                for name, sub in value.items()
            }
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            slim[key] = [_slim_schema(sub, required=True, depth=depth) for sub in value]
        elif key in _SCHEMA_VALUES:
            slim[key] = _slim_schema(value, required=True, depth=depth)
        else:
            slim[key] = value
    if not slim.get("description"):
        slim.pop("description", None)
    return _drop_optional_null(slim) if not required else slim


def _required(schema: Mapping[str, Any]) -> set[str]:
    """The names a schema's `required` lists (a malformed list: the names in it)."""
    listed = schema.get("required")
    return {name for name in listed if isinstance(name, str)} if isinstance(listed, list) else set()


def _drop_optional_null(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, {"type": "null"}]` on an optional field says nothing omitting it doesn't."""
    options = schema.get("anyOf")
    if not isinstance(options, list) or len(options) != 2:
        return schema
    kept = [option for option in options if option != {"type": "null"}]
    if len(kept) != 1 or not isinstance(kept[0], dict):
        return schema
    merged = {key: value for key, value in schema.items() if key != "anyOf"}
    for key, value in kept[0].items():
        merged.setdefault(key, value)
    if merged.get("default", "") is None:
        del merged["default"]
    return merged
