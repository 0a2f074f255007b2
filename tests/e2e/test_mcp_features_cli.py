"""`loki-desktop ask` answering an MCP server's own requests: forms in the terminal
(--interactive, stdin), refusals with a notice, sampling by the local model (--allow-sampling).

A real stdio server (tests/fakes/mcp_servers/features.py) and the scripted Ollama server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import PYTHON, cli_env
from tests.fakes.mcp_servers import script
from tests.fakes.ollama_server import FakeOllama, Reply


def ask(
    home: Path, ollama: FakeOllama, workspace: Path, *flags: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            PYTHON,
            "-m",
            "loki_desktop",
            "ask",
            "--json",
            "--host",
            ollama.url,
            "--workspace",
            str(workspace),
            "--mcp-wait",  # a loaded machine starts the server slowly: never leave it out
            "90",
            *flags,
            "Vas-y",
        ],
        env=cli_env(home),
        capture_output=True,
        text=True,
        timeout=300,  # the --mcp-wait above, the start and the turn, on a loaded machine
        input=stdin,
    )


def loki(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "loki_desktop", *args],
        env=cli_env(home),
        capture_output=True,
        text=True,
        timeout=300,  # the server's start on a loaded machine
    )


def features_server(home: Path, **entry: Any) -> None:
    server = {"enabled": True, "label": "Features", "command": [sys.executable, script("features")]}
    server.update(entry)
    (home / "settings.json").write_text(json.dumps({"mcp_servers": {"feat": server}}))


def tool_outputs(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_interactive_ask_fills_the_form_from_stdin(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    features_server(loki_home)
    ollama.script(Reply.tool("mcp_feat_register", {}), Reply.text("Merci."))
    # answer: yes; name; age (Enter: default 30); colour 3 (Bleu); news "non"; topics 1,3
    done = ask(
        loki_home, ollama, workspace, "--interactive", stdin="o\nAda Lovelace\n\n3\nnon\n1,3\n"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Inscrivez-vous pour continuer." in done.stderr
    assert "Nom (obligatoire)" in done.stderr
    assert "3. Bleu" in done.stderr
    (output,) = tool_outputs(ollama.chat_requests[1])
    assert json.loads(output) == {
        "action": "accept",
        "content": {
            "name": "Ada Lovelace",
            "age": 30,
            "colour": "blue",
            "news": False,
            "topics": ["python", "web"],
        },
    }


def test_without_interactive_the_form_is_declined_with_a_notice(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    features_server(loki_home)
    ollama.script(Reply.tool("mcp_feat_register", {}), Reply.text("Tant pis."))
    done = ask(loki_home, ollama, workspace)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "relancez avec --interactive" in done.stderr
    (output,) = tool_outputs(ollama.chat_requests[1])
    assert json.loads(output) == {"action": "decline", "content": None}


def test_sampling_is_refused_unless_allowed(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    features_server(loki_home)
    ollama.script(Reply.tool("mcp_feat_summarize", {"text": "un long texte"}), Reply.text("Ok."))
    done = ask(loki_home, ollama, workspace)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(ollama.chat_requests) == 2  # the turn's two rounds: no sampling request
    (output,) = tool_outputs(ollama.chat_requests[1])
    assert output.startswith("refused: ")
    assert "--allow-sampling" in output  # the cause: the flag, not the server's policy (ask)
    assert "jamais" not in output


def test_allowed_sampling_is_answered_by_the_turns_model(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    features_server(loki_home)
    ollama.script(
        Reply.tool("mcp_feat_summarize", {"text": "un long texte"}),
        Reply.text("Résumé bref."),  # the sampling request
        Reply.text("Voilà."),
    )
    done = ask(loki_home, ollama, workspace, "--allow-sampling", "--model", "llama3.1:8b")
    assert done.returncode == 0, done.stderr[-2000:]
    _first, sampling, last = ollama.chat_requests
    assert sampling["model"] == "llama3.1:8b"
    assert sampling["messages"][-1] == {"role": "user", "content": "Summarize: un long texte"}
    assert sampling["options"]["num_predict"] == 64
    (output,) = tool_outputs(last)
    assert output == "model llama3.1:8b said: Résumé bref."
    assert "Votre modèle (llama3.1:8b) a répondu à « Features »" in done.stderr


def test_a_server_set_to_never_is_refused_even_with_the_flag(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    features_server(loki_home)
    chosen = subprocess.run(
        [PYTHON, "-m", "loki_desktop", "mcp", "sampling", "feat", "never"],
        env=cli_env(loki_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert chosen.returncode == 0, chosen.stderr
    saved = json.loads((loki_home / "settings.json").read_text())
    assert saved["mcp_servers"]["feat"]["sampling"] == "never"
    ollama.script(Reply.tool("mcp_feat_summarize", {"text": "x"}), Reply.text("Ok."))
    done = ask(loki_home, ollama, workspace, "--allow-sampling")
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(ollama.chat_requests) == 2
    assert tool_outputs(ollama.chat_requests[1])[0].startswith("refused: ")


def test_mcp_prompts_and_resources_list_what_the_server_offers(loki_home: Path) -> None:
    features_server(loki_home)
    listed = loki(loki_home, "mcp", "prompts", "feat", "--json")
    assert listed.returncode == 0, listed.stderr[-2000:]
    prompts = {p["name"]: p for p in json.loads(listed.stdout)}
    assert prompts["review"]["title"] == "Relecture de code"
    assert [(a["name"], a["required"]) for a in prompts["review"]["arguments"]] == [
        ("code", True),
        ("language", False),
    ]
    shown = loki(loki_home, "mcp", "prompts")
    assert "feat/review  code=… [language=…]" in shown.stdout

    listed = loki(loki_home, "mcp", "resources", "--json")
    assert listed.returncode == 0, listed.stderr[-2000:]
    offers = json.loads(listed.stdout)
    assert {r["uri"] for r in offers["resources"]} == {"notes://readme", "notes://logo"}
    (template,) = offers["templates"]
    assert template["uri_template"] == "notes://day/{date}"
    assert template["parameters"] == ["date"]
    shown = loki(loki_home, "mcp", "resources", "feat")
    assert "notes://day/{date}  modèle, paramètres : date" in shown.stdout

    off = loki(loki_home, "mcp", "prompts", "fetch")
    assert off.returncode == 1
    assert "mcp enable fetch" in off.stderr


def test_ask_sends_a_servers_prompt_and_resources_with_the_message(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    features_server(loki_home)
    ollama.script(Reply.text("Vu."))
    done = ask(
        loki_home,
        ollama,
        workspace,
        "--prompt",
        "feat/review",
        "--arg",
        "code=x = 1",
        "--resource",
        "notes://readme",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    users = [m["content"] for m in ollama.chat_requests[0]["messages"] if m["role"] == "user"]
    sent = users[-1]
    # the prompt as the server rendered it, then the message, then the resource
    prompt = sent.index("Please review this python code:\nx = 1")
    message = sent.index("Vas-y")
    resource = sent.index("Attached resource notes://readme")
    assert prompt < message < resource
    assert "build with make, test with pytest" in sent


def test_ask_with_a_prompt_the_server_does_not_offer_sends_nothing(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    features_server(loki_home)
    done = ask(loki_home, ollama, workspace, "--prompt", "feat/nope")
    assert done.returncode == 2
    assert "loki-desktop mcp prompts feat" in done.stderr
    assert ollama.chat_requests == []
