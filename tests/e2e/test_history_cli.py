"""`loki-desktop history` and `ask --regenerate` end to end: real processes, the scripted
server, real SQLite in the test's $LOKI_HOME."""

from __future__ import annotations

import json
from pathlib import Path

from loki_desktop.persistence.history import History
from tests.e2e.cli_runner import ask_json, run_cli
from tests.fakes.ollama_server import FakeOllama, Reply


def test_list_regenerate_show_export_rm_import_round_trip(
    ollama: FakeOllama, workspace: Path, loki_home: Path, tmp_path: Path
) -> None:
    ollama.script(Reply.text("Première réponse."), Reply.text("Réponse de llama."))
    first = ask_json(ollama, workspace, loki_home, "--no-skills", prompt="Salut Loki")
    assert first.code == 0, first.stderr
    session = first.events[-1]["session"]

    regenerated = run_cli(
        "ask", "--session", session, "--regenerate", "--model", "llama3.1:8b", "--json",
        "--host", ollama.url, "--workspace", str(workspace), "--no-skills", home=loki_home,
    )  # fmt: skip
    assert regenerated.code == 0, regenerated.stderr
    assert ollama.chat_requests[-1]["model"] == "llama3.1:8b"
    tokens = "".join(e["text"] for e in regenerated.of_type("token"))
    assert tokens == "Réponse de llama."

    listed = run_cli("history", "list", "--json", "--workspace", str(workspace), home=loki_home)
    assert listed.code == 0, listed.stderr
    (line,) = [json.loads(text) for text in listed.stdout.splitlines()]
    assert (line["id"], line["title"], line["message_count"]) == (session, "Salut Loki", 3)
    elsewhere = run_cli("history", "list", "--workspace", str(tmp_path), home=loki_home)
    assert elsewhere.stdout == ""

    shown = run_cli("history", "show", session, home=loki_home)
    assert "Loki (llama3.1:8b)  (version 2/2)" in shown.stdout
    assert "Première réponse." not in shown.stdout  # the other version is not the one shown

    first_answer = next(
        line.split("]")[0].strip("[")
        for line in shown.stdout.splitlines()
        if "(version 2/2)" in line
    )
    older = run_cli("history", "branch", session, str(int(first_answer) - 1), home=loki_home)
    assert older.code == 0, older.stderr
    assert "Première réponse." in older.stdout
    assert "(version 1/2)" in older.stdout
    back = run_cli("history", "branch", session, first_answer, home=loki_home)
    assert "Réponse de llama." in back.stdout

    exported = run_cli("history", "export", session, "-o", str(tmp_path / "c.json"), home=loki_home)
    assert exported.code == 0, exported.stderr
    markdown = run_cli("history", "export", session, home=loki_home)
    assert markdown.stdout.startswith("# Salut Loki\n")
    assert "## Loki (llama3.1:8b)" in markdown.stdout

    assert run_cli("history", "rm", session, home=loki_home).code == 0
    assert run_cli("history", "list", home=loki_home).stdout == ""
    imported = run_cli("history", "import", str(tmp_path / "c.json"), home=loki_home)
    assert imported.code == 0, imported.stderr
    history = History(loki_home / "history.db")
    assert [m.content for m in history.messages(session)] == ["Salut Loki", "Réponse de llama."]
    (answer,) = [m for m in history.messages(session) if m.role == "assistant"]
    assert answer.id is not None
    history.switch_branch(session, history.branches(session)[answer.id].ids[0])
    assert history.messages(session)[-1].content == "Première réponse."
    history.close()

    again = run_cli("history", "import", str(tmp_path / "c.json"), home=loki_home)
    assert again.code == 1
    assert "déjà dans l'historique" in again.stderr
    found = run_cli("history", "search", "llama", home=loki_home)
    assert session in found.stdout


def test_bad_input_is_one_sentence_and_leaves_the_history_untouched(
    loki_home: Path, tmp_path: Path
) -> None:
    history = History(loki_home / "history.db")
    kept = history.create("gardée")
    history.close()
    truncated = tmp_path / "coupé.json"
    truncated.write_text('{"kind": "loki-desktop-conversation", "format": 1, "conv')
    other = tmp_path / "autre.json"
    other.write_text('{"kind": "loki-desktop-conversation", "format": 7}')
    (tmp_path / "un-fichier").write_text("")  # a folder that is a file: not writable

    cases = [
        (("history", "import", str(truncated)), "tronqué"),
        (("history", "import", str(other)), "mettez Loki à jour"),
        (("history", "show", "inconnue"), "Conversation introuvable"),
        (("history", "export", kept, "-o", str(tmp_path / "un-fichier" / "y.md")), "aucun fichier"),
        (("ask", "--regenerate"), "demandent --session"),
    ]
    for args, said in cases:
        run = run_cli(*args, home=loki_home)
        assert run.code in (1, 2), (args, run.stderr)
        (sentence,) = run.stderr.strip().splitlines()
        assert said in sentence, (args, sentence)

    history = History(loki_home / "history.db")
    assert [i.id for i in history.list_conversations()] == [kept]
    history.close()
