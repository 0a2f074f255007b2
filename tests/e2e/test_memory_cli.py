"""`loki-desktop memory …` and the memories of `ask`: real processes, the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli_runner import ask_json, run_cli
from tests.fakes.ollama_server import FakeOllama, Reply


def _settings(home: Path, server: FakeOllama, **extra: object) -> None:
    # the scripted server embeds with its chat model; the embedded model is not needed
    settings = {"host": server.url, "embedding_model": "qwen2.5-coder:7b", **extra}
    (home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def test_add_list_search_edit_rm(ollama: FakeOllama, loki_home: Path) -> None:
    _settings(loki_home, ollama)
    added = run_cli("memory", "add", "Mon chat s'appelle Moustache", "--json", home=loki_home)
    assert added.code == 0, added.stderr
    memory = json.loads(added.stdout)
    assert memory["text"] == "Mon chat s'appelle Moustache"
    assert memory["source"] == "typed"
    again = run_cli("memory", "add", "Mon chat s'appelle Moustache", "--json", home=loki_home)
    assert json.loads(again.stdout)["existed"] is True
    listed = json.loads(run_cli("memory", "list", "--json", home=loki_home).stdout)
    assert [m["id"] for m in listed] == [memory["id"]]
    found = run_cli("memory", "search", "comment s'appelle mon chat", "--json", home=loki_home)
    shown = json.loads(found.stdout)
    assert shown["vectors"] == "ollama:qwen2.5-coder:7b"
    assert [item["id"] for item in shown["items"]] == [memory["id"]]
    edited = run_cli(
        "memory", "edit", str(memory["id"]), "Mon chat s'appelle Pixel", home=loki_home
    )
    assert edited.code == 0
    assert "Pixel" in edited.stdout
    removed = run_cli("memory", "rm", str(memory["id"]), home=loki_home)
    assert removed.code == 0, removed.stderr
    assert run_cli("memory", "rm", str(memory["id"]), home=loki_home).code == 1
    assert json.loads(run_cli("memory", "list", "--json", home=loki_home).stdout) == []


def test_a_secret_is_refused(ollama: FakeOllama, loki_home: Path) -> None:
    _settings(loki_home, ollama)
    run = run_cli("memory", "add", "la clé est sk-abcdefghijklmnop1234", home=loki_home)
    assert run.code == 2
    assert "secret" in run.stderr
    assert json.loads(run_cli("memory", "list", "--json", home=loki_home).stdout) == []


def test_ask_streams_a_recall_event_and_no_memory_turns_it_off(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    _settings(loki_home, ollama)
    ollama.script(Reply.text("Noté."), Reply.text("Debian 12."), Reply.text("Je ne sais pas."))
    told = ask_json(ollama, workspace, loki_home, prompt="Retiens que mon NAS est en 10.0.0.7")
    assert told.code == 0, told.stderr
    kept = told.of_type("memorised")
    assert [event["text"] for event in kept] == ["mon NAS est en 10.0.0.7"]
    asked = ask_json(ollama, workspace, loki_home, prompt="Quelle est l'adresse du NAS ?")
    recall = asked.of_type("recall")
    assert len(recall) == 1
    assert recall[0]["items"][0] == {
        "id": kept[0]["id"],
        "text": "mon NAS est en 10.0.0.7",
        "score": recall[0]["items"][0]["score"],
    }
    embeds = len(ollama.embed_requests)
    off = ask_json(
        ollama,
        workspace,
        loki_home,
        "--no-memory",
        "--no-index",
        prompt="Quelle est l'adresse du NAS ?",
    )
    assert off.code == 0
    assert off.of_type("recall") == []
    assert len(ollama.embed_requests) == embeds  # nothing embedded
    assert "10.0.0.7" not in json.dumps(ollama.chat_requests[-1]["messages"][0])


def test_extract_keeps_what_a_stored_conversation_teaches(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    _settings(loki_home, ollama)
    ollama.script(Reply.text("Bien noté."), Reply.text('["Travaille avec Neovim"]'))
    told = ask_json(ollama, workspace, loki_home, prompt="J'écris tout mon code dans Neovim.")
    assert told.code == 0, told.stderr
    run = run_cli("memory", "extract", "--json", home=loki_home)
    assert run.code == 0, run.stderr
    kept = json.loads(run.stdout)
    assert [m["text"] for m in kept] == ["Travaille avec Neovim"]
    assert "Neovim" in ollama.chat_requests[-1]["messages"][0]["content"]
