"""The verified-code loop end to end: build_agent, the real ollama client, a scripted server.

The model writes a file, the harness checks it, the problems reach the next request;
a model that ends its turn with a failing file gets exactly one follow-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.events import CheckReport, Done, Event, Notice, Problem, ToolResult
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.prompts import check_followup
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.e2e.cli_runner import run_cli
from tests.fakes.ollama_server import FakeOllama, Reply

BROKEN = "def total(items):\n    return sum(i.price for i in items\n"
FIXED = "def total(items):\n    return sum(i.price for i in items)\n"
UNDEFINED = "def total(items):\n    return sum(i.price for i in itemz)\n"
WRITE_REQUEST = "Écris total() dans shop.py"
SYNTAX_PROBLEM = Problem(2, 15, "SyntaxError: '(' was never closed")


def checks(events: list[Event]) -> list[CheckReport]:
    return [event for event in events if isinstance(event, CheckReport)]


def last_message(request: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = request["messages"][-1]
    return message


def followups(request: dict[str, Any]) -> list[str]:
    return [
        m["content"]
        for m in request["messages"]
        if m["role"] == "user" and m["content"].startswith("The automatic check still finds")
    ]


def write(content: str, path: str = "shop.py") -> Reply:
    return Reply.tool("write_file", {"path": path, "content": content})


async def test_a_broken_write_is_fixed_in_the_same_turn(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(write(BROKEN), write(FIXED), Reply.text("C'est corrigé."))

    events = await turn(make_agent(backend, store, workspace, skills=False), WRITE_REQUEST)

    assert checks(events) == [
        CheckReport("shop.py", False, (SYNTAX_PROBLEM,)),
        CheckReport("shop.py", True),
    ]
    # the check event comes right after the write, before its tool result
    kinds = [type(event).__name__ for event in events]
    assert kinds.count("CheckReport") == 2
    assert kinds.index("CheckReport") == kinds.index("ToolResult") - 1
    # the problems were in the tool result of the second request
    feedback = last_message(ollama.chat_requests[1])
    assert feedback["role"] == "tool"
    assert "shop.py:2:15: SyntaxError: '(' was never closed" in feedback["content"]
    assert "Fix them." in feedback["content"]
    assert "no problems found" in last_message(ollama.chat_requests[2])["content"]
    # no follow-up was needed
    assert len(ollama.chat_requests) == 3
    assert not any(followups(request) for request in ollama.chat_requests)
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"
    assert (workspace / "shop.py").read_text() == FIXED


async def test_undefined_names_are_caught_and_fixed_with_edit_file(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(
        write(UNDEFINED),
        Reply.tool("edit_file", {"path": "shop.py", "old_text": "itemz", "new_text": "items"}),
        Reply.text("Corrigé."),
    )

    events = await turn(make_agent(backend, store, workspace, skills=False), WRITE_REQUEST)

    assert checks(events) == [
        CheckReport("shop.py", False, (Problem(2, 33, "F821 Undefined name `itemz`"),)),
        CheckReport("shop.py", True),
    ]
    assert "F821 Undefined name `itemz`" in last_message(ollama.chat_requests[1])["content"]


async def test_a_model_that_never_fixes_gets_exactly_one_followup(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(
        write(BROKEN),
        Reply.text("Voilà le fichier."),
        Reply.text("Il est très bien comme ça."),
        Reply.text("(never requested)"),
    )

    events = await turn(make_agent(backend, store, workspace, skills=False), WRITE_REQUEST)

    assert len(ollama.chat_requests) == 3
    assert ollama.pending == 1
    third = ollama.chat_requests[2]
    assert followups(third) == [check_followup([CheckReport("shop.py", False, (SYNTAX_PROBLEM,))])]
    assert last_message(third)["role"] == "user"
    notices = [event.message for event in events if isinstance(event, Notice)]
    assert len(notices) == 2
    assert "renvoie les problèmes au modèle" in notices[0]
    assert notices[1] == "La vérification échoue toujours pour shop.py."
    # the failing check stays visible: it is the last check event of the turn
    assert checks(events) == [CheckReport("shop.py", False, (SYNTAX_PROBLEM,))]
    done = events[-1]
    assert isinstance(done, Done)
    assert done.reason == "completed"
    # the follow-up is stored as the harness's, not the user's
    stored = store.messages(done.session or "")
    harness = [m for m in stored if m.origin == "harness"]
    assert [m.role for m in harness] == ["user"]


async def test_a_correction_that_still_fails_ends_the_turn(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    still_broken = "def total(items):\n    return sum(i.price for i in items]\n"
    ollama.script(
        write(BROKEN),
        Reply.text("Fini."),
        write(still_broken),
        Reply.text("Corrigé (pas vraiment)."),
        Reply.text("(never requested)"),
    )

    events = await turn(make_agent(backend, store, workspace, skills=False), WRITE_REQUEST)

    assert len(ollama.chat_requests) == 4
    assert len(followups(ollama.chat_requests[-1])) == 1
    reports = checks(events)
    assert [report.ok for report in reports] == [False, False]
    assert reports[-1].problems[0].message.startswith("SyntaxError: closing parenthesis ']'")
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"
    assert (workspace / "shop.py").read_text() == still_broken


async def test_a_fix_after_the_followup_passes(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(write(BROKEN), Reply.text("Fini."), write(FIXED), Reply.text("Corrigé."))

    events = await turn(make_agent(backend, store, workspace, skills=False), WRITE_REQUEST)

    assert [report.ok for report in checks(events)] == [False, True]
    assert len(ollama.chat_requests) == 4
    notices = [event.message for event in events if isinstance(event, Notice)]
    assert len(notices) == 1  # the follow-up announcement, no "still failing"


@pytest.mark.usefixtures("english")  # the HTML check's English wording
async def test_run_check_reports_and_a_passing_recheck_clears_the_failure(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "page.html").write_text('<!DOCTYPE html>\n<img src="logo.png">\n')
    ollama.script(
        Reply.tool("run_check", {"path": "page.html"}),
        write("PNG", "logo.png"),
        Reply.tool("run_check", {"path": "page.html"}),
        Reply.text("La page est correcte."),
    )

    events = await turn(make_agent(backend, store, workspace, skills=False), "Vérifie page.html")

    problem = Problem(2, 11, "'logo.png' points to a file that does not exist (logo.png)")
    assert checks(events) == [
        CheckReport("page.html", False, (problem,)),
        CheckReport("page.html", True),
    ]
    results = [event for event in events if isinstance(event, ToolResult)]
    assert results[0].name == "run_check"
    assert results[0].ok
    assert "page.html:2:11: 'logo.png' points to a file" in results[0].output
    assert len(ollama.chat_requests) == 4


async def test_checking_a_file_the_model_did_not_write_asks_for_no_fix(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    """Reporting a user's broken file is the answer; rewriting it unasked would not be."""
    (workspace / "legacy.py").write_text("print(undefined_thing)\n")
    ollama.script(
        Reply.tool("run_check", {"path": "legacy.py"}),
        Reply.text("legacy.py utilise un nom non défini."),
        Reply.text("(never requested)"),
    )

    events = await turn(make_agent(backend, store, workspace, skills=False), "Que vaut legacy.py ?")

    assert [report.ok for report in checks(events)] == [False]
    assert len(ollama.chat_requests) == 2
    assert not [event for event in events if isinstance(event, Notice)]


async def test_files_of_other_kinds_are_not_checked(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(write("# (unclosed\n", "notes.md"), Reply.text("Noté."))

    events = await turn(make_agent(backend, store, workspace, skills=False), WRITE_REQUEST)

    assert checks(events) == []
    assert "Automatic check" not in last_message(ollama.chat_requests[1])["content"]


async def test_auto_checks_off_in_the_settings_means_no_check_and_no_followup(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(write(BROKEN), Reply.text("Fini."), Reply.text("(never requested)"))

    events = await turn(
        make_agent(backend, store, workspace, Settings(auto_checks=False), skills=False),
        WRITE_REQUEST,
    )

    assert checks(events) == []
    assert len(ollama.chat_requests) == 2


def test_ask_json_prints_the_check_events(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(write(BROKEN), write(FIXED), Reply.text("Corrigé."))

    run = run_cli(
        "ask", "Écris shop.py", "--json", "--no-skills", "--host", ollama.url,
        "--workspace", str(workspace), home=loki_home,
    )  # fmt: skip

    assert run.code == 0, run.stderr
    assert run.of_type("check") == [
        {
            "type": "check",
            "path": "shop.py",
            "ok": False,
            "problems": [{"line": 2, "col": 15, "message": "SyntaxError: '(' was never closed"}],
        },
        {"type": "check", "path": "shop.py", "ok": True, "problems": []},
    ]
    assert "run_check" in {t["function"]["name"] for t in ollama.chat_requests[0]["tools"]}


async def test_a_broken_yaml_write_is_checked_and_fixed(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    broken = "jobs:\n  test:\n    runs-on: ubuntu-latest\n     steps: []\n"
    fixed = "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: []\n"
    ollama.script(write(broken, "ci.yml"), write(fixed, "ci.yml"), Reply.text("Corrigé."))

    events = await turn(make_agent(backend, store, workspace, skills=False), "Écris ci.yml")

    assert [(report.path, report.ok) for report in checks(events)] == [
        ("ci.yml", False),
        ("ci.yml", True),
    ]
    feedback = last_message(ollama.chat_requests[1])["content"]
    assert "ci.yml:4:11: YAML invalide" in feedback
