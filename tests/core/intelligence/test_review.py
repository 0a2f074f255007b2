"""The self-review pass: one call after the answer; a real problem is fixed in the same turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.events import Review, Token, event_to_json
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.review import REVIEW_SYSTEM, parse_review
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

REQUEST = "Donne-moi la moyenne de 2, 4 et 9"


def reviewing(settings: Settings | None = None) -> Settings:
    base = settings or Settings()
    base.review_enabled = True
    return base


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("OK", None),
        ("ok.", None),
        ("Rien à changer.", None),
        ("FIX: la moyenne est 5, pas 15", "la moyenne est 5, pas 15"),
        ("fix : il manque le fichier", "il manque le fichier"),
        ("The answer looks fine to me.", None),
        ("", None),
        ("FIX:", None),
    ],
)
def test_a_review_says_ok_or_names_a_problem(text: str, problem: str | None) -> None:
    assert parse_review(text) == problem


async def test_a_good_answer_is_read_once_and_left_alone(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("La moyenne vaut 5."), Reply.text("OK"))
    agent = make_agent(backend, store, workspace, reviewing(), skills=False)
    events = await turn(agent, REQUEST)

    _answer, review = ollama.chat_requests
    assert review["messages"][0]["content"] == REVIEW_SYSTEM
    assert REQUEST in review["messages"][1]["content"]
    assert "La moyenne vaut 5." in review["messages"][1]["content"]
    (card,) = [e for e in events if isinstance(e, Review)]
    assert card == Review(False, "relu : rien à changer")
    assert event_to_json(card) == {
        "type": "review",
        "changed": False,
        "summary": "relu : rien à changer",
    }
    stored = store.messages(agent.last_conversation or "")
    assert [m.meta.review for m in stored if m.role == "system"] == ["relu : rien à changer"]


async def test_a_problem_found_is_fixed_in_the_same_turn_with_one_review_round(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(
        Reply.text("La moyenne vaut 15."),
        Reply.text("FIX: 15 est la somme ; la moyenne est 5."),
        Reply.text("Correction : la moyenne vaut 5."),
    )
    agent = make_agent(backend, store, workspace, reviewing(), skills=False)
    events = await turn(agent, REQUEST)

    assert len(ollama.chat_requests) == 3  # answer, review, fix: no second review
    fix = ollama.chat_requests[2]["messages"]
    assert fix[-1]["role"] == "user"
    assert "15 est la somme ; la moyenne est 5." in fix[-1]["content"]
    shown = "".join(e.text for e in events if isinstance(e, Token))
    assert shown.endswith("Correction : la moyenne vaut 5.")
    (card,) = [e for e in events if isinstance(e, Review)]
    assert card.changed
    assert "15 est la somme" in card.summary


async def test_the_review_reads_the_check_results_of_the_files_written(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(
        Reply.tool("write_file", {"path": "moyenne.py", "content": "print((2 + 4 + 9) / 3)\n"}),
        Reply.text("J'ai écrit moyenne.py."),
        Reply.text("OK"),
    )
    agent = make_agent(backend, store, workspace, reviewing(), skills=False)
    await turn(agent, "Écris un script qui affiche la moyenne de 2, 4 et 9")
    review = ollama.chat_requests[-1]["messages"][1]["content"]
    assert "- moyenne.py: check passes" in review


async def test_the_review_is_off_by_default(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("La moyenne vaut 5."))
    events = await turn(make_agent(backend, store, workspace, skills=False), REQUEST)
    assert len(ollama.chat_requests) == 1
    assert not [e for e in events if isinstance(e, Review)]
