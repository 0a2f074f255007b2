"""Prompted tools: the tools described in the system prompt for a model without native ones.

A model whose Ollama template has no tool support (gemma3, phi4, llava, the first
deepseek-r1 tags) gets no `tools` in its request: the same tools are listed in the system
prompt in one compact text form, the model writes its calls as `<tool_call>{…}</tool_call>`
(read by core.llm.textcalls, the same recovery small models already need), and the
results go back as user messages wrapped in `<tool_result name="…">…</tool_result>`: a
template without a tool role would drop or garble `role: "tool"` messages.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from loki_desktop.core.ports import ToolSpec
from loki_desktop.core.slim import slim_spec

INSTRUCTIONS = """\
## Tools
You can use the tools below. To call one, write a block like this and then stop:
<tool_call>
{{"name": "TOOL_NAME", "arguments": {{"ARGUMENT": "value"}}}}
</tool_call>
One block per call; the arguments are JSON. The result comes back in a message starting \
with <tool_result name="TOOL_NAME">. Never write a tool result yourself. When you need no \
tool, just answer.

{tools}
"""


def tools_prompt(specs: Iterable[ToolSpec]) -> str:
    """The system-prompt part that describes `specs`, one line each."""
    lines = [_line(slim_spec(spec)) for spec in specs]
    return INSTRUCTIONS.format(tools="\n".join(lines))


def _line(spec: ToolSpec) -> str:
    schema = spec.parameters if isinstance(spec.parameters, dict) else {}
    properties = schema.get("properties")
    required = set(schema.get("required") or ())
    params = []
    if isinstance(properties, dict):
        for name, prop in properties.items():
            mark = "" if name in required else "?"
            params.append(f"{name}{mark}: {_type(prop)}")
    description = " ".join(spec.description.split())
    return f"- {spec.name}({', '.join(params)}) — {description}"


def _type(prop: Any) -> str:
    if not isinstance(prop, dict):
        return "any"
    if isinstance(prop.get("enum"), list):
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    kind = prop.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array":
        return f"array of {_type(prop.get('items'))}"
    return str(kind) if kind else "any"


def call_text(name: str, args: Any) -> str:
    """A call as the model is asked to write it."""
    body = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
    return f"<tool_call>\n{body}\n</tool_call>"


def result_text(name: str, output: str) -> str:
    """A tool's result as the model reads it back."""
    return f'<tool_result name="{name}">\n{output}\n</tool_result>'


def to_prompted(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Wire messages with tool calls and tool results rewritten as plain text."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = [
                call_text(call["function"]["name"], call["function"].get("arguments"))
                for call in message["tool_calls"]
            ]
            content = "\n".join(filter(None, [message.get("content") or "", *calls]))
            rewritten = {k: v for k, v in message.items() if k != "tool_calls"}
            converted.append({**rewritten, "content": content})
        elif role == "tool":
            wire: dict[str, Any] = {
                "role": "user",
                "content": result_text(str(message.get("tool_name") or ""), message["content"]),
            }
            if message.get("images"):
                wire["images"] = message["images"]
            converted.append(wire)
        else:
            converted.append(message)
    return converted


def prompted_request(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], offered: Sequence[ToolSpec]
) -> list[dict[str, Any]]:
    """A fitted request made for a model without native tools: the tools that fit (`tools`,
    as the budget kept them) described in the system prompt, calls and results as text."""
    kept = {tool["function"]["name"] for tool in tools}
    described = [spec for spec in offered if spec.name in kept]
    head, rest = messages[0], messages[1:]
    if described and head.get("role") == "system":
        head = {**head, "content": f"{head['content']}\n{tools_prompt(described)}"}
    return [head, *to_prompted(rest)]
