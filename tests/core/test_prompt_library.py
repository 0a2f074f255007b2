"""The person's prompt library: plain files, `{{variables}}` filled, broken ones said."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.prompt_library import (
    PromptError,
    find_prompt,
    list_prompts,
    prompts_folder,
    read_prompt,
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = prompts_folder(tmp_path)
    folder.mkdir()
    return folder


def test_variables_are_found_in_order_and_filled(folder: Path) -> None:
    (folder / "revue.md").write_text(
        "Relis ce {{ langage }} comme un expert {{langage}} exigeant, pour {{public-cible}}."
    )
    prompt = find_prompt(folder, "revue")
    assert prompt.variables == ("langage", "public-cible")
    filled = prompt.fill({"langage": "Python", "public-cible": "des débutants"})
    assert filled == "Relis ce Python comme un expert Python exigeant, pour des débutants."


def test_a_missing_or_unknown_value_is_said(folder: Path) -> None:
    (folder / "traduire.txt").write_text("Traduis en {{langue}} : {{texte}}")
    prompt = find_prompt(folder, "traduire")
    with pytest.raises(PromptError) as missing:
        prompt.fill({"langue": "anglais"})
    assert str(missing.value) == "Le prompt « traduire » attend une valeur pour : texte."
    with pytest.raises(PromptError) as unknown:
        prompt.fill({"langue": "anglais", "texte": "bonjour", "ton": "poli"})
    assert str(unknown.value) == "Le prompt « traduire » n'a pas de variable « ton »."


@pytest.mark.parametrize("text", ["Écris {{nom", "Écris {{ deux mots }}", "Écris {{}}"])
def test_a_broken_variable_makes_the_prompt_unusable_with_one_sentence(
    folder: Path, text: str
) -> None:
    path = folder / "casse.md"
    path.write_text(text)
    with pytest.raises(PromptError) as caught:
        read_prompt(path)
    assert str(caught.value).startswith("Le prompt « casse » a une variable mal écrite : « {{")
    assert str(caught.value).endswith(
        "(écrivez {{nom}}, un nom sans espace entre doubles accolades)."
    )
    prompts, problems = list_prompts(folder)
    assert prompts == []
    assert problems == [str(caught.value)]


def test_the_library_lists_its_prompts_and_an_unknown_name_lists_them(folder: Path) -> None:
    (folder / "b.md").write_text("deux")
    (folder / "a.txt").write_text("un")
    (folder / "ignore.json").write_text("{}")
    (folder / "latin.md").write_bytes(b"caf\xe9")
    prompts, problems = list_prompts(folder)
    assert [p.name for p in prompts] == ["a", "b"]
    assert problems == ["Le prompt « latin » n'est pas écrit en UTF-8."]
    with pytest.raises(PromptError) as caught:
        find_prompt(folder, "zzz")
    assert str(caught.value) == f"Pas de prompt « zzz » dans {folder} (prompts connus : a, b)."
    with pytest.raises(PromptError):
        find_prompt(folder, "../b")  # a name, never a path


def test_no_library_yet_is_no_prompt(tmp_path: Path) -> None:
    assert list_prompts(tmp_path / "absent") == ([], [])
