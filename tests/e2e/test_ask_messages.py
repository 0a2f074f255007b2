"""`ask` with files, a prompt of the library, instructions and figures: the real CLI process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loki_desktop.persistence.history import History
from tests.e2e.cli_runner import ask_json, run_cli
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.pdf_files import text_pdf

KEYS = {
    "prompt_tokens",
    "answer_tokens",
    "tokens_per_second",
    "first_token_s",
    "context_tokens",
    "context_limit",
}


def _system(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


def _conversations(home: Path) -> int:
    if not (home / "history.db").exists():
        return 0
    store = History(home / "history.db")
    try:
        return len(store.list_conversations())
    finally:
        store.close()


def test_attached_files_reach_the_model_and_the_done_line_has_the_figures(
    ollama: FakeOllama, workspace: Path, loki_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_bytes("café, crème\n".encode("cp1252") * 20)
    (tmp_path / "devis.pdf").write_bytes(text_pdf(["Total : 120 euros"]))
    ollama.script(Reply.text("Lu.", prompt_eval_count=700, eval_count=9))
    run = ask_json(
        ollama,
        workspace,
        loki_home,
        "--attach",
        str(tmp_path / "notes.txt"),
        "--attach",
        str(tmp_path / "devis.pdf"),
        prompt="Résume",
    )
    assert run.code == 0, run.stderr
    content = ollama.chat_requests[0]["messages"][-1]["content"]
    assert content.startswith('Résume\n\n<file name="notes.txt">\ncafé, crème\n')
    assert '<file name="devis.pdf" pages="1">\nTotal : 120 euros\n</file>' in content
    done = run.of_type("done")[0]
    assert set(done["stats"]) == KEYS
    assert done["stats"]["prompt_tokens"] == 700
    assert done["stats"]["answer_tokens"] == 9
    assert done["stats"]["context_tokens"] == 709
    assert done["stats"]["context_limit"] == 8192


def test_a_refused_file_sends_nothing_and_stores_nothing(
    ollama: FakeOllama, workspace: Path, loki_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "image.txt").write_bytes(bytes(range(256)) * 10)
    for path, sentence in [
        (tmp_path / "parti.txt", "« parti.txt » n'existe plus (déplacé ou supprimé ?)."),
        (tmp_path / "image.txt", "« image.txt » n'est pas un fichier texte"),
    ]:
        run = ask_json(ollama, workspace, loki_home, "--attach", str(path), prompt="Lis")
        assert run.code == 2
        assert sentence in run.stderr
        assert run.stdout == ""
    assert ollama.chat_requests == []
    assert _conversations(loki_home) == 0


def test_files_past_the_context_are_refused_then_sent_in_part_with_first_part(
    ollama: FakeOllama, workspace: Path, loki_home: Path, tmp_path: Path
) -> None:
    big = tmp_path / "livre.txt"
    big.write_text("".join(f"Ligne {n} d'un très long livre.\n" for n in range(20_000)))
    run = ask_json(ollama, workspace, loki_home, "--attach", str(big), prompt="Résume")
    assert run.code == 2
    assert "dans le contexte du modèle" in run.stderr
    assert "--first-part" in run.stderr
    assert ollama.chat_requests == []
    assert _conversations(loki_home) == 0

    ollama.script(Reply.text("Début lu."))
    run = ask_json(
        ollama, workspace, loki_home, "--attach", str(big), "--first-part", prompt="Résume"
    )
    assert run.code == 0, run.stderr
    notice = run.of_type("notice")[0]["message"]
    assert notice.endswith("Seul leur début est envoyé.")
    content = ollama.chat_requests[0]["messages"][-1]["content"]
    assert '<file name="livre.txt" part="first ' in content
    assert "Ligne 0 d'un très long livre." in content
    assert "Ligne 19999" not in content


def test_a_prompt_of_the_library_with_its_arguments_then_the_message(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "prompts").mkdir()
    (loki_home / "prompts" / "revue.md").write_text("Relis ce code {{langage}} avec soin.")
    ollama.script(Reply.text("ok"), Reply.text("ok"))
    run = ask_json(
        ollama, workspace, loki_home, "--prompt", "revue", "--arg", "langage=Rust", prompt=""
    )
    assert run.code == 0, run.stderr
    assert ollama.chat_requests[0]["messages"][-1]["content"] == "Relis ce code Rust avec soin."
    run = ask_json(
        ollama,
        workspace,
        loki_home,
        "--prompt",
        "revue",
        "--arg",
        "langage=Go",
        prompt="Surtout main.go",
    )
    assert run.code == 0, run.stderr
    sent = ollama.chat_requests[1]["messages"][-1]["content"]
    assert sent == "Relis ce code Go avec soin.\n\nSurtout main.go"


def test_a_broken_prompt_or_a_missing_argument_sends_nothing(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "prompts").mkdir()
    (loki_home / "prompts" / "casse.md").write_text("Écris {{nom")
    (loki_home / "prompts" / "ok.md").write_text("Bonjour {{nom}}")
    cases = [
        (["--prompt", "casse"], "", "Le prompt « casse » a une variable mal écrite"),
        (["--prompt", "ok"], "", "Le prompt « ok » attend une valeur pour : nom."),
        (["--prompt", "ok", "--arg", "nom"], "", "--arg « nom » : écrivez NOM=VALEUR."),
        (["--arg", "nom=x"], "Salut", "--arg ne sert qu'avec --prompt."),
    ]
    for extra, words, sentence in cases:
        run = ask_json(ollama, workspace, loki_home, *extra, prompt=words)
        assert run.code == 2, extra
        assert sentence in run.stderr, (extra, run.stderr)
    assert ollama.chat_requests == []
    assert _conversations(loki_home) == 0


def test_system_replaces_the_instructions_and_no_agents_md_skips_the_file(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "settings.json").write_text(json.dumps({"instructions": "Réponds en vers."}))
    (workspace / "AGENTS.md").write_text("Utilisez uv, jamais pip.\n")
    ollama.script(Reply.text("ok"), Reply.text("ok"))
    assert ask_json(ollama, workspace, loki_home).code == 0
    first = _system(ollama.chat_requests[0])
    assert "Réponds en vers." in first
    assert "Utilisez uv, jamais pip." in first
    run = ask_json(ollama, workspace, loki_home, "--system", "Sois bref.", "--no-agents-md")
    assert run.code == 0, run.stderr
    second = _system(ollama.chat_requests[1])
    assert "Sois bref." in second
    assert "en vers" not in second
    assert "uv" not in second


def test_stats_prints_one_line_on_stderr(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(
        Reply.text("Bonjour.", prompt_eval_count=3012, eval_count=40, eval_duration=500_000_000)
    )
    run = run_cli(
        "ask",
        "Salut",
        "--stats",
        "--host",
        ollama.url,
        "--workspace",
        str(workspace),
        home=loki_home,
    )
    assert run.code == 0, run.stderr
    assert run.stdout == "Bonjour.\n"
    lines = [line for line in run.stderr.splitlines() if "jetons" in line]
    assert len(lines) == 1
    parts = lines[0].split(" · ")
    assert parts[:2] == ["40 jetons", "80,0 jetons/s"]
    assert parts[2].startswith("premier jeton en ")
    assert parts[3] == "contexte 3\u202f052 / 8\u202f192"


def test_the_message_is_needed_without_a_prompt(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    run = run_cli("ask", "--host", ollama.url, "--workspace", str(workspace), home=loki_home)
    assert run.code == 2
    assert "Le message manque" in run.stderr


def test_a_conversations_own_instructions_apply_to_ask_with_its_session(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("ok"), Reply.text("ok"), Reply.text("ok"))
    first = ask_json(ollama, workspace, loki_home)
    session = first.of_type("done")[0]["session"]
    settings = {"instructions": "Réponds en vers.", "conversation_instructions": {session: "Bref."}}
    (loki_home / "settings.json").write_text(json.dumps(settings))
    assert ask_json(ollama, workspace, loki_home, "--session", session).code == 0
    own = _system(ollama.chat_requests[1])
    assert "Bref." in own
    assert "en vers" not in own
    assert ask_json(ollama, workspace, loki_home, "--session", session, "--system", "X.").code == 0
    assert "X." in _system(ollama.chat_requests[2])
    assert "Bref." not in _system(ollama.chat_requests[2])
