"""The prompted-tools text: one compact line per tool, calls and results as plain messages."""

from __future__ import annotations

from loki_desktop.core.llm.prompted import to_prompted, tools_prompt
from loki_desktop.core.llm.textcalls import recover_calls
from loki_desktop.core.ports import ToolSpec

SPEC = ToolSpec(
    "mcp_pw_browser_click",
    "Click an element on the page. Use the ref from a snapshot.\nLong details here.",
    {
        "type": "object",
        "properties": {
            "ref": {"type": "string", "description": "Element ref"},
            "button": {"type": "string", "enum": ["left", "right"]},
            "modifiers": {"type": "array", "items": {"type": "string"}},
            "count": {"type": ["integer", "null"]},
            "options": {"type": "object", "properties": {"x": {"type": "number"}}},
        },
        "required": ["ref"],
    },
    source="pw",
)


def test_each_tool_is_one_line_with_its_arguments() -> None:
    text = tools_prompt([SPEC])
    line = next(li for li in text.splitlines() if li.startswith("- mcp_pw_browser_click("))
    assert line.startswith(
        '- mcp_pw_browser_click(ref: string, button?: "left" | "right", '
        "modifiers?: array of string, count?: integer | null, options?: object) — Click"
    )
    assert line.endswith(
        "— Click an element on the page. Use the ref from a snapshot. Long details here."
    )


def test_the_call_form_asked_for_is_the_one_recovery_reads() -> None:
    history = [
        {"role": "user", "content": "clique"},
        {
            "role": "assistant",
            "content": "Je clique.",
            "thinking": "hmm",
            "tool_calls": [
                {"function": {"name": "mcp_pw_browser_click", "arguments": {"ref": "e1"}}}
            ],
        },
        {"role": "tool", "tool_name": "mcp_pw_browser_click", "content": "ok", "images": ["AAAA"]},
    ]
    user, assistant, result = to_prompted(history)
    assert user == history[0]
    assert "tool_calls" not in assistant
    assert assistant["thinking"] == "hmm"
    call_text = assistant["content"].removeprefix("Je clique.\n")
    recovery = recover_calls(call_text, ["mcp_pw_browser_click"])
    assert recovery is not None
    assert [(c.name, c.arguments) for c in recovery.calls] == [
        ("mcp_pw_browser_click", {"ref": "e1"})
    ]
    assert result == {
        "role": "user",
        "content": '<tool_result name="mcp_pw_browser_click">\nok\n</tool_result>',
        "images": ["AAAA"],
    }
