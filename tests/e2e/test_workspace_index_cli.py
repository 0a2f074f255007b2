"""`ask` with the workspace's index: the search_workspace tool, --no-index, the index's place."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli_runner import ask_json
from tests.fakes.ollama_server import FakeOllama, Reply


def test_the_model_searches_the_workspace_and_no_index_takes_the_tool_away(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "settings.json").write_text(json.dumps({"embedding_model": ""}))
    notes = workspace / "notes"
    notes.mkdir()
    (notes / "maison.md").write_text("# Maison\n\nLe mot de passe du wifi est sous la box.\n")
    ollama.script(
        Reply.tool("search_workspace", {"query": "mot de passe du wifi"}),
        Reply.text("Sous la box (notes/maison.md)."),
        Reply.text("Je ne sais pas."),
    )
    run = ask_json(
        ollama,
        workspace,
        loki_home,
        "--no-memory",
        prompt="Où ai-je noté le mot de passe du wifi ?",
    )
    assert run.code == 0, run.stderr
    result = run.of_type("tool_result")[0]
    assert result["name"] == "search_workspace"
    assert result["ok"] is True
    sent = ollama.chat_requests[1]["messages"][-1]
    assert sent["role"] == "tool"
    assert sent["content"].startswith("notes/maison.md:1:")
    assert {t["function"]["name"] for t in ollama.chat_requests[0]["tools"]} >= {"search_workspace"}
    assert list((loki_home / "index").glob("*.db"))  # the index, outside the workspace
    assert not list(workspace.rglob("*.db"))

    off = ask_json(ollama, workspace, loki_home, "--no-memory", "--no-index", prompt="Et alors ?")
    assert off.code == 0, off.stderr
    names = {t["function"]["name"] for t in ollama.chat_requests[-1]["tools"]}
    assert "search_workspace" not in names
