"""Small-model harness end to end: `loki-desktop ask` against the scripted Ollama server.

Text-form tool calls run and the turn goes on; an answer containing JSON is shown, not run;
a conversation longer than the context keeps its system prompt, skill and last message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loki_desktop.core.messages import ChatMessage
from loki_desktop.persistence.history import History
from tests.e2e.cli_runner import CliRun, ask_args, run_cli
from tests.fakes.ollama_server import FakeOllama, Reply

ARGS = {"path": "rapport.md", "content": "# Rapport\n\nTout va bien.\n"}
ARGS_JSON = json.dumps(ARGS, ensure_ascii=False)
TEXT_FORMS = {
    "hermes": f'<tool_call>\n{{"name": "write_file", "arguments": {ARGS_JSON}}}\n</tool_call>',
    "mistral": f'[TOOL_CALLS] [{{"name": "write_file", "arguments": {ARGS_JSON}}}]',
    "llama": f"<function=write_file>{ARGS_JSON}</function>",
    "bare_json": f'{{"name": "write_file", "parameters": {ARGS_JSON}}}',
    "fenced_json": f'```json\n{{"name": "write_file", "arguments": {ARGS_JSON}}}\n```',
}
DEBUG_REQUEST = "Mon script plante avec une TypeError, corrige-le"


def pieces(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def ask(server: FakeOllama, workspace: Path, home: Path, prompt: str, *extra: str) -> CliRun:
    return run_cli(*ask_args(server, workspace, prompt, *extra), home=home)


def tokens(run: CliRun) -> str:
    return "".join(event["text"] for event in run.of_type("token"))


@pytest.mark.parametrize("form", sorted(TEXT_FORMS))
def test_a_call_written_as_text_runs_and_the_turn_goes_on(
    form: str, ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text(*pieces(TEXT_FORMS[form])), Reply.text("Rapport ", "écrit."))
    run = ask(ollama, workspace, loki_home, "Écris le rapport")
    assert run.code == 0, run.stderr
    assert (workspace / "rapport.md").read_text() == ARGS["content"]
    assert [(c["name"], c["args"]) for c in run.of_type("tool_call")] == [("write_file", ARGS)]
    assert [r["ok"] for r in run.of_type("tool_result")] == [True]
    assert tokens(run) == "Rapport écrit."
    assert any("en texte" in n["message"] for n in run.of_type("notice"))
    assert run.events[-1]["reason"] == "completed"
    # the model then sees a proper call and its result
    second = ollama.chat_requests[1]["messages"]
    assert second[-2]["tool_calls"] == [{"function": {"name": "write_file", "arguments": ARGS}}]
    assert second[-1]["role"] == "tool"
    assert all("num_ctx" not in r["options"] for r in ollama.chat_requests)


def test_an_answer_with_json_is_shown_and_nothing_runs(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    answer = (
        "Voici la charge utile :\n\n```json\n"
        '{"name": "write_file", "arguments": {"path": "rapport.md", "content": "x"}}\n```\n\n'
        "Envoyez-la à l'API."
    )
    ollama.script(Reply.text(*pieces(answer)))
    run = ask(ollama, workspace, loki_home, "Montre-moi la charge utile d'un appel d'outil")
    assert run.code == 0, run.stderr
    assert tokens(run) == answer
    assert run.of_type("tool_call") == []
    assert not (workspace / "rapport.md").exists()
    assert len(ollama.chat_requests) == 1


def test_a_conversation_longer_than_the_context_keeps_what_matters(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "settings.json").write_text('{"num_ctx": 2048}')
    history = History(loki_home / "history.db")
    session = history.create("Longue conversation")
    for i in range(50):
        history.append(session, ChatMessage("user", f"Question {i} : " + "détaille " * 50))
        history.append(session, ChatMessage("assistant", f"Réponse {i} : " + "voici " * 70))
    history.close()
    ollama.script(
        Reply.text("- Cinquante questions sur le projet, toutes répondues."),  # the summary
        Reply.tool("list_dir", {"path": "."}),
        Reply.text("Le dossier est vide."),
    )
    run = ask(ollama, workspace, loki_home, DEBUG_REQUEST, "--session", session)
    assert run.code == 0, run.stderr

    assert run.of_type("skill")[0]["name"] == "debogage-systematique"
    # the older turns are summarised (core.compaction), not just dropped
    (compacted,) = [n for n in run.of_type("notice") if n.get("code") == "compacted"]
    assert compacted["summary"] == "- Cinquante questions sur le projet, toutes répondues."
    dropped = [
        n["message"] for n in run.of_type("notice") if "n'ont pas été envoyés" in n["message"]
    ]
    assert all(n.endswith("(contexte de 2048 jetons).") for n in dropped)
    answers = ollama.chat_requests[1:]  # after the summary call
    for request in answers:
        assert request["options"]["num_ctx"] == 2048
        messages = request["messages"]
        assert messages[0]["role"] == "system"
        assert messages[0]["content"].startswith("You are Loki")
        assert messages[1]["role"] == "system"  # the skill
        assert messages[2]["content"].endswith(compacted["summary"])  # then the summary
        assert len(messages) < 2 + 101
        user_messages = [m["content"] for m in messages if m["role"] == "user"]
        assert user_messages[-1] == DEBUG_REQUEST
    # the second round still carries this turn's call and its result
    assert [m["role"] for m in answers[1]["messages"][-2:]] == ["assistant", "tool"]
    assert tokens(run) == "Le dossier est vide."
