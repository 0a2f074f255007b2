"""Notices carry a code from one closed list: in --json, and on every notice the core makes."""

from __future__ import annotations

import ast
from pathlib import Path

from loki_desktop.core.events import NOTICE_CODES, Notice, event_to_json
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

CORE = Path(__file__).resolve().parents[2] / "loki_desktop" / "core"


def test_a_notice_line_carries_its_code() -> None:
    line = event_to_json(Notice("La réponse a été coupée.", "length"))
    assert line == {"type": "notice", "code": "length", "message": "La réponse a été coupée."}
    # a notice made without a code (another module's old call) still prints, as "other"
    assert event_to_json(Notice("x"))["code"] == "other"


def test_the_list_holds_the_codes_scripts_count() -> None:
    named = {"repetition", "compacted", "system_folded", "base_model", "no_tool_used"}
    named |= {"line_skipped", "stream_capped", "server_silent", "length", "timeout"}
    assert named <= set(NOTICE_CODES)
    assert len(NOTICE_CODES) == len(set(NOTICE_CODES))


def _uncoded_notices(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Notice":
            has_code = len(node.args) >= 2 or any(k.arg == "code" for k in node.keywords)
            if not has_code:
                lines.append(node.lineno)
    return lines


def test_every_notice_the_core_makes_has_a_code() -> None:
    uncoded = {
        str(path.relative_to(CORE)): lines
        for path in CORE.rglob("*.py")
        if (lines := _uncoded_notices(path))
    }
    assert uncoded == {}


async def test_a_turn_stopped_by_the_round_limit_says_so_with_its_code(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(*[Reply.tool("list_dir", {"path": "."}) for _ in range(3)])
    agent = make_agent(backend, store, workspace, skills=False)
    agent.config.max_rounds = 1
    events = await turn(agent, "liste")
    codes = [event.code for event in events if isinstance(event, Notice)]
    assert "max_rounds" in codes
