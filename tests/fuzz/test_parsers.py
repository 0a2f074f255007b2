"""Every parser that reads outside input, fuzzed: a value or the module's own error, nothing else.

Outside input: settings.json, a Claude Desktop `mcpServers` file, Ollama's NDJSON and an
OpenAI-compatible server's SSE stream, a model's text that may hide a tool call, an MCP
server's tools/list answer, ruff's and shellcheck's reports, the history's JSON columns,
a conversation export to import.
Inputs mix raw bytes, any JSON, JSON of the expected shape with wrong types in it, and
nesting deeper than a recursive parser goes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from loki_desktop.core.checks.python_check import read_ruff_report
from loki_desktop.core.checks.shell_check import read_shellcheck_report
from loki_desktop.core.export.jsonfile import FORMAT as EXPORT_FORMAT
from loki_desktop.core.export.jsonfile import KIND as EXPORT_KIND
from loki_desktop.core.export.jsonfile import ExportFormatError, parse_export
from loki_desktop.core.llm.lines import LineTooLong, capped_lines
from loki_desktop.core.llm.ollama import OllamaResponseError, parse_line
from loki_desktop.core.llm.openai_stream import DeltaAssembler, StreamError, sse_data
from loki_desktop.core.llm.reply import ReplyReader
from loki_desktop.core.llm.textcalls import recover_calls
from loki_desktop.core.mcp.catalogue import CATALOGUE_IDS
from loki_desktop.core.mcp.config import McpConfigError
from loki_desktop.core.mcp.convert import McpTool, to_spec
from loki_desktop.core.mcp.importer import plan_import
from loki_desktop.core.mcp.tool_check import clean_tool_listing
from loki_desktop.core.settings import Settings
from loki_desktop.core.slim import slim_spec
from loki_desktop.persistence.history import _meta, calls_of, images_of
from loki_desktop.persistence.settings_file import parse_settings
from tests.fuzz.conftest import within_memory

LINE_CAP = 512  # the fuzzed streams' line cap (the real one, 8 MB, is tested elsewhere)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=12,
)
deep = st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n)


def shaped(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with the keys a parser looks for, holding any JSON (wrong types included)."""
    return st.dictionaries(st.sampled_from(keys) | st.text(max_size=8), json_values, max_size=8)


def as_text(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[str]:
    return strategy.map(lambda value: json.dumps(value, ensure_ascii=False))


def texts(*shapes: st.SearchStrategy[Any]) -> st.SearchStrategy[str]:
    """Raw text, any JSON, the shapes given, nesting too deep, and JSON cut anywhere."""
    whole = st.one_of(*(as_text(shape) for shape in shapes), as_text(json_values))
    cut = st.tuples(whole, st.integers(min_value=0, max_value=200)).map(lambda t: t[0][: t[1]])
    return st.one_of(st.text(max_size=300), whole, cut, deep)


# --- settings.json ----------------------------------------------------------------------------

SETTING_KEYS = list(Settings().to_json())


@given(st.one_of(st.binary(max_size=400), texts(shaped(SETTING_KEYS)).map(str.encode)))
def test_settings(raw: bytes) -> None:
    def parse() -> None:
        try:
            data = parse_settings(raw)
        except ValueError:
            return  # the file is moved aside with the « illisible » notice
        settings, notices = Settings.from_json(data)
        assert isinstance(settings, Settings)
        assert all(isinstance(notice, str) for notice in notices)

    within_memory("settings.json", parse)


# --- a Claude Desktop mcpServers file ---------------------------------------------------------

ENTRY_KEYS = ["command", "args", "env", "url", "headers", "type", "enabled", "disabled"]
claude_files = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"mcpServers": st.dictionaries(st.text(max_size=20), shaped(ENTRY_KEYS))}
    ),
)


@given(claude_files)
def test_claude_mcp_servers_import(data: Any) -> None:
    def parse() -> None:
        try:
            plan = plan_import(data, taken=CATALOGUE_IDS)
        except McpConfigError:
            return
        assert all(isinstance(reason, str) for reason in plan.skipped)

    within_memory("mcpServers import", parse)


# --- Ollama's NDJSON stream -------------------------------------------------------------------

MESSAGE_KEYS = ["role", "content", "thinking", "tool_calls"]
ollama_parts = shaped(["message", "done", "done_reason", "eval_count", "error"]).map(
    lambda part: part
) | st.fixed_dictionaries({"message": shaped(MESSAGE_KEYS), "done": st.booleans()})


async def _lines(chunks: list[bytes]) -> list[str]:
    async def produce() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    try:
        return [line async for line in capped_lines(produce(), LINE_CAP)]
    except LineTooLong:
        return []


def stream_bytes(lines: st.SearchStrategy[str]) -> st.SearchStrategy[list[bytes]]:
    """Lines joined by newlines, then split into arbitrary chunks (as the network does)."""
    body = st.lists(lines, max_size=6).map(lambda items: "\n".join(items).encode())
    raw = st.binary(max_size=600)
    return st.tuples(body | raw, st.lists(st.integers(1, 64), max_size=8)).map(_split)


def _split(pair: tuple[bytes, list[int]]) -> list[bytes]:
    data, sizes = pair
    chunks, at = [], 0
    for size in sizes:
        chunks.append(data[at : at + size])
        at += size
    return [*chunks, data[at:]]


@given(stream_bytes(texts(ollama_parts)))
def test_ollama_ndjson(chunks: list[bytes]) -> None:
    def parse() -> None:
        for line in asyncio.run(_lines(chunks)):
            # an {"error": ...} line: told as the server's answer
            with contextlib.suppress(OllamaResponseError):
                parse_line(line)

    within_memory("Ollama NDJSON", parse)


# --- an OpenAI-compatible server's SSE stream ------------------------------------------------

delta = shaped(["content", "reasoning_content", "reasoning", "tool_calls", "role"])
choice = st.fixed_dictionaries(
    {"index": st.integers(0, 2), "delta": delta | json_values}, optional={"finish_reason": scalars}
)
sse_events = st.one_of(
    shaped(["choices", "usage", "error"]),
    st.fixed_dictionaries({"choices": st.lists(choice | json_values, max_size=3)}),
)
sse_lines = texts(sse_events).map(lambda text: f"data: {text}") | st.text(max_size=80)


@given(stream_bytes(sse_lines))
def test_openai_sse(chunks: list[bytes]) -> None:
    def parse() -> None:
        assembler = DeltaAssembler()
        for line in asyncio.run(_lines(chunks)):
            data = sse_data(line)
            if data is None or not data.strip():
                continue
            # skipped with a notice, or the server's own error
            with contextlib.suppress(ValueError, RecursionError, StreamError):
                assembler.feed(data)
        final = assembler.final()
        assert final.done

    within_memory("OpenAI SSE", parse)


# --- a model's text that may hide a tool call ------------------------------------------------

NAMES = ["write_file", "read_file", "mcp_fetch_fetch"]
call_like = st.fixed_dictionaries(
    {"name": st.sampled_from(NAMES) | st.text(max_size=10)},
    optional={"arguments": json_values, "parameters": json_values},
)
marker_text = st.sampled_from(
    ["<tool_call>", "</tool_call>", "```json", "```", "<function=", "</function>", "[TOOL_CALLS]"]
)
model_text = st.lists(
    st.one_of(st.text(max_size=40), as_text(call_like), marker_text, st.sampled_from(NAMES)),
    max_size=10,
).map("".join)


@given(model_text, st.lists(st.integers(1, 30), max_size=6))
def test_text_form_tool_calls(text: str, pieces: list[int]) -> None:
    def parse() -> None:
        recover_calls(text, NAMES)
        reader = ReplyReader(NAMES)
        at = 0
        for size in pieces:
            reader.feed(text[at : at + size])
            at += size
        reader.feed(text[at:])
        reader.finish()

    within_memory("text-form tool calls", parse)


# --- an MCP server's tools/list answer --------------------------------------------------------

tool_entry = shaped(["name", "description", "inputSchema", "outputSchema", "title"])
schema_keys = ["type", "properties", "items", "required", "description", "$schema", "anyOf"]
schema = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(st.text(max_size=8), shaped(schema_keys), max_size=4),
    },
    optional={"required": json_values},
) | shaped(schema_keys)
well_formed = st.fixed_dictionaries(
    {"name": st.text(min_size=1, max_size=20), "inputSchema": schema},
    optional={"description": st.text(max_size=40)},
)
listings = shaped(["tools", "nextCursor"]) | st.fixed_dictionaries(
    {"tools": st.lists(tool_entry | well_formed | json_values, max_size=6)}
)


@given(listings)
def test_mcp_tools_listing(result: dict[str, Any]) -> None:
    from mcp.types import Tool

    def parse() -> None:
        cleaned, bad = clean_tool_listing(result)
        assert all(isinstance(name, str) for name in bad)
        for raw in cleaned["tools"]:
            tool = Tool.model_validate(raw)
            spec = to_spec(
                "srv", McpTool(tool.name, tool.description or "", dict(tool.input_schema))
            )
            slim_spec(spec)

    within_memory("MCP tools/list", parse)


# --- the checkers' output readers ------------------------------------------------------------

ruff_items = st.lists(
    shaped(["code", "message", "location", "filename"])
    | st.fixed_dictionaries({"code": scalars, "location": shaped(["row", "column"])}),
    max_size=5,
)
shellcheck_reports = shaped(["comments"]) | st.fixed_dictionaries(
    {"comments": st.lists(shaped(["line", "column", "level", "code", "message"]), max_size=5)}
)


@given(texts(ruff_items), st.text(max_size=100))
def test_ruff_report(stdout: str, stderr: str) -> None:
    within_memory("ruff report", lambda: read_ruff_report(stdout, stderr))


@given(texts(shellcheck_reports), st.text(max_size=100))
def test_shellcheck_report(stdout: str, stderr: str) -> None:
    within_memory("shellcheck report", lambda: read_shellcheck_report(stdout, stderr, []))


# --- the history's JSON columns --------------------------------------------------------------

meta_column = shaped(["ok", "summary", "change", "check", "skill", "undo", "shell_changes"])
call_column = st.lists(shaped(["id", "name", "args"]), max_size=4)
image_column = st.lists(shaped(["mime_type", "width", "height", "file", "name"]), max_size=4)


@given(
    st.none() | texts(meta_column), st.none() | texts(call_column), st.none() | texts(image_column)
)
def test_history_json_columns(meta: str | None, calls: str | None, images: str | None) -> None:
    folder = Path("/nonexistent/images")

    def parse() -> None:
        _meta(meta)
        calls_of(calls)
        for image in images_of(images, folder):
            assert image.path is not None
            assert folder in image.path.parents  # a file name never leaves the folder
            assert ".." not in image.path.parts

    within_memory("history JSON columns", parse)


# --- a conversation export to import (issue 31) ----------------------------------------------

HEAD_KEYS = ["id", "title", "workspace", "created_at", "updated_at", "pinned", "leaf"]
STORED_KEYS = [
    "id",
    "parent",
    "turn",
    "created_at",
    "role",
    "origin",
    "content",
    "cut",
    "thinking",
    "tool_calls",
    "tool_call_id",
    "tool_name",
    "meta",
    "images",
]
exports = st.fixed_dictionaries(
    {
        "kind": st.just(EXPORT_KIND) | st.text(max_size=10),
        "format": st.just(EXPORT_FORMAT) | json_values,
        "conversation": shaped(HEAD_KEYS) | json_values,
        "messages": st.lists(shaped(STORED_KEYS) | json_values, max_size=4) | json_values,
    }
)


@given(texts(exports))
def test_history_import(text: str) -> None:
    def parse() -> None:
        with contextlib.suppress(ExportFormatError):
            parse_export(text)

    within_memory("history import (JSON export)", parse)
