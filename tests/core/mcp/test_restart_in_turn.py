"""A server restarting after a call timeout, seen from the rest of the same turn.

A real agent turn (the real ollama client against the scripted server) calls a real echo
server: its `slow` call passes the timeout, the server is stopped to restart, and every later
call of the turn to that server must say so and when to retry, never "unknown tool".
"""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.events import ToolResult
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.history import History
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.agent_rig import make_agent, turn
from tests.core.mcp.conftest import stdio
from tests.fakes.mcp_servers import processes_tagged
from tests.fakes.ollama_server import FakeOllama, Reply


async def test_calls_after_a_timeout_say_the_server_restarts_and_when(
    backend: OllamaBackend,
    ollama: FakeOllama,
    store: History,
    workspace: Path,
    secrets: KeyringSecrets,
    tag: str,
) -> None:
    manager = McpManager(
        {"echo": stdio("echo", "echo", tag=tag)},
        secrets,
        call_timeout=0.5,
        backoff=(5,),
        connect_wait=60,  # a generous start: the suite runs on loaded machines
    )
    ollama.script(
        # the same reply: a timed-out call, then a call to the same server
        Reply.tools(("mcp_echo_slow", {"seconds": 30}), ("mcp_echo_echo", {"text": "a"})),
        Reply.tools(("mcp_echo_echo", {"text": "b"})),  # the next round of the same turn
        Reply.text("Je réessaierai."),
    )
    agent = make_agent(backend, store, workspace, extra_sources=[manager])
    try:
        events = await turn(agent, "Écho lent ?")
    finally:
        await manager.aclose()
    slow, same_reply, next_round = [e for e in events if isinstance(e, ToolResult)]
    assert not slow.ok
    assert "did not answer within 0.5 s" in slow.output
    for result in (same_reply, next_round):
        assert not result.ok
        assert "unknown tool" not in result.output
        assert "restarting" in result.output  # for the model: what happens
        assert "next message" in result.output  # ... and when to retry
        assert "redémarre" in result.summary  # for people, in French
        assert "prochain message" in result.summary
    # what the model read is what the events say
    read = [m["content"] for m in ollama.chat_requests[2]["messages"] if m["role"] == "tool"]
    assert read[1] == same_reply.output
    assert processes_tagged(tag) == []
