"""Slimmed tool schemas keep what a call needs, on the real schemas of five MCP servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.ports import ToolSpec
from loki_desktop.core.slim import (
    HARD_DESCRIPTION_LIMIT,
    PROPERTY_DESCRIPTION_LIMIT,
    TOOL_DESCRIPTION_LIMIT,
    first_sentence,
    slim_spec,
    spec_tokens,
    tool_tokens,
    tools_cost,
)

SCHEMAS = Path(__file__).resolve().parents[2] / "corpus" / "schemas"
SERVERS = ("playwright", "filesystem", "context7", "memory", "fetch")


def server_specs(server: str) -> list[ToolSpec]:
    tools = json.loads((SCHEMAS / f"{server}.json").read_text(encoding="utf-8"))
    return [ToolSpec(t["name"], t["description"], t["inputSchema"], server) for t in tools]


def walk(schema: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every schema node with its path of property names."""
    if not isinstance(schema, dict):
        return []
    nodes = [(path, schema)]
    for name, sub in (schema.get("properties") or {}).items():
        nodes += walk(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        nodes += walk(schema["items"], f"{path}[]")
    for key in ("anyOf", "oneOf", "allOf"):
        for index, sub in enumerate(schema.get(key) or []):
            nodes += walk(sub, f"{path}<{key}{index}>")
    return nodes


@pytest.mark.parametrize("server", SERVERS)
def test_every_property_required_list_type_and_enum_survives(server: str) -> None:
    for spec in server_specs(server):
        slim = slim_spec(spec)
        assert (slim.name, slim.source) == (spec.name, spec.source)
        before = dict(walk(spec.parameters))
        after = dict(walk(slim.parameters))
        # optional `X | null` unions collapse to X; everything else keeps its place
        assert set(after) <= set(before)
        for path, node in before.items():
            if path not in after:
                assert "<anyOf" in path, (spec.name, path)
                continue
            kept = after[path]
            for key in ("required", "enum", "const", "type", "format"):
                if key in node:
                    assert kept.get(key) == node[key], (spec.name, path, key)
            if node.get("default") is not None:
                assert kept["default"] == node["default"]
            assert ("items" in kept) == ("items" in node)
            assert set(kept.get("properties") or {}) == set(node.get("properties") or {})


@pytest.mark.parametrize("server", SERVERS)
def test_noise_is_gone_and_descriptions_are_short(server: str) -> None:
    for spec in server_specs(server):
        slim = slim_spec(spec)
        text = json.dumps(slim.parameters)
        for key in ('"$schema"', '"title"', '"additionalProperties"'):
            assert key not in text, (spec.name, key)
        assert len(slim.description) <= max(TOOL_DESCRIPTION_LIMIT, HARD_DESCRIPTION_LIMIT + 1)
        for _path, node in walk(slim.parameters):
            description = node.get("description", "")
            assert "\n" not in description
            assert len(description) <= max(PROPERTY_DESCRIPTION_LIMIT, HARD_DESCRIPTION_LIMIT + 1)


def test_slimming_twice_changes_nothing() -> None:
    long = ToolSpec("t", "word " * 200, {"type": "object", "properties": {}})
    for spec in [long, *(spec for server in SERVERS for spec in server_specs(server))]:
        once = slim_spec(spec)
        assert slim_spec(once) == once, spec.name


def test_slimming_saves_tokens_on_every_server() -> None:
    savings = {}
    for server in SERVERS:
        specs = server_specs(server)
        full = sum(spec_tokens(spec) for spec in specs)
        _chars, slim = tools_cost(specs)
        savings[server] = 1 - slim / full
    assert all(saving > 0.10 for saving in savings.values()), savings
    assert savings["context7"] > 0.5  # paragraph-long descriptions
    assert savings["filesystem"] > 0.25


def test_tools_cost_is_the_slimmed_compact_json_and_its_tokens() -> None:
    specs = server_specs("playwright")
    wire = [
        json.dumps(slim_spec(spec).to_ollama(), separators=(",", ":"), ensure_ascii=False)
        for spec in specs
    ]
    assert tools_cost(specs) == (sum(map(len, wire)), sum(tool_tokens(s) for s in specs))
    assert tools_cost([]) == (0, 0)


@pytest.mark.parametrize(
    "schema",
    [{}, {"properties": {"a": {"type": "string"}}}, {"type": "object"}, {"type": "string"}, None],
)
def test_parameters_always_become_an_object_with_properties(schema: Any) -> None:
    slim = slim_spec(ToolSpec("t", "d", schema)).parameters
    assert slim["type"] == "object"
    assert isinstance(slim["properties"], dict)
    assert slim_spec(ToolSpec("t", "d", slim)).parameters == slim


def test_a_short_description_is_kept_whole_with_whitespace_collapsed() -> None:
    spec = ToolSpec("t", "Close  the\n page.", {"type": "object", "properties": {}})
    assert slim_spec(spec).description == "Close the page."


def test_first_sentence_skips_abbreviations() -> None:
    text = "Search the docs, e.g. for a class name. Then read the result carefully."
    assert first_sentence(text) == "Search the docs, e.g. for a class name."
    assert first_sentence("Intro line\n\nSecond paragraph.") == "Intro line"
    assert first_sentence("No end") == "No end"


def test_an_overlong_single_sentence_is_cut_at_a_word() -> None:
    long = "word " * 200
    spec = ToolSpec("t", long, {"type": "object", "properties": {}})
    description = slim_spec(spec).description
    assert description.endswith("…")
    assert len(description) <= HARD_DESCRIPTION_LIMIT


def test_optional_nullable_collapses_but_required_nullable_stays() -> None:
    schema = {
        "type": "object",
        "title": "Args",
        "properties": {
            "title": {"type": "string", "title": "Title"},  # a property called "title" stays
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["title", "cursor"],
    }
    slim = slim_spec(ToolSpec("t", "d", schema)).parameters
    assert slim == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "limit": {"type": "integer"},
            "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["title", "cursor"],
    }


def test_a_tool_without_parameters_gets_an_empty_object_schema() -> None:
    assert slim_spec(ToolSpec("t", "d", {})).parameters == {"type": "object", "properties": {}}
