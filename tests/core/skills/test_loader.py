"""Loading skills: the five built-in ones from the package, the user's own, bad files skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.skills.loader import (
    MAX_FILE_BYTES,
    SkillFileError,
    load_builtin_skills,
    load_router,
    load_skills,
    load_user_skills,
    parse_skill,
)

BUILTIN_NAMES = {
    "debogage-systematique",
    "creation-web",
    "refactor-sur",
    "analyse-donnees",
    "redaction-structuree",
}


def skill_file(name: str, body: str = "1. Faire ceci.\n", **fields: str) -> str:
    lines = [f"name: {name}", "description: A method for tests."]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def test_the_five_builtin_skills_load_from_the_package() -> None:
    catalogue = load_builtin_skills()
    assert catalogue.problems == ()
    assert {skill.name for skill in catalogue.skills} == BUILTIN_NAMES
    for skill in catalogue.skills:
        assert skill.builtin
        assert skill.source == f"loki_desktop/skills/{skill.name}.md"
        assert skill.title
        assert skill.description
        # a short numbered method in French, with what is forbidden
        assert "1. " in skill.body
        assert "3. " in skill.body
        assert "Interdit" in skill.body
        assert not skill.body.startswith("---")
        assert skill.keywords or skill.strong or skill.pairs


def test_the_debugging_method_says_what_the_issue_asks() -> None:
    body = next(s for s in load_builtin_skills().skills if s.name == "debogage-systematique").body
    for step in ("Reproduire", "Localiser", "hypothèse", "Correctif minimal", "run_check"):
        assert step in body


def test_a_full_skill_file_parses() -> None:
    skill = parse_skill(
        skill_file(
            "mon-skill",
            body="\n# Méthode\n\n1. Un.\n\n",
            title="Mon skill",
            keywords="[pdf, fusion]",
            strong='["*error", stack trace]',
            pairs='["fusionn* | pdf"]',
            extensions="[.pdf]",
        ),
        "/tmp/mon-skill.md",
        builtin=False,
    )
    assert skill.name == "mon-skill"
    assert skill.title == "Mon skill"
    assert skill.body == "# Méthode\n\n1. Un."
    assert skill.keywords == ("pdf", "fusion")
    assert skill.strong == ("*error", "stack trace")
    assert skill.pairs == ("fusionn* | pdf",)
    assert skill.extensions == (".pdf",)
    assert not skill.builtin


def test_a_skill_written_for_another_agent_loads() -> None:
    """The SKILL.md convention: name + description only, other keys ignored."""
    text = (
        "---\n"
        "name: pdf-processing\n"
        "description: Extract text and tables from PDF files.\n"
        "license: Apache-2.0\n"
        "allowed-tools: Read, Bash\n"
        "metadata:\n"
        "  version: 1.0\n"
        "---\n"
        "# PDF processing\n\nUse pdfplumber.\n"
    )
    skill = parse_skill(text, "SKILL.md", builtin=False)
    assert skill.title == "Pdf processing"
    assert skill.keywords == skill.strong == skill.pairs == ()


def test_comma_separated_keywords_are_a_list() -> None:
    skill = parse_skill(skill_file("x", keywords="bug, crash ,"), "x.md", builtin=False)
    assert skill.keywords == ("bug", "crash")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("no front matter\n", "---"),
        ("---\ndescription: d\n---\nbody\n", "name"),
        ("---\nname: x\n---\nbody\n", "description"),
        (skill_file("Mon_Skill"), "nom invalide"),
        (skill_file("x" * 65), "nom invalide"),
        (skill_file("x", body="   \n"), "vide"),
        (skill_file("x", body="a" * 20_000), "trop longue"),
        (skill_file("x", keywords="[a*]"), "joker"),
        (skill_file("x", keywords='["plan*et"]'), "début ou à la fin"),
        (skill_file("x", pairs='["only one side"]'), "paire"),
        (skill_file("x", pairs='["fix | .csv"]'), "mots simples"),
        (skill_file("x", extensions="[.c sv]"), "extension"),
        (skill_file("x", keywords="\n  nested: map"), "liste"),
        (skill_file("x", title="[a, b]"), "texte"),
    ],
)
def test_unusable_files_are_refused_with_a_reason(text: str, fragment: str) -> None:
    with pytest.raises(SkillFileError, match=fragment):
        parse_skill(text, "x.md", builtin=False)


def test_user_folder_loads_md_files_and_skill_folders(tmp_path: Path) -> None:
    (tmp_path / "alpha.md").write_text(skill_file("alpha"), encoding="utf-8")
    (tmp_path / "beta").mkdir()
    (tmp_path / "beta" / "SKILL.md").write_text(skill_file("beta"), encoding="utf-8")
    (tmp_path / "empty-folder").mkdir()
    (tmp_path / "notes.txt").write_text("not a skill", encoding="utf-8")
    catalogue = load_user_skills(tmp_path)
    assert catalogue.problems == ()
    assert [(s.name, s.source) for s in catalogue.skills] == [
        ("alpha", str(tmp_path / "alpha.md")),
        ("beta", str(tmp_path / "beta" / "SKILL.md")),
    ]
    assert not any(skill.builtin for skill in catalogue.skills)


def test_a_missing_user_folder_is_just_empty(tmp_path: Path) -> None:
    assert load_user_skills(tmp_path / "nope").skills == ()
    assert load_user_skills(tmp_path / "nope").problems == ()


def test_bad_user_files_are_skipped_with_a_notice_and_the_rest_loads(tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text(skill_file("good"), encoding="utf-8")
    (tmp_path / "broken.md").write_text("---\nname: broken\n", encoding="utf-8")
    (tmp_path / "latin1.md").write_bytes(skill_file("latin", body="é\n").encode("latin-1"))
    (tmp_path / "huge.md").write_text(
        skill_file("huge", body="x" * MAX_FILE_BYTES), encoding="utf-8"
    )
    (tmp_path / "twin.md").write_text(skill_file("good"), encoding="utf-8")
    catalogue = load_user_skills(tmp_path)
    assert [skill.name for skill in catalogue.skills] == ["good"]
    problems = "\n".join(catalogue.problems)
    assert len(catalogue.problems) == 4
    for name, reason in [
        ("broken.md", "fermé"),
        ("latin1.md", "UTF-8"),
        ("huge.md", "trop gros"),
        ("twin.md", "déjà pris"),
    ]:
        assert any(name in p and reason in p for p in catalogue.problems), problems
    assert all(p.startswith("Méthode ignorée") for p in catalogue.problems)


def test_a_user_skill_replaces_the_builtin_of_the_same_name(tmp_path: Path) -> None:
    (tmp_path / "mine.md").write_text(
        skill_file("creation-web", body="Ma propre méthode.\n"), encoding="utf-8"
    )
    catalogue = load_skills(tmp_path)
    web = [skill for skill in catalogue.skills if skill.name == "creation-web"]
    assert len(web) == 1
    assert web[0].body == "Ma propre méthode."
    assert not web[0].builtin
    assert len(catalogue.skills) == 5


def test_load_router_routes_user_skills_and_reports_problems(tmp_path: Path) -> None:
    (tmp_path / "pdf.md").write_text(
        skill_file("pdf-tools", keywords="[pdf]", strong="[fusionne ces pdf]"), encoding="utf-8"
    )
    (tmp_path / "bad.md").write_text("nothing", encoding="utf-8")
    router, problems = load_router(tmp_path)
    assert len(problems) == 1
    assert "bad.md" in problems[0]
    picked = router.pick("Fusionne ces PDF en un seul")
    assert picked is not None
    assert picked.name == "pdf-tools"


def test_extensions_are_understood_with_or_without_their_dot(tmp_path: Path) -> None:
    (tmp_path / "sql.md").write_text(
        skill_file("revue-sql", extensions="[sql, .ddl]", keywords="[requete]"), encoding="utf-8"
    )
    router, problems = load_router(tmp_path)
    assert not problems
    for message in ("Relis la requete de rapport.sql", "Relis la requete de schema.ddl"):
        picked = router.pick(message)
        assert picked is not None, message
        assert picked.name == "revue-sql"
