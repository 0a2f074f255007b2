"""Tool arguments are untrusted input: parse, validate and explain what was wrong."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError


class ArgumentError(Exception):
    """The arguments cannot be used; the message tells the model what to fix."""


class ToolArgs(BaseModel):
    """Base of every native tool's arguments: no extra fields, no silent coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


ArgsT = TypeVar("ArgsT", bound=ToolArgs)


def parse_raw_arguments(raw: Any) -> dict[str, Any]:
    """Accept an object, or a JSON string holding one (some models send that)."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ArgumentError(
                f"the arguments are not valid JSON ({exc.msg} at {exc.pos})"
            ) from None
    if not isinstance(raw, dict):
        raise ArgumentError(f"the arguments must be a JSON object, not {type(raw).__name__}")
    return raw


def validate_arguments(model: type[ArgsT], args: dict[str, Any]) -> ArgsT:
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        raise ArgumentError("; ".join(_explain(error) for error in exc.errors())) from None


def _explain(error: Any) -> str:
    field = ".".join(str(part) for part in error["loc"]) or "arguments"
    match error["type"]:
        case "missing":
            return f"missing required argument '{field}'"
        case "extra_forbidden":
            return f"unexpected argument '{field}'"
        case "string_type":
            return f"'{field}' must be a string"
        case "int_type":
            return f"'{field}' must be an integer"
        case "bool_type":
            return f"'{field}' must be true or false"
        case _:
            return f"'{field}': {error['msg']}"


def schema_of(model: type[ToolArgs]) -> dict[str, Any]:
    """A lean JSON schema for the model: no titles, no pydantic noise."""
    full = copy.deepcopy(_json_schema(model))  # callers may change what they get
    properties: dict[str, Any] = {}
    for name, prop in full.get("properties", {}).items():
        lean = {key: value for key, value in prop.items() if key != "title"}
        properties[name] = lean
    return {
        "type": "object",
        "properties": properties,
        "required": list(full.get("required", [])),
    }


@functools.cache
def _json_schema(model: type[ToolArgs]) -> dict[str, Any]:
    """pydantic builds it anew on every call (~0.1 ms a tool, twice a turn): keep it."""
    return model.model_json_schema()
